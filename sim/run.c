/* run.c — wire and run one simulation; see run.h. */
#include "run.h"

#include <stdio.h>
#include <string.h>

#include "../models/alloc/alloc.h"
#include "../models/daemon/daemon.h"
#include "../traces/readahead.h"
#include "../traces/sample.h"
#include "../traces/trace.h"
#include "alloc_tee.h"
#include "engine.h"
#include "schema.h"
#include "sampler.h"

/* The allocator's clock: advance() every alloc_tick_interval of virtual time. */
static void on_alloc_tick(void *ctx, uint64_t now_ns)
{
    const rs_alloc *alloc = ctx;
    alloc->ops->advance(alloc->state, now_ns);
}

int rs_run_execute(const char *trace_path, const rs_config *cfg, rs_result *r_res,
                   rs_run_stats *r_stats, rs_err *err)
{
    return rs_run_execute_opts(trace_path, cfg, NULL, r_res, r_stats, err);
}

/* The writer format for an emitted trace: text for .tsv/.txt names. */
static const char *format_for(const char *path)
{
    size_t n = strlen(path);
    const char *end = path + n;
    if (n > 3 && !strcmp(end - 3, ".gz"))
        end -= 3;
    else if (n > 4 && !strcmp(end - 4, ".zst"))
        end -= 4;
    size_t m = (size_t)(end - path);
    if ((m > 4 && !strncmp(end - 4, ".tsv", 4)) || (m > 4 && !strncmp(end - 4, ".txt", 4)))
        return "text";
    return "binary";
}

/* The latest time a run may reach, so that nothing growing with virtual
 * time runs away: at most RS_RUN_MAX_SAMPLES samples, one every
 * sample_interval from t 0 plus the last, and at most RS_RUN_MAX_ALLOC_TICKS
 * ticks of the allocator's clock (tick_ns 0: the model has none). */
static void set_horizon(rs_engine *eng, uint64_t sample_ns, uint64_t tick_ns, char *why, size_t cap)
{
    uint64_t h = sample_ns && sample_ns <= UINT64_MAX / (RS_RUN_MAX_SAMPLES - 2)
                     ? sample_ns * (RS_RUN_MAX_SAMPLES - 2) : UINT64_MAX;
    snprintf(why, cap, "at most %llu samples of sample_interval=%lluns; a longer run needs a larger "
             "sample_interval", (unsigned long long)RS_RUN_MAX_SAMPLES, (unsigned long long)sample_ns);
    if (tick_ns && tick_ns <= UINT64_MAX / RS_RUN_MAX_ALLOC_TICKS && tick_ns * RS_RUN_MAX_ALLOC_TICKS < h) {
        h = tick_ns * RS_RUN_MAX_ALLOC_TICKS;
        snprintf(why, cap, "at most %llu ticks of alloc_tick_interval=%lluns; a longer run needs a "
                 "larger alloc_tick_interval", (unsigned long long)RS_RUN_MAX_ALLOC_TICKS,
                 (unsigned long long)tick_ns);
    }
    eng->horizon_ns = h;
    eng->horizon_why = why;
}

uint32_t rs_run_sample_k(const rs_config *cfg)
{
    return rs_config_raw(cfg, "mds_sample_k") ? (uint32_t)rs_config_int(cfg, "mds_sample_k") : 1;
}

int rs_run_execute_opts(const char *trace_path, const rs_config *cfg, const rs_run_opts *opts,
                        rs_result *r_res, rs_run_stats *r_stats, rs_err *err)
{
    rs_trace_writer *emit = NULL;
    rs_alloc_tee tee;
    rs_components parts;
    const rs_daemon_ops *daemon = NULL;
    rs_trace *tr = NULL;
    rs_readahead *ra = NULL;
    rs_rec_source src;
    rs_engine eng;
    rs_alloc alloc = { 0 };
    void *dstate = NULL;
    rs_sampler smp = { 0 };
    rs_config *scfg = NULL;          /* a sampled run's config: its cache sized for 1/k */
    rs_sample_filter *filt = NULL;
    uint32_t sample_k = 1;
    uint64_t end_ns = 0;
    int rc;

    rs_engine_init(&eng);
    if ((rc = rs_config_validate(cfg, err)) || (rc = rs_schema_resolve(cfg, &parts, err)))
        goto out;
    daemon = parts.daemon;
    double steady_from = rs_config_double(cfg, "steady_from");
    uint64_t sample_ns = rs_config_duration_ns(cfg, "sample_interval");
    uint64_t tail_ns = rs_config_duration_ns(cfg, "run_tail");
    uint64_t tick_ns = rs_config_duration_ns(cfg, "alloc_tick_interval");
    char horizon_why[200];
    set_horizon(&eng, sample_ns, parts.alloc->advance ? tick_ns : 0, horizon_why, sizeof horizon_why);
    if (tail_ns >= eng.horizon_ns) {
        rc = rs_fail(err, RS_EINPUT, "bad value for key 'run_tail': %lluns is past the latest time a run "
                     "may reach, %lluns (%s)", (unsigned long long)tail_ns,
                     (unsigned long long)eng.horizon_ns, horizon_why);
        goto out;
    }
    /* the format is a key of the run, so it is stored with it and in its
     * param_hash (two readings of one file are two different runs) */
    const char *foreign = rs_config_string(cfg, "trace_format");
    if ((rc = foreign && strcmp(foreign, "rssim") != 0
                  ? rs_trace_open_foreign(&tr, trace_path, foreign, err)
                  : rs_trace_open(&tr, trace_path, err)))
        goto out;
    if (strcmp(rs_trace_daemon(tr), daemon->trace_daemon) != 0) {
        rc = rs_fail(err, RS_EINPUT, "%s: trace is for daemon '%s' but daemon '%s' replays '%s' traces",
                     trace_path, rs_trace_daemon(tr), daemon->name, daemon->trace_daemon);
        goto out;
    }
    /* mds_sample_k (an mds daemon key, so the schema refuses it elsewhere):
     * the records of 1/k of the directories, on a cache sized for them; the
     * sampler scales the result back (traces/sample.h, docs/models.md) */
    sample_k = rs_run_sample_k(cfg);
    const rs_config *mcfg = cfg;
    if (sample_k > 1) {
        if ((rc = rs_config_clone(cfg, &scfg, err)) ||
            (rc = rs_sample_scale_config(scfg, sample_k, parts.alloc->name, err)))
            goto out;
        mcfg = scfg;
    }
    alloc.ops = parts.alloc;
    if ((rc = alloc.ops->create(mcfg, &alloc.state, err))) {
        alloc.ops = NULL;
        goto out;
    }
    if (opts && opts->emit_alloc_trace) {
        if ((rc = rs_trace_writer_open(&emit, opts->emit_alloc_trace, format_for(opts->emit_alloc_trace),
                                       "alloc", err)))
            goto out;
        rs_alloc_tee_wrap(&alloc, &tee, emit);
    }
    smp = (rs_sampler){ .alloc = &alloc, .scale = sample_k };
    if (sample_k > 1)
        rs_sampler_fix(&smp);
    rs_daemon_env env = { .cfg = mcfg, .engine = &eng, .alloc = &alloc };
    memcpy(env.parts, parts.parts, sizeof env.parts);
    if ((rc = daemon->create(&env, &dstate, err)))
        goto out;
    smp.daemon = daemon;
    smp.daemon_state = dstate;
    smp.engine = &eng;
    smp.result = r_res;
    smp.last_t_ns = UINT64_MAX;
    if (alloc.ops->advance && tick_ns &&
        (rc = rs_engine_every(&eng, tick_ns, tick_ns, on_alloc_tick, &alloc, err)))
        goto out;
    if ((rc = rs_engine_observe_every(&eng, 0, sample_ns, rs_sampler_fire, &smp, err)))
        goto out;
    if ((opts && opts->decode_inline) || rs_trace_cheap_decode(tr)) {
        /* A plain binary trace costs a few ns a record to decode, less than
         * handing records over from another thread (a 40-byte copy each and
         * the block's cache lines moving between cores): on a 10 M-record
         * kv replay, 1.0-1.5 s of CPU with the readahead thread against
         * 0.9-1.1 s without, and no faster in wall time on the 2-core
         * machine measured (docs/validation.md, "reading the trace"). */
        rs_trace_source(tr, &src);
    } else {
        /* text or compressed: decoded on a second thread while this one runs the models */
        if ((rc = rs_readahead_start(&ra, tr, err)))
            goto out;
        rs_readahead_source(ra, &src);
    }
    if (sample_k > 1 && (rc = rs_sample_filter_new(&filt, sample_k, &src, &src, err)))
        goto out;
    if ((rc = rs_engine_run(&eng, &src, daemon->op, daemon->prefetch, dstate,
                            tail_ns, &end_ns, err)))
        goto out;
    rs_readahead_stop(ra);
    ra = NULL;
    if (smp.last_t_ns != end_ns) {
        rs_sampler_fire(&smp, end_ns);
        if (eng.stopped) {
            *err = eng.error;
            rc = eng.error.code;
            goto out;
        }
    }
    if ((rc = rs_sampler_metrics(&smp, end_ns, steady_from, eng.events, err)) ||
        (daemon->metrics && (rc = daemon->metrics(dstate, end_ns, r_res, err))))
        goto out;
    rs_daemon_stats ds;
    daemon->stats(dstate, &ds);
    uint64_t burst = eng.events >= 2 && eng.first_rec_ns == eng.last_rec_ns && !ds.paced ? eng.events : 0;
    if (burst && (rc = rs_result_set_metric(r_res, "burst_records_count", (double)burst, err)))
        goto out;
    if (r_stats)
        *r_stats = (rs_run_stats){ .events = eng.events, .end_ns = end_ns,
                                   .timer_events = eng.timer_events, .burst_records = burst,
                                   .burst_t_ns = burst ? eng.first_rec_ns : 0 };
    if (emit) {
        if (tee.failed) {
            *err = tee.err;
            rc = tee.err.code;
            goto out;
        }
        rs_alloc_tee_unwrap(&alloc, &tee); /* the daemon's teardown is not part of the run */
        rc = rs_trace_writer_close(emit, err);
        emit = NULL;
    }
out:
    if (dstate)
        daemon->destroy(dstate);
    if (emit) {
        rs_alloc_tee_unwrap(&alloc, &tee);
        rs_trace_writer_abort(emit);
    }
    if (alloc.ops)
        alloc.ops->destroy(alloc.state);
    if (ra)
        rs_readahead_stop(ra);
    rs_sample_filter_free(filt);
    rs_config_free(scfg);
    if (tr)
        rs_trace_close(tr);
    rs_engine_release(&eng);
    return rc;
}
