/*
 * bench_store.c — a store at the scale users reach: RUNS runs of SAMPLES
 * samples each (default 10^4 x 10^3), in sweeps of 100 points, written
 * through the store API as rssim writes them; then the program exits and
 * scripts/bench-store times the commands users wait for on it.  A program,
 * not a ctest.
 *
 *   bench_store DB [RUNS [SAMPLES]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/schema.h"
#include "sim/store.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_store DB [RUNS [SAMPLES]]\n");
        return 2;
    }
    long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 10000;
    long samples = argc > 3 ? strtol(argv[3], NULL, 10) : 1000;
    rs_store *st;
    rs_err err = { 0 };
    if (rs_store_open(&st, argv[1], &err)) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    static const char sha[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    int64_t sweep = 0;
    for (long r = 0; r < runs; r++) {
        rs_config *cfg;
        rs_result res;
        int64_t id;
        char limit[32], label[64];
        snprintf(limit, sizeof limit, "%ldM", 16 + (r % 100) * 16);
        snprintf(label, sizeof label, "kv_cache_limit=%s", limit);
        if (rs_config_new(&cfg, &err) || rs_config_set(cfg, "kv_cache_limit", limit, &err))
            goto fail;
        if (r % 100 == 0) { /* a sweep of 100 limits */
            char hash[32];
            int created;
            snprintf(hash, sizeof hash, "bench-%ld", r / 100);
            rs_sweep_meta sm = { .spec_hash = hash, .trace_path = "bench.bin", .trace_sha256 = sha,
                                 .preset = "kv-small", .spec = "--vary kv_cache_limit=...",
                                 .varied_keys = "kv_cache_limit", .points = 100, .jobs = 1 };
            if (rs_store_sweep_open(st, &sm, &sweep, &created, &err))
                goto fail;
        }
        rs_run_meta meta = { .kind = "predicted", .trace_path = "bench.bin", .trace_sha256 = sha,
                             .preset = "kv-small", .seed = 1, .label = label,
                             .sweep_id = sweep, .point_index = r % 100 };
        rs_result_init(&res);
        for (long k = 0; k < samples; k++) {
            uint64_t acc = (uint64_t)(1 + r % 100) << 24;
            rs_sample s = { .t_ns = (uint64_t)k * 100000000ull, .accounted_bytes = acc,
                            .untracked_bytes = acc / 3, .resident_bytes = acc * 3 / 2,
                            .mapped_bytes = acc * 2, .rss_bytes = acc * 3 / 2,
                            .limit_bytes = acc, .items_count = (uint64_t)k,
                            .x = 1.0 / 3, .overshoot = 1.5 };
            if (rs_result_add_sample(&res, &s, &err))
                goto fail;
        }
        double limit_b = (double)((16L + (r % 100) * 16) << 20);
        if (rs_result_set_metric(&res, "rss_steady_bytes", 1.5 * limit_b, &err) ||
            rs_result_set_metric(&res, "rss_peak_bytes", 1.6 * limit_b, &err) ||
            rs_result_set_metric(&res, "limit_bytes", limit_b, &err) ||
            rs_result_set_metric(&res, "overshoot_steady", 1.5, &err) ||
            rs_result_set_metric(&res, "overshoot_p99", 1.55, &err) ||
            rs_result_set_metric(&res, "overshoot_max", 1.6, &err) ||
            rs_result_set_metric(&res, "x_steady", 1.0 / 3, &err) ||
            rs_store_sweep_point(st, sweep, r % 100, &meta, cfg, &id, &err) ||
            rs_store_run_claim(st, id, &err) ||
            rs_store_run_finish(st, id, &res, 1000, 1000, &err))
            goto fail;
        rs_result_release(&res);
        rs_config_free(cfg);
        if ((r + 1) % 100 == 0 && rs_store_sweep_set_status(st, sweep, "done", &err))
            goto fail;
        if ((r + 1) % 1000 == 0)
            fprintf(stderr, "bench_store: %ld runs\n", r + 1);
    }
    rs_store_close(st);
    return 0;
fail:
    fprintf(stderr, "bench_store: %s\n", err.msg);
    rs_store_close(st);
    return 1;
}
