/*
 * pm_fs - the file system backend of spoolsim postmark.
 *
 * It carries out pm_engine's operations on real files with PostMark
 * 1.53's pattern of system calls (buffered mode: one write or read per
 * 4 KiB, as its stdio did; unbuffered: one per write or read block), plus the
 * durability PostMark never had: fsync or fdatasync before close, O_SYNC,
 * and an fsync of the directory after a create or an unlink. Errors are
 * reported in PostMark's words and counted by the engine; unlike PostMark,
 * short reads and failed writes are errors too.
 */
#ifndef SPOOLSIM_PM_FS_H
#define SPOOLSIM_PM_FS_H

#include <stdint.h>
#include <stdio.h>

#include "pm_engine.h"
#include "progress_out.h"

enum pm_sync { PM_SYNC_NONE, PM_SYNC_FSYNC, PM_SYNC_FDATASYNC, PM_SYNC_OSYNC };

struct pm_fs {
    int buffered;
    uint32_t read_block, write_block;
    enum pm_sync sync;
    int dirsync;       /* fsync the directory after create and unlink */
    int show_progress; /* print PostMark's progress text */
    FILE *progress_fp;
    const struct progress_out *status; /* the status line; NULL: none */
    const char *status_phase;
    uint64_t status_start_ns, status_phase_ns, status_next_ns;
    char *read_buf;
    char *stage;   /* buffered mode's 4 KiB write buffer */
    int append_fd; /* the file between append_open and append_write */
    char *append_path;
};

extern const struct pm_ops pm_fs_ops;

void pm_fs_init(struct pm_fs *fs, const struct pm_config *cfg, enum pm_sync sync, int dirsync);
void pm_fs_free(struct pm_fs *fs);

const char *pm_fs_sync_name(enum pm_sync sync);
int pm_fs_sync_parse(const char *name, enum pm_sync *sync);

#endif
