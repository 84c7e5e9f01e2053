/*
 * Unit tests for spoolsim/postmark/mt1999.c and spoolsim/postmark/pm_engine.c: the generator's
 * test vectors, and PostMark 1.53's golden counts reproduced through a null
 * backend that does no I/O. Every expected count below was printed by
 * PostMark itself (the spec's table, or a run of Debian's /usr/bin/postmark
 * whose command file is quoted next to the row); none is computed here.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt1999.h"
#include "pm_engine.h"
#include "xalloc.h"
#include "check_main.h"

/* ---- a growable string ---------------------------------------------------------------------- */

struct sbuf {
    char *s;
    size_t len, cap;
};

static void sbuf_add(struct sbuf *b, const char *text)
{
    size_t n = strlen(text);

    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, text, n + 1);
    b->len += n;
}

static const char *sbuf_str(const struct sbuf *b)
{
    return b->s ? b->s : "";
}

/* ---- the null backend ----------------------------------------------------------------------- */

struct nullfs {
    /* Failure injection: NULL = never, "*" = every path, else that path. */
    const char *fail_create, *fail_append_open, *fail_read, *fail_remove, *fail_dirs;
    int fail_append_write;
    int tracing;
    unsigned calls[8], failures;
    uint64_t bytes_created, bytes_appended, bytes_read;
    char append_path[512];
    char first_data[41];
    struct sbuf trace, progress;
};

enum { C_CREATE, C_AOPEN, C_AWRITE, C_READ, C_REMOVE, C_MKDIR, C_RMDIR };

static int nullfs_fails(struct nullfs *fs, const char *pattern, const char *path)
{
    if (!pattern || (strcmp(pattern, "*") != 0 && strcmp(pattern, path) != 0))
        return 0;
    fs->failures++;
    return 1;
}

static void nullfs_trace(struct nullfs *fs, const char *op, const char *path, long size)
{
    char line[600];

    if (!fs->tracing)
        return;
    if (size >= 0)
        snprintf(line, sizeof(line), "%s %s %ld\n", op, path, size);
    else
        snprintf(line, sizeof(line), "%s %s\n", op, path);
    sbuf_add(&fs->trace, line);
}

/*
 * One call of the backend: counted, traced, and failed (-1) where its pattern says; a call that
 * moves data (size >= 0) adds it to *bytes when it succeeds.
 */
static int nullfs_call(struct nullfs *fs, int call, const char *op, const char *path, long size,
                       const char *fail, uint64_t *bytes)
{
    fs->calls[call]++;
    nullfs_trace(fs, op, path, size);
    if (nullfs_fails(fs, fail, path))
        return -1;
    if (bytes)
        *bytes += (uint64_t)size;
    return 0;
}

static int nullfs_create(void *ctx, const char *path, const char *data, uint32_t size)
{
    struct nullfs *fs = ctx;

    if (!fs->first_data[0])
        memcpy(fs->first_data, data, size < 40 ? size : 40);
    return nullfs_call(fs, C_CREATE, "create", path, size, fs->fail_create, &fs->bytes_created);
}

static int nullfs_append_open(void *ctx, const char *path)
{
    struct nullfs *fs = ctx;

    fs->calls[C_AOPEN]++;
    snprintf(fs->append_path, sizeof(fs->append_path), "%s", path);
    return nullfs_fails(fs, fs->fail_append_open, path) ? -1 : 0;
}

static int nullfs_append_write(void *ctx, const char *data, uint32_t size)
{
    struct nullfs *fs = ctx;

    (void)data;
    fs->calls[C_AWRITE]++;
    nullfs_trace(fs, "append", fs->append_path, size);
    if (fs->fail_append_write) {
        fs->failures++;
        return -1;
    }
    fs->bytes_appended += size;
    return 0;
}

static int nullfs_read(void *ctx, const char *path, uint32_t size)
{
    struct nullfs *fs = ctx;

    return nullfs_call(fs, C_READ, "read", path, size, fs->fail_read, &fs->bytes_read);
}

static int nullfs_remove(void *ctx, const char *path)
{
    struct nullfs *fs = ctx;

    return nullfs_call(fs, C_REMOVE, "remove", path, -1, fs->fail_remove, NULL);
}

static int nullfs_mkdir(void *ctx, const char *path)
{
    struct nullfs *fs = ctx;

    return nullfs_call(fs, C_MKDIR, "mkdir", path, -1, fs->fail_dirs, NULL);
}

static int nullfs_rmdir(void *ctx, const char *path)
{
    struct nullfs *fs = ctx;

    return nullfs_call(fs, C_RMDIR, "rmdir", path, -1, fs->fail_dirs, NULL);
}

static void nullfs_progress(void *ctx, const char *text)
{
    sbuf_add(&((struct nullfs *)ctx)->progress, text);
}

static const struct pm_ops nullfs_ops = {
    .create = nullfs_create,
    .append_open = nullfs_append_open,
    .append_write = nullfs_append_write,
    .read = nullfs_read,
    .remove = nullfs_remove,
    .mkdir = nullfs_mkdir,
    .rmdir = nullfs_rmdir,
    .progress = nullfs_progress,
};

static void nullfs_free(struct nullfs *fs)
{
    free(fs->trace.s);
    free(fs->progress.s);
}

/* ---- configurations and PostMark's report arithmetic --------------------------------------- */

/* What a run's configuration sets, in the order of PostMark's "set" commands. */
struct pm_shape {
    uint32_t number, transactions, low, high, seed, subdirs;
    unsigned nloc; /* 1: "a"; 2: "a" weight 3, "b" weight 1 (the weights of the reference runs) */
    int bias_read, bias_create;
};

static void make_config(struct pm_config *cfg, const struct pm_shape *shape)
{
    static const char *const dirs[] = {"a", "b"};
    static const unsigned weights[] = {3, 1};
    unsigned nloc = shape->nloc;

    pm_engine_config_defaults(cfg);
    cfg->number = shape->number;
    cfg->transactions = shape->transactions;
    cfg->size_low = shape->low;
    cfg->size_high = shape->high;
    cfg->seed = shape->seed;
    cfg->subdirectories = shape->subdirs;
    cfg->bias_read = shape->bias_read;
    cfg->bias_create = shape->bias_create;
    if (nloc) {
        cfg->locations = xcalloc(nloc, sizeof(*cfg->locations));
        cfg->nlocations = nloc;
        for (unsigned i = 0; i < nloc; i++) {
            cfg->locations[i].dir = xstrdup(dirs[i]);
            cfg->locations[i].weight = nloc == 1 ? 1 : weights[i];
        }
    }
}

/* PostMark's Data-line figure for a float byte total. */
static void scalef(char *buf, size_t size, float v)
{
    if (v / 1048576.0 > 1)
        snprintf(buf, size, "%.2f megabytes", v / 1048576.0);
    else if (v != 0)
        snprintf(buf, size, "%.2f kilobytes", v / 1024.0);
    else
        snprintf(buf, size, "%f bytes", v);
}

static struct pm_result *run(const struct pm_config *cfg, struct nullfs *fs)
{
    struct pm_result *res = xmalloc(sizeof(*res));

    ck_assert_int_eq(pm_engine_run(cfg, &nullfs_ops, fs, res), 0);
    return res;
}

/* Invariants every run must satisfy, whatever its counts. */
static void check_consistency(const struct pm_result *res, const struct nullfs *fs)
{
    ck_assert_uint_eq(res->created, fs->calls[C_CREATE]);
    ck_assert_uint_eq(res->appended, fs->calls[C_AWRITE]);
    ck_assert_uint_le(res->read, fs->calls[C_READ]);
    ck_assert_uint_le(res->deleted, fs->calls[C_REMOVE]);
    ck_assert_uint_eq(res->errors, fs->failures);
    ck_assert_uint_eq(res->bytes_read, fs->bytes_read);
    ck_assert_uint_eq(res->bytes_written, fs->bytes_created + fs->bytes_appended);
    ck_assert_uint_eq(res->latency[PM_OP_CREATE].count, fs->calls[C_CREATE]);
    ck_assert_uint_eq(res->latency[PM_OP_READ].count, fs->calls[C_READ]);
    ck_assert_uint_eq(res->latency[PM_OP_APPEND].count, fs->calls[C_AOPEN]);
    ck_assert_uint_eq(res->latency[PM_OP_DELETE].count, fs->calls[C_REMOVE]);
    ck_assert_uint_le(res->start_ns, res->trans_start_ns);
    ck_assert_uint_le(res->trans_start_ns, res->trans_end_ns);
    ck_assert_uint_le(res->trans_end_ns, res->end_ns);
    ck_assert_int_le(res->start_s, res->trans_start_s);
    ck_assert_int_le(res->trans_start_s, res->trans_end_s);
    ck_assert_int_le(res->trans_end_s, res->end_s);
}

/* A run of shape on fs, its invariants checked; run_free() frees the result and fs. */
static struct pm_result *run_shape(const struct pm_shape *shape, struct nullfs *fs)
{
    struct pm_config cfg;
    struct pm_result *res;

    make_config(&cfg, shape);
    res = run(&cfg, fs);
    check_consistency(res, fs);
    pm_engine_config_free(&cfg);
    return res;
}

static void run_free(struct pm_result *res, struct nullfs *fs)
{
    free(res);
    nullfs_free(fs);
}

/* ---- MT1999 --------------------------------------------------------------------------------- */

START_TEST(test_mt_seed42)
{
    static const uint32_t want[10] = {4179544424U, 615236124U, 4165290828U, 3119652344U,
                                      1623863471U, 605280572U, 1209526912U, 2753559756U,
                                      1398721121U, 776305894U};
    struct mt1999 g;
    uint32_t v = 0;

    mt1999_seed(&g, 42);
    for (int i = 0; i < 10; i++)
        ck_assert_uint_eq(mt1999_next(&g), want[i]);
    mt1999_seed(&g, 42);
    for (int i = 0; i < 100000; i++)
        v = mt1999_next(&g);
    ck_assert_uint_eq(v, 2142322210U);
}
END_TEST

START_TEST(test_mt_seed4357)
{
    static const uint32_t want[5] = {2867219139U, 1585203162U, 3113124129U, 2953900839U,
                                     2463794868U};
    struct mt1999 g;

    mt1999_seed(&g, 4357);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(mt1999_next(&g), want[i]);
}
END_TEST

START_TEST(test_mt_rnd)
{
    struct mt1999 a, b;

    mt1999_seed(&a, 42);
    mt1999_seed(&b, 42);
    ck_assert_uint_eq(mt1999_rnd(&a, 0), 0);
    ck_assert_uint_eq(mt1999_rnd(&a, -1), 0);
    ck_assert_uint_eq(mt1999_rnd(&a, INT64_MIN), 0);
    /* Neither call drew: both generators are still at draw #1. */
    ck_assert_uint_eq(mt1999_rnd(&a, 1000), 4179544424U % 1000);
    ck_assert_uint_eq(mt1999_next(&b), 4179544424U);
    ck_assert_uint_eq(mt1999_next(&a), mt1999_next(&b));
    ck_assert_uint_eq(mt1999_rnd(&a, 1), 0);
}
END_TEST

/* ---- golden counts -------------------------------------------------------------------------- */

#define P_STD                                                                                      \
    "Creating files...Done\nPerforming transactions..........Done\nDeleting files...Done\n"
#define P_SUB "Creating subdirectories...Done\n" P_STD "Deleting subdirectories...Done\n"

/* PostMark's stdout between the banner lines and the report, for the less regular rows. */
#define P_OOF                                                                                      \
    "Creating files...Done\nPerforming transactions.out of files!\n"                               \
    "For this workload, either increase the number of files or\n"                                  \
    "decrease the number of transactions.\nDeleting files...Done\n"
#define P_T15                                                                                      \
    "Creating files...Done\nPerforming transactions...............Done\nDeleting files...Done\n"
#define P_TRACE                                                                                    \
    "Creating subdirectories...Done\nCreating files...Done\n"                                      \
    "Performing transactions............Done\nDeleting files...Done\n"                             \
    "Deleting subdirectories...Done\n"

struct pm_counts {
    int complete;
    uint32_t created, created_alone, created_mixed, read, appended;
    uint32_t deleted, deleted_alone, deleted_mixed;
};

struct golden {
    const char *name;
    struct pm_shape cfg;
    struct pm_counts want;
    const char *data_read, *data_written; /* as the Data lines print them */
    const char *progress;
};

/*
 * Rows marked "spec" are the table of docs/postmark.md section 7. The others are
 * runs of /usr/bin/postmark (Debian 1.53-2+b1) made for this test, each in
 * a fresh mktemp -d directory with the command file shown (every file ends
 * with "run" and "quit"); DIR is that directory, holding empty a/ and b/.
 */
static const struct golden goldens[] = {
    /* clang-format off */
    /* spec rows: each also re-run here (same command lines) with identical output. */
    /* spec: small = set transactions 2000 */
    {"small", {500, 2000, 500, 10000, 42, 0, 0, 5, 5},
     {1, 1556, 500, 1056, 978, 1018, 1556, 612, 944},
     "5.96 megabytes", "9.60 megabytes", P_STD},
    /* spec: n1000-t50000 */
    {"n1000-t50000", {1000, 50000, 500, 10000, 42, 0, 0, 5, 5},
     {1, 26014, 1000, 25014, 24868, 24880, 26014, 1028, 24986},
     "161.15 megabytes", "168.38 megabytes", P_STD},
    /* spec: subdirs10 */
    {"subdirs10", {2000, 20000, 500, 10000, 42, 10, 0, 5, 5},
     {1, 11979, 2000, 9979, 9963, 9981, 11979, 1958, 10021},
     "63.46 megabytes", "76.65 megabytes", P_SUB},
    /* spec: n20000-t50000 */
    {"n20000-t50000", {20000, 50000, 500, 10000, 42, 0, 0, 5, 5},
     {1, 45093, 20000, 25093, 24789, 25184, 45093, 20186, 24907},
     "144.06 megabytes", "271.87 megabytes", P_STD},
    /* spec: n20000-t100000 */
    {"n20000-t100000", {20000, 100000, 500, 10000, 42, 0, 0, 5, 5},
     {1, 70128, 20000, 50128, 49656, 50199, 70128, 20256, 49872},
     "303.46 megabytes", "436.18 megabytes", P_STD},
    /* spec: n20000-t100000-s100 */
    {"n20000-t100000-s100", {20000, 100000, 500, 10000, 42, 100, 0, 5, 5},
     {1, 70368, 20000, 50368, 49917, 49944, 70368, 20736, 49632},
     "305.23 megabytes", "437.53 megabytes", P_SUB},
    /* run: set size 1000 1000 / set transactions 2000 */
    {"fixed-size", {500, 2000, 1000, 1000, 42, 0, 0, 5, 5},
     {1, 1498, 500, 998, 1026, 0, 1498, 496, 1002},
     "1001.95 kilobytes", "1.43 megabytes", P_STD},
    /* run: set bias read -1 / set transactions 2000 */
    {"bias-read-off", {500, 2000, 500, 10000, 42, 0, 0, -1, 5},
     {1, 1518, 500, 1018, 0, 0, 1518, 536, 982},
     "0.000000 bytes", "7.63 megabytes", P_STD},
    /* run: set bias create -1 / set transactions 2000 */
    {"bias-create-off", {500, 2000, 500, 10000, 42, 0, 0, 5, -1},
     {1, 500, 500, 0, 997, 993, 500, 500, 0},
     "6.61 megabytes", "3.95 megabytes", P_STD},
    /* run: set bias read -1 / set bias create -1 / set transactions 2000 */
    {"both-off", {500, 2000, 500, 10000, 42, 0, 0, -1, -1},
     {1, 500, 500, 0, 0, 0, 500, 500, 0},
     "0.000000 bytes", "2.55 megabytes", P_STD},
    /* run: set bias read 0 / set bias create 10 / set transactions 300 */
    {"read0-create10", {500, 300, 500, 10000, 42, 0, 0, 0, 10},
     {1, 800, 500, 300, 0, 300, 800, 800, 0},
     "0.000000 bytes", "4.65 megabytes", P_STD},
    /* run: set bias read 10 / set bias create 0 / set transactions 400 */
    {"read10-create0", {500, 400, 500, 10000, 42, 0, 0, 10, 0},
     {1, 500, 500, 0, 400, 0, 500, 100, 400},
     "2.03 megabytes", "2.55 megabytes", P_STD},
    /* run: set location DIR/a / set transactions 2000 (one location: no draw, as small) */
    {"one-location", {500, 2000, 500, 10000, 42, 0, 1, 5, 5},
     {1, 1556, 500, 1056, 978, 1018, 1556, 612, 944},
     "5.96 megabytes", "9.60 megabytes", P_STD},
    /* run: set location DIR/a 3 / set location +DIR/b 1 / set transactions 2000 */
    {"two-locations", {500, 2000, 500, 10000, 42, 0, 2, 5, 5},
     {1, 1516, 500, 1016, 942, 1056, 1516, 532, 984},
     "5.57 megabytes", "9.25 megabytes", P_STD},
    /* run: set subdirectories 3 / set transactions 2000 */
    {"subdirs3", {500, 2000, 500, 10000, 42, 3, 0, 5, 5},
     {1, 1516, 500, 1016, 942, 1056, 1516, 532, 984},
     "5.57 megabytes", "9.25 megabytes", P_SUB},
    /* run: set location DIR/a 3 / set location +DIR/b 1 / set subdirectories 3 /
     *      set transactions 2000 */
    {"two-locations-subdirs3", {500, 2000, 500, 10000, 42, 3, 2, 5, 5},
     {1, 1535, 500, 1035, 948, 1052, 1535, 570, 965},
     "5.71 megabytes", "9.56 megabytes", P_SUB},
    /* run: set number 10 / set transactions 2000 / set bias create 10 */
    {"table-full", {10, 2000, 500, 10000, 42, 0, 0, 5, 10},
     {1, 20, 10, 10, 1050, 170, 20, 20, 0},
     "9.83 megabytes", "195.31 kilobytes", P_STD},
    /* run: set number 5 / set bias create 0 / set transactions 1000 (no report printed) */
    {"out-of-files", {5, 1000, 500, 10000, 42, 0, 0, 5, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 0},
     NULL, NULL, P_OOF},
    /* run: set seed 12345 / set transactions 2000 */
    {"seed12345", {500, 2000, 500, 10000, 12345, 0, 0, 5, 5},
     {1, 1516, 500, 1016, 967, 1032, 1516, 532, 984},
     "5.88 megabytes", "9.44 megabytes", P_STD},
    /* run: set transactions 15 / set number 20 (15 dots: the divisor T/10 is 1) */
    {"t15", {20, 15, 500, 10000, 42, 0, 0, 5, 5},
     {1, 29, 20, 9, 12, 3, 29, 23, 6},
     "67.97 kilobytes", "179.67 kilobytes", P_T15},
    /* run: set location a 3 / set location +b 1 / set subdirectories 3 / set number 5 /
     *      set transactions 12 / set size 100 120 (relative dirs; traced in test_trace) */
    {"trace", {5, 12, 100, 120, 42, 3, 2, 5, 5},
     {1, 12, 5, 7, 8, 4, 12, 7, 5},
     "0.87 kilobytes", "1.30 kilobytes", P_TRACE},
    /* clang-format on */
};

/* The operation counts of PostMark's report, named by the row's name. */
static void check_counts(const char *name, const struct pm_counts *want,
                         const struct pm_result *res)
{
    ck_assert_msg(res->complete == want->complete, "%s: complete %d", name, res->complete);
    ck_assert_msg(res->created == want->created && res->created_alone == want->created_alone &&
                      res->created - res->created_alone == want->created_mixed,
                  "%s: created %u (%u/%u)", name, res->created, res->created_alone,
                  res->created - res->created_alone);
    ck_assert_msg(res->read == want->read && res->appended == want->appended,
                  "%s: read %u appended %u", name, res->read, res->appended);
    ck_assert_msg(res->deleted == want->deleted && res->deleted_alone == want->deleted_alone &&
                      res->deleted - res->deleted_alone == want->deleted_mixed,
                  "%s: deleted %u (%u/%u)", name, res->deleted, res->deleted_alone,
                  res->deleted - res->deleted_alone);
}

START_TEST(test_golden)
{
    const struct golden *g = &goldens[_i];
    struct nullfs fs = {0};
    struct pm_result *res = run_shape(&g->cfg, &fs);
    char buf[64];

    ck_assert_msg(res->complete == g->want.complete, "%s: complete %d", g->name, res->complete);
    ck_assert_str_eq(sbuf_str(&fs.progress), g->progress);
    ck_assert_uint_eq(res->errors, 0);
    if (g->want.complete) {
        check_counts(g->name, &g->want, res);
        scalef(buf, sizeof(buf), res->bytes_read_f);
        ck_assert_msg(strcmp(buf, g->data_read) == 0, "%s: read %s", g->name, buf);
        scalef(buf, sizeof(buf), res->bytes_written_f);
        ck_assert_msg(strcmp(buf, g->data_written) == 0, "%s: written %s", g->name, buf);
    }
    /* Every run ends with every file deleted. */
    ck_assert_uint_eq(res->created, res->deleted);
    run_free(res, &fs);
}
END_TEST

/* ---- the exact operation stream ------------------------------------------------------------- */

/*
 * strace -e trace=openat,unlink,mkdir,rmdir,write,read of the "trace" run
 * above: every path, and the byte counts of each write(2) and read(2).
 */
static const char trace_want[] = "mkdir a/s0\nmkdir a/s1\nmkdir a/s2\n"
                                 "mkdir b/s0\nmkdir b/s1\nmkdir b/s2\n"
                                 "create a/s1/1 105\ncreate a/s1/2 110\ncreate a/s1/3 104\n"
                                 "create a/s2/4 104\ncreate a/s1/5 112\n"
                                 "append a/s1/1 11\ncreate b/s0/6 117\n"
                                 "read a/s2/4 104\ncreate a/s1/7 100\n"
                                 "append a/s1/1 1\ncreate a/s2/8 115\n"
                                 "read a/s2/8 115\ncreate a/s1/9 116\n"
                                 "read a/s2/4 104\nremove a/s1/2\n"
                                 "append a/s1/5 7\ncreate a/s0/10 110\n"
                                 "read a/s2/4 104\nremove a/s2/4\n"
                                 "append a/s1/5 1\nremove a/s1/9\n"
                                 "read b/s0/6 117\ncreate a/s2/11 104\n"
                                 "read a/s2/8 115\nremove a/s2/11\n"
                                 "read b/s0/6 117\nremove a/s1/5\n"
                                 "read a/s2/8 115\ncreate a/s2/12 118\n"
                                 "remove a/s1/1\nremove a/s2/12\nremove a/s1/3\nremove b/s0/6\n"
                                 "remove a/s1/7\nremove a/s2/8\nremove a/s0/10\n"
                                 "rmdir a/s0\nrmdir a/s1\nrmdir a/s2\n"
                                 "rmdir b/s0\nrmdir b/s1\nrmdir b/s2\n";

START_TEST(test_trace)
{
    struct nullfs fs = {.tracing = 1};
    struct pm_result *res = run_shape(&(struct pm_shape){5, 12, 100, 120, 42, 3, 2, 5, 5}, &fs);

    ck_assert_str_eq(sbuf_str(&fs.trace), trace_want);
    /* strace -s 40 of the same run: the first bytes of the text buffer. */
    ck_assert_str_eq(fs.first_data, "LeZebJ6S5~qPv$C$py}hmKd H58nM4~.}pv}Q7wS");
    ck_assert_uint_eq(res->bytes_read, 891);
    ck_assert_uint_eq(res->bytes_written, 1335);
    run_free(res, &fs);
}
END_TEST

/* Spec 6.5: PostMark's float sum drifts from the exact total; we keep both. */
START_TEST(test_float_drift)
{
    struct nullfs fs = {0};
    struct pm_result *res =
        run_shape(&(struct pm_shape){20000, 100000, 500, 10000, 42, 0, 0, 5, 5}, &fs);

    ck_assert_uint_eq(res->bytes_written, 457377596U);
    ck_assert(res->bytes_written_f == 457372864.0f);
    run_free(res, &fs);
}
END_TEST

/* ---- edge paths ----------------------------------------------------------------------------- */

/* PostMark dies of SIGFPE for T < 10; we print a dot per transaction instead. */
START_TEST(test_few_transactions)
{
    for (uint32_t t = 1; t < 10; t++) {
        struct nullfs fs = {0};
        struct pm_result *res =
            run_shape(&(struct pm_shape){500, t, 500, 10000, 42, 0, 0, 5, 5}, &fs);
        char want[128];

        ck_assert_int_eq(res->complete, 1);
        ck_assert_uint_eq(res->created_alone, 500);
        ck_assert_uint_le(res->created, 500 + t);
        ck_assert_uint_eq(res->deleted, res->created);
        ck_assert_uint_le(res->read + res->appended, t);
        snprintf(want, sizeof(want),
                 "Creating files...Done\nPerforming transactions%.*sDone\n"
                 "Deleting files...Done\n",
                 (int)t, ".........");
        ck_assert_str_eq(sbuf_str(&fs.progress), want);
        run_free(res, &fs);
    }
}
END_TEST

START_TEST(test_skips)
{
    struct nullfs fs = {0};
    struct pm_result *res;

    /* Fixed-size files are never appended to: every append is a silent no-op. */
    res = run_shape(&(struct pm_shape){500, 2000, 1000, 1000, 42, 0, 0, 5, 5}, &fs);
    ck_assert_uint_eq(res->appended, 0);
    ck_assert_uint_eq(fs.calls[C_AOPEN], 0);
    ck_assert_uint_eq(res->read + res->append_skipped, 2000);
    ck_assert_uint_eq(res->create_skipped, 0);
    run_free(res, &fs);

    /* table-full: 20 slots, so all but 10 creates of the transactions find no slot. */
    memset(&fs, 0, sizeof(fs));
    res = run_shape(&(struct pm_shape){10, 2000, 500, 10000, 42, 0, 0, 5, 10}, &fs);
    ck_assert_uint_eq(res->created, 20);
    ck_assert_uint_eq(res->create_skipped, 2000 - 10);
    run_free(res, &fs);
}
END_TEST

START_TEST(test_empty_pool)
{
    struct nullfs fs = {0};
    struct pm_result *res = run_shape(&(struct pm_shape){0, 100, 500, 10000, 42, 0, 0, 5, 5}, &fs);

    ck_assert_int_eq(res->complete, 0);
    ck_assert_uint_eq(res->created, 0);
    run_free(res, &fs);
}
END_TEST

START_TEST(test_defaults_and_long_names)
{
    struct pm_config cfg;
    struct nullfs fs = {.tracing = 1};
    struct pm_result *res;
    char longdir[301], want[400];

    pm_engine_config_defaults(&cfg);
    ck_assert_uint_eq(cfg.size_low, 500);
    ck_assert_uint_eq(cfg.size_high, 10000);
    ck_assert_uint_eq(cfg.number, 500);
    ck_assert_uint_eq(cfg.seed, 42);
    ck_assert_uint_eq(cfg.transactions, 500);
    ck_assert_ptr_null(cfg.locations);
    ck_assert_uint_eq(cfg.nlocations, 0);
    ck_assert_uint_eq(cfg.subdirectories, 0);
    ck_assert_uint_eq(cfg.read_block, 512);
    ck_assert_uint_eq(cfg.write_block, 512);
    ck_assert_int_eq(cfg.buffered, 1);
    ck_assert_int_eq(cfg.bias_read, 5);
    ck_assert_int_eq(cfg.bias_create, 5);
    ck_assert_int_eq(cfg.terse, 0);

    /* PostMark's 80-byte name field would overflow; ours must not truncate. */
    memset(longdir, 'd', 300);
    longdir[300] = '\0';
    cfg.number = 1;
    cfg.transactions = 1;
    cfg.bias_read = -1;
    cfg.bias_create = -1;
    cfg.locations = xcalloc(1, sizeof(*cfg.locations));
    cfg.locations[0].dir = xstrdup(longdir);
    cfg.locations[0].weight = 1;
    cfg.nlocations = 1;
    cfg.subdirectories = 2;
    res = run(&cfg, &fs);
    snprintf(want, sizeof(want), "remove %s/s", longdir);
    ck_assert_ptr_nonnull(strstr(sbuf_str(&fs.trace), want));
    snprintf(want, sizeof(want), "rmdir %s/s1\n", longdir);
    ck_assert_ptr_nonnull(strstr(sbuf_str(&fs.trace), want));
    free(res);
    pm_engine_config_free(&cfg);
    ck_assert_ptr_null(cfg.locations);
    ck_assert_uint_eq(cfg.nlocations, 0);
    nullfs_free(&fs);
}
END_TEST

/* ---- failing backends ----------------------------------------------------------------------- */

/* The spec's small run (goldens[0]) on a backend that fails as fs says. */
static struct pm_result *run_small(struct nullfs *fs)
{
    return run_shape(&goldens[0].cfg, fs);
}

START_TEST(test_fail_remove_one)
{
    struct nullfs fs = {.fail_remove = "17"};
    struct pm_result *res = run_small(&fs);

    /* File 17 survives every attempt, the final one included. */
    ck_assert_uint_ge(res->errors, 1);
    ck_assert_uint_eq(res->deleted, res->created - 1);
    ck_assert_int_eq(res->complete, 1);
    run_free(res, &fs);
}
END_TEST

/* Failures that move no draw: small's counts stand, the errors besides. */
static const struct {
    const char *name;
    struct nullfs fs;
    uint32_t errors;
} standing[] = {
    /* The slot is kept for the next create. */
    {"create 3 failing", {.fail_create = "3"}, 1},
    /* A failed write still grows the file, as PostMark ignores write errors. */
    {"appends failing", {.fail_append_write = 1}, 1018},
};

START_TEST(test_fail_standing)
{
    struct nullfs fs = standing[_i].fs;
    struct pm_result *res = run_small(&fs);

    ck_assert_msg(res->errors == standing[_i].errors, "%s: errors %u", standing[_i].name,
                  res->errors);
    check_counts(standing[_i].name, &goldens[0].want, res);
    run_free(res, &fs);
}
END_TEST

START_TEST(test_fail_append_open)
{
    struct nullfs fs = {.fail_append_open = "*"};
    struct pm_result *res = run_small(&fs);

    ck_assert_uint_eq(res->appended, 0);
    ck_assert_uint_eq(fs.calls[C_AWRITE], 0);
    ck_assert_uint_gt(res->errors, 0);
    ck_assert_uint_eq(res->errors, fs.calls[C_AOPEN]);
    run_free(res, &fs);
}
END_TEST

START_TEST(test_fail_everything)
{
    struct nullfs fs = {.fail_create = "*",
                        .fail_append_open = "*",
                        .fail_read = "*",
                        .fail_remove = "*",
                        .fail_dirs = "*"};
    struct pm_result *res =
        run_shape(&(struct pm_shape){50, 2000, 500, 10000, 42, 3, 2, 5, 5}, &fs);

    ck_assert_int_eq(res->complete, 1);
    ck_assert_uint_eq(res->deleted, 0);
    ck_assert_uint_eq(res->read, 0);
    ck_assert_uint_eq(res->appended, 0);
    ck_assert_uint_eq(res->created, 100);
    ck_assert_uint_gt(res->create_skipped, 0);
    ck_assert_uint_eq(fs.calls[C_MKDIR], 6);
    ck_assert_uint_eq(fs.calls[C_RMDIR], 6);
    ck_assert_uint_eq(res->bytes_written + res->bytes_read, 0);
    run_free(res, &fs);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_mt_seed42,
                                  test_mt_seed4357,
                                  test_mt_rnd,
                                  test_trace,
                                  test_float_drift,
                                  test_few_transactions,
                                  test_skips,
                                  test_empty_pool,
                                  test_defaults_and_long_names,
                                  test_fail_remove_one,
                                  test_fail_append_open,
                                  test_fail_everything,
                                  NULL};

    const struct check_loop loops[] = {CHECK_LOOP(test_golden, goldens),
                                       CHECK_LOOP(test_fail_standing, standing)};

    return check_run_cases("pm_engine", 30, tests, loops, CHECK_ROWS(loops));
}
