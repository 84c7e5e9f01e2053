/*
 * crash_sys - the system's programs spoolsim crash runs (mkfs, losetup,
 * mount, umount, dmsetup, the repairs), the device-mapper's messages, and
 * the image copies it makes.
 *
 * Every program runs with no input, its output in WORK/NAME.out and
 * WORK/NAME.err (drive.h's work directory), in a process group of its own:
 * a Ctrl-C at the terminal reaches spoolsim crash alone, which then takes
 * the stack apart in order instead of finding a umount killed halfway.
 * The wait is not cut short by a signal, for the same reason; each of
 * these programs takes a second or so at most.
 */
#ifndef SPOOLSIM_CRASH_SYS_H
#define SPOOLSIM_CRASH_SYS_H

#include <stddef.h>

#include "drive.h"

/* The path of program `name' in PATH, else /usr/sbin or /sbin: 0, or -1. */
int crash_sys_which(const char *name, char *out, size_t len);

/* Run argv (argv[0] a name crash_sys_which() finds) as NAME: its exit status, or -1 (not run, or
 * killed). */
int crash_sys_cmd(const struct drive *d, const char *name, char *const argv[]);

/* The last line of WORK/NAME.err (else of NAME.out) in out, for a message; "" if none. */
void crash_sys_cmd_said(const struct drive *d, const char *name, char *out, size_t len);

/*
 * Loop devices. A device attached is listed in WORK/loops, a line each,
 * "DEVICE FILE-DEV FILE-INODE" (decimal, as LOOP_GET_STATUS64 and stat
 * give them), so that a detach, and a later run cleaning up after a dead
 * one (crash_leftover.h), tell the device still ours from one that
 * another program took once ours let go.
 *
 * crash_sys_loop_attach(): losetup --find --show [--direct-io=on] FILE,
 * the device ("/dev/loop3") in dev; 0 or -1.
 * crash_sys_loop_autoclear(): the device detaches itself when its last
 * user closes it (LO_FLAGS_AUTOCLEAR), so that it does not outlive a
 * kill -9 of this program: set once a mount or the log-writes target
 * holds it open, since with nobody holding it the flag's own close would
 * detach it. 0, or -1 with errno.
 * crash_sys_loop_detach(): losetup -d, unless the device is no longer
 * ours or detaches itself; then wait (30 s at most) until it has let go
 * of our file; 0, or -1.
 */
int crash_sys_loop_attach(const struct drive *d, const char *file, int direct_io, char *dev,
                          size_t len);
int crash_sys_loop_autoclear(const char *dev);
int crash_sys_loop_detach(const struct drive *d, const char *dev);
/* Does the device still serve the file WORK/loops lists for it? 1, 0, or -1 if it cannot be told.
 */
int crash_sys_loop_ours(const struct drive *d, const char *dev);
/* 1 if the loop device does direct I/O, 0 if not, -1 if it cannot be told. */
int crash_sys_loop_dio(const char *dev);
/*
 * Each device WORK/loops lists (the devices are given to each(dev, ctx)
 * once, the last record of each): how many, or -1 if the list cannot be
 * read (none was attached: ENOENT).
 */
int crash_sys_loop_each_listed(const struct drive *d, void (*each)(const char *dev, void *ctx),
                               void *ctx);

/* mount -t TYPE [-o OPTS] DEV DIR, then a loop device DEV set to autoclear; 0 or -1
 * (crash_sys_cmd_said(d, "mount") says why). */
int crash_sys_mount(const struct drive *d, const char *dev, const char *dir, const char *type,
                    const char *opts);
/* umount DIR, again for up to 30 s while it is busy; 0 (also when it is no
 * mount point by then), or -1. */
int crash_sys_umount(const struct drive *d, const char *dir);
/*
 * Is DIR a mount point? 1 when its device is not its parent's, or when it
 * cannot be looked at because the FUSE daemon behind it is gone (ENOTCONN:
 * the mount is there, its server is not); 0 when it is a plain directory
 * or gone; -1 when it cannot be told.
 */
int crash_sys_is_mount(const char *dir);
/*
 * DIR bound onto itself as a shared mount, so that what a program in
 * another mount namespace made as a copy of ours mounts on it shows here
 * too (the recorder's FUSE mount: crash_stack.c says why it has a namespace of
 * its own); 0, or -1 with errno. crash_sys_unshare_dir() removes the
 * binding; 0 also when it is gone.
 */
int crash_sys_share_dir(const char *dir);
int crash_sys_unshare_dir(const char *dir);
/*
 * Detach (lazily: MNT_DETACH) every mount below DIR in this mount
 * namespace, the deepest first: how many, or -1 if /proc/self/mountinfo
 * cannot be read or one would not go.
 */
int crash_sys_unmount_below(const char *dir);

/*
 * The device-mapper, for the dm-log-writes recorder: the devices are made
 * and removed by dmsetup (crash_sys_cmd()); the marks go by ioctl, since
 * the load asks for one every few milliseconds.
 *
 * crash_sys_dm_open(): the control device, close-on-exec; -1 with errno
 * when the kernel has no device-mapper. crash_sys_dm_message(): what
 * `dmsetup message NAME 0 TEXT' sends, to device NAME's target at sector
 * 0; 0, or -1 with errno (the target refused it, or no such device).
 */
int crash_sys_dm_open(void);
int crash_sys_dm_message(int control, const char *name, const char *text);

/*
 * Copy the file `from' to `to' (made 0600, or truncated), holes kept as
 * holes: an image is mostly holes. 0, or -1 with err set.
 */
int crash_sys_copy_sparse(const char *from, const char *to, char *err, size_t errlen);

#endif
