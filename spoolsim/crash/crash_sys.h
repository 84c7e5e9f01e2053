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

/*
 * Move this process into a mount namespace of its own, private from the
 * root down: the mounts it and its children make are then in no other
 * namespace, so that another program that makes a namespace meanwhile
 * (unshare -m, a container, ip netns) cannot take a copy that keeps the
 * image busy after our umount, and they vanish with the process whatever
 * happens to it. 0, or -1 with errno (no CAP_SYS_ADMIN, or no namespaces).
 */
int crash_sys_private_mounts(void);

/* The path of program `name' in PATH, else /usr/sbin or /sbin: 0, or -1. */
int crash_sys_which(const char *name, char *out, size_t len);

/* Run argv (argv[0] a name crash_sys_which() finds) as NAME: its exit status, or -1 (not run, or
 * killed). */
int crash_sys_cmd(const struct drive *d, const char *name, char *const argv[]);

/* The last line of WORK/NAME.err (else of NAME.out) in out, for a message; "" if none. */
void crash_sys_cmd_said(const struct drive *d, const char *name, char *out, size_t len);

/* losetup --find --show [--direct-io=on] FILE: the device ("/dev/loop3") in dev; 0 or -1. */
int crash_sys_loop_attach(const struct drive *d, const char *file, int direct_io, char *dev,
                          size_t len);
/* 1 if the loop device does direct I/O, 0 if not, -1 if it cannot be told. */
int crash_sys_loop_dio(const char *dev);
/* losetup -d, then wait (30 s at most) until the device has let go of its file; 0 or -1. */
int crash_sys_loop_detach(const struct drive *d, const char *dev);

/* mount -t TYPE [-o OPTS] DEV DIR; 0 or -1 (crash_sys_cmd_said(d, "mount") says why). */
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
