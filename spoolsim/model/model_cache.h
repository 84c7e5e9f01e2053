/*
 * model_cache - where the cost model calibrated on this machine is kept,
 * and whether what is found there can be trusted.
 *
 * A model is a machine's: one made elsewhere can be off by a factor of 3
 * (docs/fidelity.md). `spoolsim calibrate postfix' writes its model to
 * this machine's file in the cache, and `--model postfix' takes that file
 * before the built-in model whenever its machine is this one. The file is
 * named after the MTA and the machine (CPU model, CPU count, kernel), so
 * that a new kernel or another machine sharing the directory finds no
 * model that is not its own.
 *
 * Two caches are read, in this order: the user's own, $SPOOLSIM_CACHE_DIR,
 * else $XDG_CACHE_HOME/spoolsim, else $HOME/.cache/spoolsim; then the
 * machine's, $SPOOLSIM_SYSTEM_CACHE, else /var/cache/spoolsim, owned by
 * root. A calibration (which needs root) goes to the machine's cache
 * unless $SPOOLSIM_CACHE_DIR names another, so that every user's runs find
 * it.
 *
 * A file in a cache is opened without following a symbolic link and
 * without waiting (a FIFO), and must be a regular file of at most
 * MODEL_CACHE_FILE_MAX bytes. Root, and whoever reads the machine's cache,
 * trusts it only where nobody but root could have put it there, as ssh
 * trusts its keys: the file, its directory and every directory above owned
 * by root and writable by nobody else (a sticky directory such as /tmp
 * above it is allowed: nobody else can replace what root made in it). What
 * root runs from the cache (calibrate's MTA, unpacked in its peers/)
 * passes the same check first.
 */
#ifndef SPOOLSIM_MODEL_CACHE_H
#define SPOOLSIM_MODEL_CACHE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cost_model.h"

#define MODEL_CACHE_FILE_MAX (1024 * 1024) /* a model is a few KiB of JSON */
#define MODEL_CACHE_SYSTEM_DIR "/var/cache/spoolsim"

/* The file name part of a machine: "amd-epyc-2cpus-linux-6.1.0-18-amd64" (pure). */
void model_cache_key(const struct cost_machine *mc, char *out, size_t len);

/* The user's own cache directory from the environment: 0, or -1 when none can be named. */
int model_cache_dir(char *out, size_t len);

/* The machine's cache directory: $SPOOLSIM_SYSTEM_CACHE if absolute, else MODEL_CACHE_SYSTEM_DIR.
 */
void model_cache_system_dir(char *out, size_t len);

/*
 * Where a calibration run by `euid' keeps its model: $SPOOLSIM_CACHE_DIR
 * if set, else the machine's cache for root, else the user's own. 0, or
 * -1 when none can be named. *system, where not NULL, says whether it is
 * the machine's cache.
 */
int model_cache_home(uid_t euid, char *out, size_t len, int *system);

/* DIR/MTA-model-KEY.json: 0, or -1 when it does not fit. */
int model_cache_file(const char *dir, const char *mta, const struct cost_machine *here, char *out,
                     size_t len);

/* This machine's file in model_cache_home() of this process: 0, or -1 when there is none. */
int model_cache_path(const char *mta, const struct cost_machine *here, char *out, size_t len);

/* What a node of a cache is to model_cache_trust(). */
enum model_cache_node {
    MODEL_CACHE_FILE,   /* a model */
    MODEL_CACHE_DIR,    /* the cache directory itself, or a directory root runs from */
    MODEL_CACHE_PARENT, /* a directory above it */
};

/*
 * Whether a node of a cache, as stat(2) describes it, may be taken (pure):
 * 0, or -1 and in why what is wrong with it ("owned by uid 65534, not by
 * root"). A file must be a regular file of at most MODEL_CACHE_FILE_MAX
 * bytes, a directory a directory. When `euid' is root's or the cache is
 * the machine's (`system'), the node must also be root's and writable by
 * nobody else; a parent with the sticky bit may be writable by others.
 */
int model_cache_trust(const struct stat *st, enum model_cache_node node, uid_t euid, int system,
                      char *why, size_t len);

/*
 * The directory `dir', and every one above it, as model_cache_trust()
 * judges them for root: 0, or -1 and why not, naming the directory. A
 * directory that does not exist is -1 with errno ENOENT.
 */
int model_cache_check_dir(const char *dir, char *why, size_t len);

/*
 * Open the model at `path' for reading, if it is there and may be taken
 * (model_cache_trust(), for this process's effective user; `system': the
 * machine's cache): its descriptor, or -1 with why empty when nothing is
 * there, else with why saying what is wrong ("it is a FIFO, not a
 * regular file").
 */
int model_cache_open(const char *path, int system, char *why, size_t len);

#endif
