/*
 * fuzz_daemon.c — libFuzzer target over whole runs of each daemon.
 *
 * The first byte picks the daemon (kv, mds, osd, and alloc: a raw
 * MALLOC/FREE/RELEASE trace straight into the allocator model) and one of
 * its built-in presets (the .conf files of models/presets whose daemon is that one), the second an
 * allocator model of the registry (or the preset's own); the rest is
 * decoded as 12-byte records of that daemon's ops: a step of time (0, 1,
 * small, up to seconds, or an edge: 2^31, 2^32, 2^63, 2^64 - 1), the op, a
 * key and a size (small, or an edge: 0, 1, 2^31, 2^32 - 2, 2^32, 2^63,
 * 2^64 - 1), a thread and an aux.  The records go through the trace writer
 * (which refuses what the format refuses: such a record is dropped, the
 * readers' side is fuzz_trace's) into a binary trace, replayed through the
 * real run wiring (rs_run_execute_opts, sim/run.c: config, daemon, cache,
 * layout, allocator, trim, sampler, engine, metrics).  A run may fail as
 * bad input (RS_EINPUT: a time past the run's reach, an mds op on an inode
 * the namespace does not hold, a model out of simulated memory); any other
 * failure, a crash, UB, or a finished run whose samples break the
 * invariants is a finding: on every sample requested <= allocated,
 * requested <= active <= resident <= mapped (rs_alloc_stats_ordered's
 * order), rss = resident + base, no counter above 2^62 (a wrapped
 * subtraction), times increasing, counters of trims not going back.
 * Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/alloc/alloc.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "sim/schema.h"
#include "traces/trace.h"

#ifndef RSSIM_PRESETS_DIR
#error "RSSIM_PRESETS_DIR: the models/presets folder"
#endif

enum { REC_BYTES = 12, MAX_PRESETS = 64 };

static const char *const daemons[4] = { "kv", "mds", "osd", "alloc" };
static char *presets[4][MAX_PRESETS];
static rs_config *parsed[4][MAX_PRESETS]; /* each preset parsed once; an input runs a clone */
static int npresets[4];

static void load_presets(void)
{
    DIR *d = opendir(RSSIM_PRESETS_DIR);
    struct dirent *e;
    if (!d)
        __builtin_trap();
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        char path[4096];
        rs_config *cfg;
        rs_err err = { 0 };
        if (n < 6 || strcmp(e->d_name + n - 5, ".conf") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", RSSIM_PRESETS_DIR, e->d_name);
        if (rs_config_new(&cfg, &err) || rs_config_load_file(cfg, path, &err))
            __builtin_trap(); /* a built-in preset that does not load */
        const char *dm = rs_config_raw(cfg, "daemon");
        for (int k = 0; k < 4; k++)
            if (dm && !strcmp(dm, daemons[k]) && npresets[k] < MAX_PRESETS)
                presets[k][npresets[k]++] = strdup(path);
        rs_config_free(cfg);
    }
    closedir(d);
    for (int k = 0; k < 4; k++) {
        if (!npresets[k])
            __builtin_trap();
        /* readdir's order is the file system's: sort, so an input means one run */
        qsort(presets[k], (size_t)npresets[k], sizeof presets[k][0],
              (int (*)(const void *, const void *))strcmp);
        for (int i = 0; i < npresets[k]; i++) {
            rs_err err = { 0 };
            if (rs_config_new(&parsed[k][i], &err) ||
                rs_config_load_file(parsed[k][i], presets[k][i], &err))
                __builtin_trap();
        }
    }
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t edge(uint64_t raw)
{
    static const uint64_t e[] = { 0, 1, (uint64_t)1 << 31, ((uint64_t)1 << 32) - 2,
                                  (uint64_t)1 << 32, (uint64_t)1 << 63, UINT64_MAX };
    return e[raw % 7];
}

static void check_samples(const rs_result *res)
{
    const uint64_t wrapped = (uint64_t)1 << 62;
    for (size_t i = 0; i < res->nsamples; i++) {
        const rs_sample *s = &res->samples[i];
        if (s->requested_bytes > s->allocated_bytes || s->requested_bytes > s->active_bytes ||
            s->active_bytes > s->resident_bytes || s->resident_bytes > s->mapped_bytes)
            __builtin_trap(); /* the allocator stats out of order */
        if (s->rss_bytes != s->resident_bytes + s->base_bytes)
            __builtin_trap();
#define RS_X_WRAP(name)                                                                         \
    if (s->name > wrapped && strcmp(#name, "t_ns") != 0 && strcmp(#name, "limit_bytes") != 0)  \
        __builtin_trap(); /* a counter near 2^64: a wrapped subtraction */
        RS_SAMPLE_INT_COLUMNS(RS_X_WRAP)
#undef RS_X_WRAP
        if (i && (s->t_ns <= s[-1].t_ns || s->trims_count < s[-1].trims_count ||
                  s->trimmed_items_count < s[-1].trimmed_items_count))
            __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int loaded;
    static const rs_op ops[4][9] = {
        { RS_OP_GET, RS_OP_SET, RS_OP_DEL, RS_OP_PIN, RS_OP_UNPIN, RS_OP_GET, RS_OP_SET, RS_OP_GET,
          RS_OP_SET },
        { RS_OP_MKDIR, RS_OP_CREATE, RS_OP_LOOKUP, RS_OP_GETATTR, RS_OP_OPEN, RS_OP_CLOSE,
          RS_OP_READDIR, RS_OP_UNLINK, RS_OP_RMDIR },
        { RS_OP_READ, RS_OP_WRITE, RS_OP_READ, RS_OP_WRITE, RS_OP_READ, RS_OP_WRITE, RS_OP_READ,
          RS_OP_WRITE, RS_OP_READ },
        /* alloc: 0 .. 6 a MALLOC of the key, or its FREE (with its size)
         * when it is live; 7 RELEASE; 8 a MALLOC or FREE as drawn (a live
         * handle, an unknown one, a wrong size: the daemon's errors) */
        { RS_OP_MALLOC, RS_OP_MALLOC, RS_OP_MALLOC, RS_OP_MALLOC, RS_OP_MALLOC, RS_OP_MALLOC,
          RS_OP_MALLOC, RS_OP_RELEASE, RS_OP_FREE },
    };
    enum { ALLOC_KEYS = 64 };
    uint64_t live_size[ALLOC_KEYS] = { 0 }; /* the alloc daemon's live handles, 0: not live */
    char path[64];
    rs_trace_writer *w;
    rs_config *cfg;
    rs_result res;
    rs_run_stats stats;
    rs_err err = { 0 };
    uint64_t t_ns = 0;

    if (!loaded) {
        load_presets();
        loaded = 1;
    }
    if (size < 2)
        return 0;
    int k = data[0] % 4;
    const rs_config *preset = parsed[k][(data[0] / 4) % npresets[k]];
    /* on tmpfs when there is one */
    snprintf(path, sizeof path, "%s/rssim-fuzz-daemon-%ld.bin",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    if (rs_trace_writer_open(&w, path, "binary", daemons[k], &err))
        __builtin_trap();
    for (size_t off = 2; off + REC_BYTES <= size; off += REC_BYTES) {
        const uint8_t *p = data + off;
        uint64_t dt = le(p + 1, 4);
        rs_rec r = { 0 };
        switch (p[0] & 7) {
        case 0: case 1: dt = 0; break;
        case 2: case 3: dt %= 1000000; break;           /* < 1 ms */
        case 4: case 5: dt %= 2000000000; break;        /* < 2 s */
        case 6: dt = 1 + dt % 100; break;
        default: dt = edge(dt); break;
        }
        if (t_ns > UINT64_MAX - dt)
            break;
        t_ns += dt;
        r.t_ns = t_ns;
        r.op = ops[k][(p[0] >> 3) % 9];
        r.key = k == 1 ? 1 + le(p + 5, 2) % 512 : le(p + 5, 2) % 4096;
        uint64_t sz = le(p + 7, 3);
        r.size_bytes = p[10] & 1 ? edge(sz) : k == 1 ? 1 + sz % 512 : 1 + sz % 262144;
        if (k == 3) {
            unsigned sel = (p[0] >> 3) % 9, h = (unsigned)(r.key % ALLOC_KEYS);
            r.key = h;
            if (sel == 8)
                r.op = p[10] & 2 ? RS_OP_FREE : RS_OP_MALLOC;
            else if (sel < 7 && live_size[h]) {
                r.op = RS_OP_FREE;
                r.size_bytes = live_size[h];
            }
            if (r.op == RS_OP_RELEASE)
                r.size_bytes = 0;
        }
        r.thread = (uint16_t)(p[10] >> 1 & 7);
        r.aux = k == 1 ? (uint32_t)(p[11] % 64) : k == 2 ? (uint32_t)(p[11] << 12) : 0;
        if (rs_trace_write(w, &r, &err) != 0) {
            /* the format refuses it (a size past its limit): the run's
             * readers refuse the same, fuzz_trace covers that */
            t_ns -= dt;
            continue;
        }
        if (k == 3 && r.op == RS_OP_MALLOC && !live_size[r.key])
            live_size[r.key] = r.size_bytes ? r.size_bytes : 1;
        else if (k == 3 && r.op == RS_OP_FREE && live_size[r.key] == r.size_bytes)
            live_size[r.key] = 0;
    }
    if (rs_trace_writer_close(w, &err))
        __builtin_trap();
    if (rs_config_clone(preset, &cfg, &err))
        __builtin_trap();
    uint8_t a = data[1];
    if (a < rs_reg_alloc.count * 2 && a % 2 == 0) {
        const rs_alloc_ops *ao = rs_reg_alloc.entries[a / 2];
        if (rs_config_set(cfg, "alloc", ao->name, &err))
            __builtin_trap();
    }
    int rc = rs_schema_finish(cfg, NULL, NULL, &err);
    if (rc == 0) {
        /* the trace decoded on the run's thread, or (one input in 16) on
         * the readahead thread as a replay does: a thread and its buffers
         * per run made most inputs twice as slow, and the records are the
         * same either way (test_readahead) */
        rs_run_opts opts = { .decode_inline = data[1] < 0xf0 };
        rs_result_init(&res);
        rc = rs_run_execute_opts(path, cfg, &opts, &res, &stats, &err);
        if (rc == 0)
            check_samples(&res);
        rs_result_release(&res);
    }
    if (getenv("RSSIM_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_daemon: %s under %s: %s\n", daemons[k],
                presets[k][(data[0] / 4) % npresets[k]], rc ? err.msg : "done");
    /* an allocator the preset's daemon cannot use is the config's error
     * (RS_EINPUT) too; anything else is a finding */
    if (rc != 0 && rc != RS_EINPUT)
        __builtin_trap();
    if (rc == RS_EINPUT && !err.msg[0])
        __builtin_trap(); /* an input error that says nothing */
    rs_config_free(cfg);
    unlink(path);
    return 0;
}
