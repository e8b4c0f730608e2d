/*
 * fuzz_observe.c — libFuzzer target over `rssim observe import`'s readers.
 *
 * The first byte picks the daemon (mds, osd) and the release (pacific,
 * quincy, reef); the rest is a capture set: parts separated by a 0x00 byte,
 * each part one file whose first byte says which capture it is (the low
 * three bits: dump_mempools, perf_dump, cache_status, session_ls,
 * config_get, heap_stats, proc_status, ps_rss) and at which of four times
 * (the next two bits; the others are free, so a part's byte need not be 0),
 * the rest its text (JSON read with jansson, or the
 * heap, /proc and ps text).  The parts are written as T-WHAT files to a
 * scratch folder (on tmpfs when there is one), added one by one
 * (rs_observe_add, sim/observe.c) and turned into samples
 * (rs_observe_result), as `rssim observe import` does.  Besides "no crash,
 * no leak, no UB", a failure must be bad input (RS_EINPUT) naming the file
 * or the capture time, and a result must have samples at increasing
 * times.  Build and run: scripts/fuzz (clang,
 * -DRSSIM_FUZZ=ON); the seeds are the capture sets of tests/observe.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/base/result.h"
#include "sim/observe.h"

enum { MAX_PARTS = 32 };

static const char *const whats[8] = { "dump_mempools", "perf_dump", "cache_status", "session_ls",
                                      "config_get", "heap_stats", "proc_status", "ps_rss" };
static const char *const times[4] = { "1764620000", "1764620010.5", "1764620021", "1764620600" };
static const char *const daemons[2] = { "mds", "osd" };
static const char *const releases[3] = { "pacific", "quincy", "reef" };

static void bad_input(int rc, const rs_err *err)
{
    if (rc != RS_EINPUT)
        __builtin_trap(); /* a capture is the user's input */
    if (!err->msg[0])
        __builtin_trap(); /* an input error that says nothing */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[64], paths[MAX_PARTS][160];
    size_t nparts = 0;
    rs_observe *ob;
    rs_result res;
    rs_err err = { 0 };
    uint64_t limit = 0;
    double t0 = 0;
    int rc;

    if (size < 1)
        return 0;
    snprintf(dir, sizeof dir, "%s/rssim-fuzz-observe-%ld",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    mkdir(dir, 0700);
    if (rs_observe_new(&ob, daemons[data[0] & 1], releases[(data[0] >> 1) % 3], &err))
        __builtin_trap();
    rc = 0;
    for (size_t off = 1; off < size && nparts < MAX_PARTS;) {
        const uint8_t *end = memchr(data + off, 0, size - off);
        size_t len = end ? (size_t)(end - (data + off)) : size - off;
        if (len > 0) {
            uint8_t b = data[off];
            char *path = paths[nparts];
            snprintf(path, sizeof paths[0], "%s/%s-%s%s", dir, times[(b >> 3) & 3], whats[b & 7],
                     (b & 7) < 5 ? ".json" : ".txt");
            /* a second part of the same capture and time replaces the first */
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(data + off + 1, 1, len - 1, f) != len - 1 || fclose(f) != 0)
                __builtin_trap();
            size_t k = 0;
            while (k < nparts && strcmp(paths[k], path) != 0)
                k++;
            if (k == nparts)
                nparts++;
        }
        off += len + 1;
    }
    for (size_t k = 0; k < nparts && !rc; k++)
        rc = rs_observe_add(ob, paths[k], &err);
    if (rc == 0 && nparts > 0) {
        rs_result_init(&res);
        rc = rs_observe_result(ob, 0.5, &res, &limit, &t0, &err);
        if (rc == 0) {
            if (res.nsamples == 0)
                __builtin_trap(); /* a result of no sample */
            for (size_t i = 0; i < res.nsamples; i++) {
                const rs_sample *s = &res.samples[i];
                if (i && s->t_ns <= s[-1].t_ns)
                    __builtin_trap();
            }
        }
        rs_result_release(&res);
    }
    if (rc && getenv("RSSIM_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_observe: %s\n", err.msg);
    if (rc)
        bad_input(rc, &err);
    rs_observe_free(ob);
    for (size_t k = 0; k < nparts; k++)
        unlink(paths[k]);
    rmdir(dir);
    return 0;
}
