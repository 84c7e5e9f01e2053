/*
 * pm_engine - PostMark 1.53's run algorithm, apart from any file system.
 *
 * pm_engine_run() performs one `run': the text buffer, the pool of files,
 * the transactions and the final deletion, drawing random numbers in
 * exactly PostMark's order (docs/postmark.md, sections 4-5), so
 * that the same configuration yields the same operations and counts. What
 * an operation does to a file system is left to a struct pm_ops backend:
 * the real one in pm_fs.c, or none at all in the unit tests, which check
 * PostMark's golden counts without touching a disk.
 */
#ifndef SPOOLSIM_PM_ENGINE_H
#define SPOOLSIM_PM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

struct pm_location {
    char *dir;       /* no fixed length limit, unlike PostMark's 80 bytes */
    unsigned weight; /* >= 1 */
};

struct pm_config {
    uint32_t size_low, size_high; /* bytes; files are [low, high-1] at creation */
    uint32_t number;              /* files in the initial pool (N) */
    uint32_t seed;
    uint32_t transactions; /* T */
    struct pm_location *locations;
    unsigned nlocations;     /* 0: relative names in the current directory */
    uint32_t subdirectories; /* K; 0 and 1 both mean none */
    uint32_t read_block, write_block;
    int buffered;               /* stdio (1) or plain system calls (0) */
    int bias_read, bias_create; /* -1 (half disabled) or 0..10 */
    int terse;                  /* report format */
};

/* Set PostMark's defaults: 500..10000 bytes, 500 files, seed 42, 500 transactions, ... */
void pm_engine_config_defaults(struct pm_config *cfg);
void pm_engine_config_free(struct pm_config *cfg);

/*
 * The file system side. Every call returns 0 on success or -1 (the
 * backend has then said what went wrong). `path' is the full relative or
 * absolute file name. `data' is PostMark's text buffer, always from its
 * start. append_open() happens before the append size is drawn and
 * append_write() after it, because PostMark draws no size when the open
 * fails. The progress() calls carry PostMark's progress text
 * ("Creating files...", ".", "Done\n", ...), to print or to ignore.
 */
struct pm_ops {
    int (*create)(void *ctx, const char *path, const char *data, uint32_t size);
    int (*append_open)(void *ctx, const char *path);
    int (*append_write)(void *ctx, const char *data, uint32_t size); /* and close */
    int (*read)(void *ctx, const char *path, uint32_t size);
    int (*remove)(void *ctx, const char *path);
    int (*mkdir)(void *ctx, const char *path);
    int (*rmdir)(void *ctx, const char *path);
    void (*progress)(void *ctx, const char *text);
    /*
     * Whether to stop now (an interrupt); NULL: never. A stop skips what
     * is left of the pool's creation and of the transactions, then
     * deletes every file as at the end of a run, so nothing is left.
     */
    int (*stop)(void *ctx);
    /*
     * Where the run is: done of total in phase ("files created",
     * "transactions"), at every step of the pool's creation and of the
     * transactions, for a status line; NULL: nobody asks.
     */
    void (*count)(void *ctx, const char *phase, uint32_t done, uint32_t total);
};

enum pm_op { PM_OP_CREATE, PM_OP_READ, PM_OP_APPEND, PM_OP_DELETE, PM_OP_COUNT };

struct pm_result {
    int complete;    /* 0: "out of files!" stopped the transactions */
    int interrupted; /* ops->stop() cut the run short: a partial result */
    uint32_t created, read, appended, deleted;
    uint32_t created_alone, deleted_alone; /* initial pool, final deletion */
    uint32_t errors;                       /* failed operations (PostMark ignores them) */
    uint32_t append_skipped;               /* appends to a full-size file: no-ops */
    uint32_t create_skipped;               /* creates into a full table: no-ops */
    uint64_t bytes_read, bytes_written;    /* exact */
    float bytes_read_f, bytes_written_f;   /* PostMark's float sums, for its report */
    /* Phase boundaries, monotonic nanoseconds and wall-clock seconds (time()). */
    uint64_t start_ns, trans_start_ns, trans_end_ns, end_ns;
    long start_s, trans_start_s, trans_end_s, end_s;
    struct histogram latency[PM_OP_COUNT]; /* per operation, backend call time */
};

/* One run. 0, or -1 if memory for the tables could not be had. */
int pm_engine_run(const struct pm_config *cfg, const struct pm_ops *ops, void *ctx,
                  struct pm_result *res);

#endif
