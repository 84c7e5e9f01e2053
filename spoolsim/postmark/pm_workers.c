/*
 * pm_workers - the PostMark workload with concurrent workers; see pm_workers.h.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pm_workers.h"
#include "xalloc.h"

struct worker {
    struct pm_config cfg;
    struct pm_fs fs;
    struct pm_result *res;
    int fs_ready;
    pthread_t thread;
};

uint32_t pm_workers_seed(uint32_t seed, unsigned worker)
{
    uint64_t z;

    if (worker == 0)
        return seed;
    /* splitmix64 of (seed, worker): distinct, well-mixed, reproducible streams */
    z = ((uint64_t)seed << 32 | worker) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    /* PostMark seeds are 1..2^31-1 */
    return (uint32_t)(z % 2147483646u) + 1;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;

    pm_engine_run(&w->cfg, &pm_fs_ops, &w->fs, w->res);
    return NULL;
}

/* The worker's own directory in every location (or in the current one). */
static int make_worker_config(const struct pm_config *cfg, unsigned i, struct pm_config *out)
{
    unsigned n = cfg->nlocations ? cfg->nlocations : 1;

    *out = *cfg;
    out->seed = pm_workers_seed(cfg->seed, i);
    out->locations = xcalloc(n, sizeof(*out->locations));
    out->nlocations = n;
    for (unsigned l = 0; l < n; l++) {
        const char *base = cfg->nlocations ? cfg->locations[l].dir : ".";
        size_t len = strlen(base) + 16;

        out->locations[l].dir = xmalloc(len);
        snprintf(out->locations[l].dir, len, "%s/w%u", base, i);
        out->locations[l].weight = cfg->nlocations ? cfg->locations[l].weight : 1;
        if (mkdir(out->locations[l].dir, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "Error: cannot create worker directory '%s': %s\n",
                    out->locations[l].dir, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void merge(struct pm_result *into, const struct pm_result *r, int first)
{
    if (first) {
        *into = *r;
        return;
    }
    into->complete = into->complete && r->complete;
    into->interrupted = into->interrupted || r->interrupted;
    into->created += r->created;
    into->read += r->read;
    into->appended += r->appended;
    into->deleted += r->deleted;
    into->created_alone += r->created_alone;
    into->deleted_alone += r->deleted_alone;
    into->errors += r->errors;
    into->append_skipped += r->append_skipped;
    into->create_skipped += r->create_skipped;
    into->bytes_read += r->bytes_read;
    into->bytes_written += r->bytes_written;
    into->bytes_read_f += r->bytes_read_f;
    into->bytes_written_f += r->bytes_written_f;
#define EARLIER(f) into->f = r->f < into->f ? r->f : into->f
#define LATER(f) into->f = r->f > into->f ? r->f : into->f
    EARLIER(start_ns);
    EARLIER(trans_start_ns);
    LATER(trans_end_ns);
    LATER(end_ns);
    EARLIER(start_s);
    EARLIER(trans_start_s);
    LATER(trans_end_s);
    LATER(end_s);
#undef EARLIER
#undef LATER
    for (int op = 0; op < PM_OP_COUNT; op++)
        histogram_merge(&into->latency[op], &r->latency[op]);
}

int pm_workers_run(const struct pm_config *cfg, unsigned workers, enum pm_sync sync, int dirsync,
                   FILE *progress_fp, const struct progress_out *status_line,
                   struct pm_result *merged)
{
    struct worker *w = xcalloc(workers, sizeof(*w));
    unsigned started = 0;
    int status = 0;

    /* Set every worker up before any starts, so a failure leaves nothing running. */
    for (unsigned i = 0; i < workers && status == 0; i++) {
        w[i].res = xmalloc(sizeof(*w[i].res));
        if (make_worker_config(cfg, i, &w[i].cfg) != 0) {
            status = -1;
            break;
        }
        pm_fs_init(&w[i].fs, &w[i].cfg, sync, dirsync);
        w[i].fs_ready = 1;
        /* One progress line: worker 0's. */
        w[i].fs.show_progress = i == 0 && progress_fp != NULL;
        w[i].fs.progress_fp = progress_fp;
        w[i].fs.status = i == 0 ? status_line : NULL; /* worker 0's count, as its text */
    }
    for (unsigned i = 0; i < workers && status == 0; i++) {
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "Error: cannot start worker %u\n", i);
            status = -1;
            break;
        }
        started++;
    }
    for (unsigned i = 0; i < started; i++) {
        pthread_join(w[i].thread, NULL);
        if (!w[i].res->complete)
            fprintf(stderr, "Error: worker %u ran out of files\n", i);
        merge(merged, w[i].res, i == 0);
    }
    for (unsigned i = 0; i < workers; i++)
        if (w[i].fs_ready)
            pm_fs_free(&w[i].fs);
    for (unsigned i = 0; i < workers; i++) {
        for (unsigned l = 0; w[i].cfg.locations && l < w[i].cfg.nlocations; l++)
            if (w[i].cfg.locations[l].dir)
                rmdir(w[i].cfg.locations[l].dir);
        pm_engine_config_free(&w[i].cfg);
        free(w[i].res);
    }
    free(w);
    if (started < workers) {
        if (started == 0)
            memset(merged, 0, sizeof(*merged));
        merged->complete = 0;
    }
    return status;
}
