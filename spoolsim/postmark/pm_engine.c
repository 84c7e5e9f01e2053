/*
 * pm_engine - PostMark 1.53's run algorithm; see pm_engine.h.
 *
 * Implemented from the behavioural spec (docs/postmark.md, sections
 * 4-6), not from PostMark's source. The one rule that shapes everything
 * here: every random draw happens in PostMark's order and under PostMark's
 * conditions, because the whole operation stream is a function of the
 * draws. Speed-ups (the free-slot hint, cumulative location weights) are
 * only allowed where they provably pick the same slot or location.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "mt1999.h"
#include "pm_engine.h"

#define PM_OUT_OF_FILES                                                                            \
    "out of files!\n"                                                                              \
    "For this workload, either increase the number of files or\n"                                  \
    "decrease the number of transactions.\n"

/* Room for "/s<k>/" and a decimal ordinal besides the longest location. */
#define PM_NAME_SLACK 32

struct pm_slot {
    uint32_t size;
    uint32_t ordinal; /* creation number: the file's name */
    uint32_t loc;
    uint32_t subdir;
    int used;
};

struct pm_run {
    const struct pm_config *cfg;
    const struct pm_ops *ops;
    void *ctx;
    struct pm_result *res;
    struct mt1999 rng;
    char *text;
    struct pm_slot *slots;
    uint64_t nslots;
    uint64_t cursor;
    uint64_t free_hint; /* every slot below it is used */
    uint64_t live;      /* used slots, always created - deleted */
    uint64_t *cum_weight;
    uint64_t total_weight;
    char *name;
    size_t name_size;
};

void pm_engine_config_defaults(struct pm_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->size_low = 500;
    cfg->size_high = 10000;
    cfg->number = 500;
    cfg->seed = 42;
    cfg->transactions = 500;
    cfg->locations = NULL;
    cfg->nlocations = 0;
    cfg->subdirectories = 0;
    cfg->read_block = 512;
    cfg->write_block = 512;
    cfg->buffered = 1;
    cfg->bias_read = 5;
    cfg->bias_create = 5;
    cfg->terse = 0;
}

void pm_engine_config_free(struct pm_config *cfg)
{
    for (unsigned i = 0; i < cfg->nlocations; i++)
        free(cfg->locations[i].dir);
    free(cfg->locations);
    cfg->locations = NULL;
    cfg->nlocations = 0;
}

static void pm_progress(const struct pm_run *r, const char *text)
{
    if (r->ops->progress)
        r->ops->progress(r->ctx, text);
}

static void pm_count(const struct pm_run *r, const char *phase, uint32_t done, uint32_t total)
{
    if (r->ops->count)
        r->ops->count(r->ctx, phase, done, total);
}

static int pm_stopped(struct pm_run *r)
{
    if (!r->res->interrupted && r->ops->stop && r->ops->stop(r->ctx))
        r->res->interrupted = 1;
    return r->res->interrupted;
}

static void pm_record(struct pm_run *r, enum pm_op op, uint64_t t0)
{
    histogram_record(&r->res->latency[op], clock_now_ns() - t0);
}

/* PostMark's float accumulators round after every addition; so must we. */
static void pm_add_float(float *acc, uint32_t n)
{
    *acc = (float)(*acc + (float)n);
}

static void pm_stamp(uint64_t *ns, long *s)
{
    *ns = clock_now_ns();
    *s = (long)time(NULL);
}

/* "[LOC/][s<k>/]" into r->name; returns its length. */
static size_t pm_dir_prefix(const struct pm_run *r, uint32_t loc, int has_loc, uint32_t subdir,
                            int has_sub)
{
    int n = 0;

    r->name[0] = '\0';
    if (has_loc)
        n = snprintf(r->name, r->name_size, "%s/", r->cfg->locations[loc].dir);
    if (has_sub)
        n += snprintf(r->name + n, r->name_size - (size_t)n, "s%u/", (unsigned)subdir);
    return (size_t)n;
}

static const char *pm_slot_name(const struct pm_run *r, const struct pm_slot *s)
{
    size_t n =
        pm_dir_prefix(r, s->loc, r->cfg->nlocations > 0, s->subdir, r->cfg->subdirectories > 1);

    snprintf(r->name + n, r->name_size - n, "%u", (unsigned)s->ordinal);
    return r->name;
}

/* Location i owns the draws [cum_weight[i-1], cum_weight[i]): PostMark's weighted index. */
static uint32_t pm_location_of(const struct pm_run *r, uint64_t draw)
{
    uint32_t lo = 0, hi = r->cfg->nlocations - 1;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (r->cum_weight[mid] > draw)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/*
 * The cursor-then-scan rule. The scan starts at free_hint rather than 0,
 * which finds the same first free slot without rescanning a full prefix.
 */
static int pm_take_slot(struct pm_run *r, uint64_t *out)
{
    uint64_t k = r->cursor;

    if (k >= r->nslots || r->slots[k].used) {
        for (k = r->free_hint; k < r->nslots && r->slots[k].used; k++)
            ;
        r->free_hint = k;
        if (k == r->nslots)
            return -1;
    }
    r->cursor = k + 1;
    *out = k;
    return 0;
}

static void pm_create(struct pm_run *r)
{
    const struct pm_config *cfg = r->cfg;
    struct pm_result *res = r->res;
    struct pm_slot *s;
    uint64_t k, t0;

    if (pm_take_slot(r, &k) != 0) {
        res->create_skipped++;
        return;
    }
    s = &r->slots[k];
    s->loc = 0;
    if (cfg->nlocations >= 2)
        s->loc = pm_location_of(r, mt1999_rnd(&r->rng, (int64_t)r->total_weight));
    s->subdir = 0;
    if (cfg->subdirectories > 1)
        s->subdir = mt1999_rnd(&r->rng, cfg->subdirectories);
    s->ordinal = ++res->created;
    s->size = cfg->size_low + mt1999_rnd(&r->rng, (int64_t)cfg->size_high - (int64_t)cfg->size_low);
    /* A failed create keeps its slot and its count, as in PostMark. */
    s->used = 1;
    r->live++;

    t0 = clock_now_ns();
    if (r->ops->create(r->ctx, pm_slot_name(r, s), r->text, s->size) != 0) {
        res->errors++;
    } else {
        res->bytes_written += s->size;
        pm_add_float(&res->bytes_written_f, s->size);
    }
    pm_record(r, PM_OP_CREATE, t0);
}

/* Rejection sampling over all slots; the caller guarantees a used one. */
static struct pm_slot *pm_pick(struct pm_run *r)
{
    uint64_t k;

    do {
        k = mt1999_rnd(&r->rng, (int64_t)r->nslots);
    } while (!r->slots[k].used);
    return &r->slots[k];
}

static void pm_read(struct pm_run *r, struct pm_slot *s)
{
    struct pm_result *res = r->res;
    uint64_t t0 = clock_now_ns();

    if (r->ops->read(r->ctx, pm_slot_name(r, s), s->size) != 0) {
        res->errors++;
    } else {
        res->read++;
        res->bytes_read += s->size;
        pm_add_float(&res->bytes_read_f, s->size);
    }
    pm_record(r, PM_OP_READ, t0);
}

static void pm_append(struct pm_run *r, struct pm_slot *s)
{
    struct pm_result *res = r->res;
    uint32_t high = r->cfg->size_high;
    uint32_t n;
    uint64_t t0;

    if (s->size >= high) {
        res->append_skipped++;
        return;
    }
    t0 = clock_now_ns();
    if (r->ops->append_open(r->ctx, pm_slot_name(r, s)) != 0) {
        /* PostMark draws no size here, so the stream shifts as it does there. */
        res->errors++;
        pm_record(r, PM_OP_APPEND, t0);
        return;
    }
    n = mt1999_rnd(&r->rng, (int64_t)high - s->size) + 1;
    /* PostMark ignores write errors: the size grows and the append counts. */
    s->size += n;
    res->appended++;
    if (r->ops->append_write(r->ctx, r->text, n) != 0) {
        res->errors++;
    } else {
        res->bytes_written += n;
        pm_add_float(&res->bytes_written_f, n);
    }
    pm_record(r, PM_OP_APPEND, t0);
}

static void pm_delete(struct pm_run *r, struct pm_slot *s)
{
    struct pm_result *res = r->res;
    uint64_t t0 = clock_now_ns();
    uint64_t k = (uint64_t)(s - r->slots);

    if (r->ops->remove(r->ctx, pm_slot_name(r, s)) != 0) {
        res->errors++;
    } else {
        s->used = 0;
        s->size = 0;
        r->live--;
        res->deleted++;
        if (k < r->free_hint)
            r->free_hint = k;
    }
    pm_record(r, PM_OP_DELETE, t0);
}

static void pm_transactions(struct pm_run *r)
{
    const struct pm_config *cfg = r->cfg;
    /* PostMark divides by T/10 unguarded and dies of SIGFPE for T < 10. */
    uint32_t every = cfg->transactions / 10 ? cfg->transactions / 10 : 1;

    for (uint32_t i = 0; i < cfg->transactions && !pm_stopped(r); i++) {
        /* live == created - deleted: PostMark's test, immune to wrap-around. */
        if (r->live == 0) {
            pm_progress(r, PM_OUT_OF_FILES);
            r->res->complete = 0;
            return;
        }
        if (cfg->bias_read != -1) {
            /* The decision is drawn before the pick. */
            int64_t d = mt1999_rnd(&r->rng, 10);
            struct pm_slot *s = pm_pick(r);

            if (d < cfg->bias_read)
                pm_read(r, s);
            else
                pm_append(r, s);
        }
        if (cfg->bias_create != -1) {
            int64_t d = mt1999_rnd(&r->rng, 10);

            if (d < cfg->bias_create)
                pm_create(r);
            else
                pm_delete(r, pm_pick(r));
        }
        if (i % every == 0)
            pm_progress(r, ".");
        pm_count(r, "transactions", i + 1, cfg->transactions);
    }
}

/* mkdir or rmdir s0..s<K-1> in every location, location by location. */
static void pm_subdirs(struct pm_run *r, int create)
{
    const struct pm_config *cfg = r->cfg;
    unsigned nloc = cfg->nlocations ? cfg->nlocations : 1;

    pm_progress(r, create ? "Creating subdirectories..." : "Deleting subdirectories...");
    for (unsigned l = 0; l < nloc; l++) {
        for (uint32_t k = 0; k < cfg->subdirectories; k++) {
            size_t n = pm_dir_prefix(r, l, cfg->nlocations > 0, k, 1);
            int rc;

            r->name[n - 1] = '\0'; /* no trailing slash */
            rc = create ? r->ops->mkdir(r->ctx, r->name) : r->ops->rmdir(r->ctx, r->name);
            if (rc != 0)
                r->res->errors++;
        }
    }
    pm_progress(r, "Done\n");
}

static int pm_alloc(struct pm_run *r)
{
    const struct pm_config *cfg = r->cfg;
    uint64_t text_size = 2 * (uint64_t)cfg->size_high;
    size_t longest = 0;

    /* A create writes up to max(L, H - 1) bytes: only an L > 2H config needs more than 2H. */
    if (text_size < cfg->size_low)
        text_size = cfg->size_low;
    r->nslots = 2 * (uint64_t)cfg->number;
    if (text_size + 1 > SIZE_MAX || r->nslots > SIZE_MAX / sizeof(*r->slots))
        return -1;
    r->text = malloc((size_t)text_size + 1);
    r->slots = calloc(r->nslots ? (size_t)r->nslots : 1, sizeof(*r->slots));
    r->cum_weight = malloc((cfg->nlocations ? cfg->nlocations : 1) * sizeof(*r->cum_weight));
    for (unsigned i = 0; i < cfg->nlocations; i++) {
        size_t len = strlen(cfg->locations[i].dir);

        if (len > longest)
            longest = len;
        r->total_weight += cfg->locations[i].weight;
        if (r->cum_weight)
            r->cum_weight[i] = r->total_weight;
    }
    r->name_size = longest + PM_NAME_SLACK;
    r->name = malloc(r->name_size);
    if (!r->text || !r->slots || !r->cum_weight || !r->name)
        return -1;
    memset(r->text, ' ', (size_t)text_size + 1);
    return 0;
}

int pm_engine_run(const struct pm_config *cfg, const struct pm_ops *ops, void *ctx,
                  struct pm_result *res)
{
    struct pm_run r;
    uint32_t deleted_before;
    int rc = -1;

    memset(res, 0, sizeof(*res));
    for (int op = 0; op < PM_OP_COUNT; op++)
        histogram_init(&res->latency[op]);

    memset(&r, 0, sizeof(r));
    r.cfg = cfg;
    r.ops = ops;
    r.ctx = ctx;
    r.res = res;
    mt1999_seed(&r.rng, cfg->seed);
    if (pm_alloc(&r) != 0)
        goto out;
    res->complete = 1;
    for (uint64_t j = 0; j < 2 * (uint64_t)cfg->size_high; j++)
        r.text[j] = (char)(32 + mt1999_rnd(&r.rng, 95));

    if (cfg->subdirectories > 1)
        pm_subdirs(&r, 1);

    pm_stamp(&res->start_ns, &res->start_s);
    pm_progress(&r, "Creating files...");
    for (uint32_t i = 0; i < cfg->number && !pm_stopped(&r); i++) {
        pm_create(&r);
        pm_count(&r, "files created", i + 1, cfg->number);
    }
    res->created_alone = res->created;
    pm_progress(&r, "Done\n");

    pm_progress(&r, "Performing transactions");
    pm_stamp(&res->trans_start_ns, &res->trans_start_s);
    pm_transactions(&r);
    pm_stamp(&res->trans_end_ns, &res->trans_end_s);
    if (res->complete && !res->interrupted)
        pm_progress(&r, "Done\n");

    pm_progress(&r, "Deleting files...");
    deleted_before = res->deleted;
    for (uint64_t k = 0; k < r.nslots; k++)
        if (r.slots[k].used)
            pm_delete(&r, &r.slots[k]);
    res->deleted_alone = res->deleted - deleted_before;
    pm_progress(&r, "Done\n");
    pm_stamp(&res->end_ns, &res->end_s);

    if (cfg->subdirectories > 1)
        pm_subdirs(&r, 0);
    rc = 0;
out:
    free(r.text);
    free(r.slots);
    free(r.cum_weight);
    free(r.name);
    return rc;
}
