/*
 * Unit tests: procfs_mountinfo(), the mount that holds a path, picked from the
 * text of /proc/self/mountinfo (proc(5)): ID PARENT MAJ:MIN ROOT
 * MOUNT_POINT MOUNT_OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fsinfo.h"
#include "procfs.h"

/* A small machine: / on ext4, /mnt on xfs, /mnt/x on tmpfs, /mntx on btrfs. */
static const char mounts[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
    "23 22 8:2 / /mnt rw,noatime shared:2 - xfs /dev/sda2 rw,attr2,inode64\n"
    "24 23 0:30 / /mnt/x rw,nosuid,nodev shared:3 - tmpfs tmpfs rw,size=1024k,mode=755\n"
    "25 22 8:3 / /mntx rw,relatime shared:4 - btrfs /dev/sda3 rw,space_cache=v2\n";

/* The order of the lines does not matter to the longest match. */
static const char reversed[] = "24 23 0:30 / /mnt/x rw - tmpfs tmpfs rw\n"
                               "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                               "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";

/* Without a /mntx line, /mntx falls through to /, never to /mnt. */
static const char no_mntx[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                              "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n";

/* A later mount on the same point hides the earlier one... */
static const char stacked[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                              "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                              "30 23 0:40 / /mnt rw,relatime - tmpfs over rw,size=64k\n";
/* ... but a later, shorter mount point does not beat a longer one. */
static const char shorter_later[] = "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                                    "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";

/* Spaces (and other bytes) in paths are written as octal escapes. */
static const char escaped[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                              "40 22 8:17 / /media/my\\040disk rw,nosuid - vfat "
                              "/dev/my\\040stick rw,fmask=0022\n"
                              "41 22 8:18 / /back\\134slash rw - ext2 /dev/sdc1 rw\n";

/* A backslash without three octal digits after it is no escape. */
static const char bad_escape[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                                 "40 22 8:17 / /a\\09b rw - vfat /dev/x\\4 rw\n";

/* Zero or more optional fields come before the " - " separator. */
static const char fields_none[] =
    "36 35 98:0 /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw,errors=continue\n";
static const char fields_one[] =
    "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n";
static const char fields_many[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime shared:7 master:1 "
                                  "propagate_from:2 unbindable x:1 y:2 z:3 w:4 v:5 - ext3 "
                                  "/dev/root rw,errors=continue\n";

static const char no_root[] = "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                              "24 23 0:30 / /mnt/x rw - tmpfs tmpfs rw\n";

/* Lines that are not mountinfo lines are skipped, whatever they hold. */
static const char garbage[] = "garbage\n"
                              "\n"
                              "1 2 3\n"
                              "1 2 3:4 / /mnt rw\n"                  /* no separator */
                              "1 2 3:4 / /mnt rw -\n"                /* nothing after it */
                              "1 2 3:4 / /mnt rw - xfs\n"            /* no source */
                              "1 2 3:4 / /mnt - xfs /dev/a rw\n"     /* no mount options */
                              "1 2 3:4 /  rw - xfs /dev/empty rw\n"  /* empty mount point */
                              "1 2 3:4 / mnt rw - xfs /dev/rel rw\n" /* relative mount point */
                              "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                              "   \n"
                              "- - - - - - - - - -\n"
                              "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw"; /* no final newline */

/*
 * One lookup: the mount that holds `path' according to `text'. found 0:
 * none does (-1); else the fields not NULL are what it says.
 */
struct lookup {
    const char *what;
    const char *text;
    const char *path;
    int found;
    const char *mount_point, *fstype, *source, *options;
};

static const struct lookup lookups[] = {
    /* the longest prefix wins */
    {"on /", mounts, "/var/spool/postfix", 1, "/", "ext4", "/dev/sda1", NULL},
    {"on /mnt", mounts, "/mnt/spool", 1, "/mnt", "xfs", NULL, NULL},
    {"on /mnt/x", mounts, "/mnt/x/spool/incoming", 1, "/mnt/x", "tmpfs", "tmpfs", NULL},
    /* a mount point itself is on its own filesystem */
    {"/mnt/x itself", mounts, "/mnt/x", 1, "/mnt/x", NULL, NULL, NULL},
    {"/mnt itself", mounts, "/mnt", 1, "/mnt", NULL, NULL, NULL},
    {"/ itself", mounts, "/", 1, "/", NULL, NULL, NULL},
    {"any order, /mnt/x", reversed, "/mnt/x/y", 1, "/mnt/x", NULL, NULL, NULL},
    {"any order, /mnt", reversed, "/mnt/y", 1, "/mnt", NULL, NULL, NULL},
    {"any order, /", reversed, "/home", 1, "/", NULL, NULL, NULL},
    /* "/mntx" is not under "/mnt", nor "/mnt/xy" under "/mnt/x" */
    {"/mntx is no /mnt", mounts, "/mntx/spool", 1, "/mntx", "btrfs", NULL, NULL},
    {"/mnt/xy is no /mnt/x", mounts, "/mnt/xy", 1, "/mnt", NULL, NULL, NULL},
    {"/mntx without its line", no_mntx, "/mntx", 1, "/", NULL, NULL, NULL},
    {"stacked: the later", stacked, "/mnt/spool", 1, NULL, "tmpfs", "over", "rw,relatime,size=64k"},
    {"a later, shorter point", shorter_later, "/mnt/spool", 1, NULL, "xfs", NULL, NULL},
    {"escaped spaces", escaped, "/media/my disk/spool", 1, "/media/my disk", "vfat",
     "/dev/my stick", "rw,nosuid,fmask=0022"},
    {"an escaped backslash", escaped, "/back\\slash", 1, "/back\\slash", NULL, NULL, NULL},
    /* the escaped form is not the name: "/media/my\040disk" is under / */
    {"the escaped form", escaped, "/media/my\\040disk", 1, "/", NULL, NULL, NULL},
    /* nor is a prefix of the unescaped name */
    {"a prefix of an unescaped name", escaped, "/media/my", 1, "/", NULL, NULL, NULL},
    {"a bad escape", bad_escape, "/a\\09b/q", 1, "/a\\09b", NULL, "/dev/x\\4", NULL},
    {"a bad escape is no prefix", bad_escape, "/az", 1, "/", NULL, NULL, NULL},
    /* without superblock options, options are the mount options alone */
    {"no superblock options", "22 1 8:1 / / rw,relatime - ext4 /dev/sda1\n", "/x", 1, NULL, NULL,
     "/dev/sda1", "rw,relatime"},
    {"no optional field", fields_none, "/mnt2/q", 1, "/mnt2", "ext3", "/dev/root",
     "rw,noatime,errors=continue"},
    {"one optional field", fields_one, "/mnt2/q", 1, "/mnt2", "ext3", "/dev/root",
     "rw,noatime,errors=continue"},
    {"many optional fields", fields_many, "/mnt2/q", 1, "/mnt2", "ext3", "/dev/root",
     "rw,noatime,errors=continue"},
    /* options: the per-mount options, then the superblock options not among them */
    {"options joined, tmpfs", mounts, "/mnt/x/a", 1, NULL, NULL, NULL,
     "rw,nosuid,nodev,size=1024k,mode=755"},
    {"options joined, ext4", mounts, "/etc", 1, NULL, NULL, NULL, "rw,relatime,errors=remount-ro"},
    /* each option once: the kernel repeats rw (and may repeat others) per superblock */
    {"each option once",
     "22 1 8:1 / / rw,relatime - ext4 /dev/vda rw,discard,relatime,resuid=65534,rw\n", "/tmp", 1,
     NULL, NULL, NULL, "rw,relatime,discard,resuid=65534"},
    {"a prefix of another option is another", "22 1 8:1 / / r,rwx - ext4 /dev/vda rw,r,rwx,,x\n",
     "/", 1, NULL, NULL, NULL, "r,rwx,rw,x"},
    {"the value is part of the option", "22 1 8:1 / / rw,size=1k - tmpfs t size=2k,size=1k\n", "/",
     1, NULL, NULL, NULL, "rw,size=1k,size=2k"},
    /* not covered */
    {"no root, /var/spool", no_root, "/var/spool", 0, NULL, NULL, NULL, NULL},
    {"no root, /", no_root, "/", 0, NULL, NULL, NULL, NULL},
    {"no root, /mn", no_root, "/mn", 0, NULL, NULL, NULL, NULL},
    {"no root, /mntx", no_root, "/mntx", 0, NULL, NULL, NULL, NULL},
    /* a relative path is under no mount point, not even / */
    {"a relative path", mounts, "spool", 0, NULL, NULL, NULL, NULL},
    {"an empty path", mounts, "", 0, NULL, NULL, NULL, NULL},
    {"garbage, /mnt", garbage, "/mnt/spool", 1, "/mnt", NULL, "/dev/sda2", NULL},
    {"garbage, /", garbage, "/var", 1, "/", NULL, "/dev/sda1", NULL},
    {"garbage alone", "garbage\n1 2 3\n\n", "/", 0, NULL, NULL, NULL, NULL},
    /* alone, the damaged lines cover nothing */
    {"an empty mount point alone", "1 2 3:4 /  rw - xfs /dev/empty rw\n", "/var", 0, NULL, NULL,
     NULL, NULL},
    {"a relative mount point alone", "1 2 3:4 / mnt rw - xfs /dev/rel rw\n", "mnt", 0, NULL, NULL,
     NULL, NULL},
    {"dashes alone", "- - - - - - - - - -\n", "/", 0, NULL, NULL, NULL, NULL},
    {"empty text", "", "/", 0, NULL, NULL, NULL, NULL},
    {"an empty line", "\n", "/", 0, NULL, NULL, NULL, NULL},
    {"empty text, a deeper path", "", "/var/spool", 0, NULL, NULL, NULL, NULL},
};

static void expect_field(const struct lookup *c, const char *field, const char *got,
                         const char *want)
{
    if (want)
        ck_assert_msg(strcmp(got, want) == 0, "%s: %s \"%s\", not \"%s\"", c->what, field, got,
                      want);
}

START_TEST(test_lookup)
{
    const struct lookup *c = &lookups[_i];
    struct fsinfo fs;
    int got = procfs_mountinfo(c->text, c->path, &fs);

    ck_assert_msg(got == (c->found ? 0 : -1), "%s: %s gives %d", c->what, c->path, got);
    if (!c->found)
        return;
    expect_field(c, "mount point", fs.mount_point, c->mount_point);
    expect_field(c, "filesystem", fs.fstype, c->fstype);
    expect_field(c, "source", fs.source, c->source);
    expect_field(c, "options", fs.options, c->options);
}
END_TEST

/* A mount point too long to keep is skipped, never matched by its beginning. */
START_TEST(test_long_mount_point)
{
    size_t long_len = sizeof(((struct fsinfo *)0)->mount_point) + 20;
    char *text = malloc(long_len + 200), *path = malloc(long_len + 10);
    struct fsinfo fs;
    size_t n;

    n = (size_t)sprintf(text, "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n23 22 8:2 / /");
    memset(text + n, 'm', long_len);
    sprintf(text + n + long_len, " rw - xfs /dev/long rw\n");
    /* A path whose beginning is the mount point's first 511 bytes, then a slash. */
    path[0] = '/';
    memset(path + 1, 'm', sizeof(fs.mount_point) - 2);
    strcpy(path + sizeof(fs.mount_point) - 1, "/spool");
    ck_assert_int_eq(procfs_mountinfo(text, path, &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
    free(text);
    free(path);
}
END_TEST

/* A full list drops whole options, never half of one. */
START_TEST(test_options_full)
{
    char line[2048];
    struct fsinfo fs;
    size_t n = 0;

    n += (size_t)snprintf(line + n, sizeof(line) - n, "22 1 8:1 / / rw - ext4 /dev/vda ");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%sopt%03d", i ? "," : "", i);
    snprintf(line + n, sizeof(line) - n, "\n");
    ck_assert_int_eq(procfs_mountinfo(line, "/", &fs), 0);
    ck_assert_uint_lt(strlen(fs.options), sizeof(fs.options));
    /* every option in it is whole: "rw" then opt000, opt001, ... each 6 characters */
    ck_assert_uint_eq((strlen(fs.options) - 2) % 7, 0);
    ck_assert_ptr_nonnull(strstr(fs.options, "opt071"));
}
END_TEST

/* tmpfs and ramfs are memory: a note says so; a disk gets none. */
START_TEST(test_note)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/x/q", &fs), 0);
    ck_assert_ptr_nonnull(fsinfo_note(&fs));
    ck_assert_ptr_nonnull(strstr(fsinfo_note(&fs), "not a disk"));
    ck_assert_int_eq(procfs_mountinfo("1 0 0:1 / / rw - ramfs none rw\n", "/r", &fs), 0);
    ck_assert_ptr_nonnull(fsinfo_note(&fs));
    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/q", &fs), 0);
    ck_assert_ptr_null(fsinfo_note(&fs));
    memset(&fs, 0, sizeof(fs));
    ck_assert_ptr_null(fsinfo_note(&fs));
}
END_TEST

/* fsinfo_describe() of a parsed line, and of nothing found. */
START_TEST(test_describe)
{
    struct fsinfo fs;
    char buf[1200];

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/x/q", &fs), 0);
    fsinfo_describe(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "tmpfs (rw,nosuid,nodev,size=1024k,mode=755) on /mnt/x");
    memset(&fs, 0, sizeof(fs));
    fsinfo_describe(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "unknown filesystem");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_long_mount_point, test_options_full, test_note,
                                  test_describe, NULL};

    return check_run_loop("fsinfo", 0, tests, test_lookup, CHECK_ROWS(lookups));
}
