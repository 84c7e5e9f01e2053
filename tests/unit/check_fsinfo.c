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

START_TEST(test_longest_prefix)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(mounts, "/var/spool/postfix", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
    ck_assert_str_eq(fs.fstype, "ext4");
    ck_assert_str_eq(fs.source, "/dev/sda1");

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/spool", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt");
    ck_assert_str_eq(fs.fstype, "xfs");

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/x/spool/incoming", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt/x");
    ck_assert_str_eq(fs.fstype, "tmpfs");
    ck_assert_str_eq(fs.source, "tmpfs");

    /* A mount point itself is on its own filesystem. */
    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/x", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt/x");
    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt");
    ck_assert_int_eq(procfs_mountinfo(mounts, "/", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
}
END_TEST

/* The order of the lines does not matter to the longest match. */
START_TEST(test_longest_prefix_any_order)
{
    static const char reversed[] = "24 23 0:30 / /mnt/x rw - tmpfs tmpfs rw\n"
                                   "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                                   "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(reversed, "/mnt/x/y", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt/x");
    ck_assert_int_eq(procfs_mountinfo(reversed, "/mnt/y", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt");
    ck_assert_int_eq(procfs_mountinfo(reversed, "/home", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
}
END_TEST

/* "/mntx" is not under "/mnt", nor "/mnt/xy" under "/mnt/x". */
START_TEST(test_component_boundary)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mntx/spool", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mntx");
    ck_assert_str_eq(fs.fstype, "btrfs");

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/xy", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt");

    /* Without a /mntx line, /mntx falls through to /, never to /mnt. */
    ck_assert_int_eq(procfs_mountinfo("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                                      "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n",
                                      "/mntx", &fs),
                     0);
    ck_assert_str_eq(fs.mount_point, "/");
}
END_TEST

/* A later mount on the same point hides the earlier one. */
START_TEST(test_later_line_wins)
{
    static const char stacked[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                                  "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                                  "30 23 0:40 / /mnt rw,relatime - tmpfs over rw,size=64k\n";
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(stacked, "/mnt/spool", &fs), 0);
    ck_assert_str_eq(fs.fstype, "tmpfs");
    ck_assert_str_eq(fs.source, "over");
    ck_assert_str_eq(fs.options, "rw,relatime,size=64k");
    /* ... but a later, shorter mount point does not beat a longer one. */
    ck_assert_int_eq(procfs_mountinfo("23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                                      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
                                      "/mnt/spool", &fs),
                     0);
    ck_assert_str_eq(fs.fstype, "xfs");
}
END_TEST

/* Spaces (and other bytes) in paths are written as octal escapes. */
START_TEST(test_escaped_spaces)
{
    static const char text[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                               "40 22 8:17 / /media/my\\040disk rw,nosuid - vfat "
                               "/dev/my\\040stick rw,fmask=0022\n"
                               "41 22 8:18 / /back\\134slash rw - ext2 /dev/sdc1 rw\n";
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(text, "/media/my disk/spool", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/media/my disk");
    ck_assert_str_eq(fs.fstype, "vfat");
    ck_assert_str_eq(fs.source, "/dev/my stick");
    ck_assert_str_eq(fs.options, "rw,nosuid,fmask=0022");

    ck_assert_int_eq(procfs_mountinfo(text, "/back\\slash", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/back\\slash");

    /* The escaped form is not the name: "/media/my\040disk" is under /. */
    ck_assert_int_eq(procfs_mountinfo(text, "/media/my\\040disk", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
    /* Nor is a prefix of the unescaped name. */
    ck_assert_int_eq(procfs_mountinfo(text, "/media/my", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
}
END_TEST

/* A backslash without three octal digits after it is no escape. */
START_TEST(test_bad_escape)
{
    static const char text[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                               "40 22 8:17 / /a\\09b rw - vfat /dev/x\\4 rw\n";
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(text, "/a\\09b/q", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/a\\09b");
    ck_assert_str_eq(fs.source, "/dev/x\\4");
    ck_assert_int_eq(procfs_mountinfo(text, "/az", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
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

/* Without superblock options, options are the mount options alone. */
START_TEST(test_no_super_options)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo("22 1 8:1 / / rw,relatime - ext4 /dev/sda1\n", "/x", &fs), 0);
    ck_assert_str_eq(fs.options, "rw,relatime");
    ck_assert_str_eq(fs.source, "/dev/sda1");
}
END_TEST

/* Zero or more optional fields come before the " - " separator. */
START_TEST(test_optional_fields)
{
    static const char none[] =
        "36 35 98:0 /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw,errors=continue\n";
    static const char one[] =
        "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n";
    static const char many[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime shared:7 master:1 "
                               "propagate_from:2 unbindable x:1 y:2 z:3 w:4 v:5 - ext3 "
                               "/dev/root rw,errors=continue\n";
    const char *const texts[] = {none, one, many};

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        struct fsinfo fs;

        ck_assert_msg(procfs_mountinfo(texts[i], "/mnt2/q", &fs) == 0, "line %zu not parsed", i);
        ck_assert_str_eq(fs.mount_point, "/mnt2");
        ck_assert_str_eq(fs.fstype, "ext3");
        ck_assert_str_eq(fs.source, "/dev/root");
        ck_assert_str_eq(fs.options, "rw,noatime,errors=continue");
    }
}
END_TEST

/* options: the per-mount options, then the superblock options not among them. */
START_TEST(test_options_joined)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(mounts, "/mnt/x/a", &fs), 0);
    ck_assert_str_eq(fs.options, "rw,nosuid,nodev,size=1024k,mode=755");
    ck_assert_int_eq(procfs_mountinfo(mounts, "/etc", &fs), 0);
    ck_assert_str_eq(fs.options, "rw,relatime,errors=remount-ro");
}
END_TEST

/* Each option once: the kernel repeats rw (and may repeat others) per superblock. */
START_TEST(test_options_once)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo("22 1 8:1 / / rw,relatime - ext4 /dev/vda "
                                      "rw,discard,relatime,resuid=65534,rw\n",
                                      "/tmp", &fs),
                     0);
    ck_assert_str_eq(fs.options, "rw,relatime,discard,resuid=65534");
    /* a prefix of another option is a different option */
    ck_assert_int_eq(procfs_mountinfo("22 1 8:1 / / r,rwx - ext4 /dev/vda rw,r,rwx,,x\n", "/", &fs),
                     0);
    ck_assert_str_eq(fs.options, "r,rwx,rw,x");
    /* and the value is part of the option */
    ck_assert_int_eq(
        procfs_mountinfo("22 1 8:1 / / rw,size=1k - tmpfs t size=2k,size=1k\n", "/", &fs), 0);
    ck_assert_str_eq(fs.options, "rw,size=1k,size=2k");
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

START_TEST(test_not_covered)
{
    static const char no_root[] = "23 22 8:2 / /mnt rw - xfs /dev/sda2 rw\n"
                                  "24 23 0:30 / /mnt/x rw - tmpfs tmpfs rw\n";
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(no_root, "/var/spool", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo(no_root, "/", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo(no_root, "/mn", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo(no_root, "/mntx", &fs), -1);
    /* A relative path is under no mount point, not even /. */
    ck_assert_int_eq(procfs_mountinfo(mounts, "spool", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo(mounts, "", &fs), -1);
}
END_TEST

/* Lines that are not mountinfo lines are skipped, whatever they hold. */
START_TEST(test_garbage_ignored)
{
    static const char text[] = "garbage\n"
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
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo(text, "/mnt/spool", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/mnt");
    ck_assert_str_eq(fs.source, "/dev/sda2");
    ck_assert_int_eq(procfs_mountinfo(text, "/var", &fs), 0);
    ck_assert_str_eq(fs.mount_point, "/");
    ck_assert_str_eq(fs.source, "/dev/sda1");
    ck_assert_int_eq(procfs_mountinfo("garbage\n1 2 3\n\n", "/", &fs), -1);
    /* Alone, the damaged lines cover nothing. */
    ck_assert_int_eq(procfs_mountinfo("1 2 3:4 /  rw - xfs /dev/empty rw\n", "/var", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo("1 2 3:4 / mnt rw - xfs /dev/rel rw\n", "mnt", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo("- - - - - - - - - -\n", "/", &fs), -1);
}
END_TEST

START_TEST(test_empty_text)
{
    struct fsinfo fs;

    ck_assert_int_eq(procfs_mountinfo("", "/", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo("\n", "/", &fs), -1);
    ck_assert_int_eq(procfs_mountinfo("", "/var/spool", &fs), -1);
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
    Suite *s = suite_create("fsinfo");
    TCase *tc = tcase_create("parse");

    tcase_add_test(tc, test_longest_prefix);
    tcase_add_test(tc, test_longest_prefix_any_order);
    tcase_add_test(tc, test_component_boundary);
    tcase_add_test(tc, test_later_line_wins);
    tcase_add_test(tc, test_escaped_spaces);
    tcase_add_test(tc, test_bad_escape);
    tcase_add_test(tc, test_long_mount_point);
    tcase_add_test(tc, test_no_super_options);
    tcase_add_test(tc, test_optional_fields);
    tcase_add_test(tc, test_options_joined);
    tcase_add_test(tc, test_options_once);
    tcase_add_test(tc, test_options_full);
    tcase_add_test(tc, test_note);
    tcase_add_test(tc, test_not_covered);
    tcase_add_test(tc, test_garbage_ignored);
    tcase_add_test(tc, test_empty_text);
    tcase_add_test(tc, test_describe);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
