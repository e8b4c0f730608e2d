/*
 * run.h — one run: a trace x a config x a seed, start to finish, in memory.
 *
 * rs_run_execute wires the parts of a run together: it validates
 * the config, opens the trace, builds the allocator and the daemon (which
 * builds its cache policy, layout and trim policy), arms the sampler, lets
 * the engine merge the trace with the timers, and computes the metrics.  It
 * is a pure function of its inputs: no clock, no global state, no output.
 * Storing the result is the caller's job (sim/store.h).
 */
#ifndef RS_RUN_H
#define RS_RUN_H

#include <stdint.h>

#include "base/config.h"
#include "base/err.h"
#include "base/result.h"

typedef struct rs_run_stats {
    uint64_t events;  /* trace records replayed */
    uint64_t end_ns;  /* virtual end time */
    uint64_t timer_events;
    /* A burst: every record (two or more) ran at one time, burst_t_ns, and
     * the daemon took them as they came (no closed loop paced them), so no
     * trim, sample or allocator tick fell between them: the result is the
     * memory of one burst, not of a workload over time.  The run also
     * stores the metric burst_records_count.  0: not a burst. */
    uint64_t burst_records, burst_t_ns;
} rs_run_stats;

/* What a run may do besides producing its result. */
typedef struct rs_run_opts {
    /* Write every allocator call of the run to this allocation trace
     * (daemon "alloc"; binary unless it ends in .tsv/.txt; .gz/.zst
     * compress).  Created only if the run succeeds.  NULL: none. */
    const char *emit_alloc_trace;
    /* Decode the trace on the caller's thread instead of a readahead
     * thread (same records, so the same result): for callers that keep
     * every core busy with runs of their own (rssim sweep --jobs N > 1). */
    int decode_inline;
    /* (Another tool's trace is read by the run's key trace_format,
     * "NAME[:SPEC]": rs_trace_open_foreign.) */
} rs_run_opts;

/* The spatial sampling k of cfg (mds_sample_k: the run replays 1/k of the
 * directories and scales its result back); 1 when the key is not set. */
uint32_t rs_run_sample_k(const rs_config *cfg);

/* Replay trace_path under cfg into *r_res (initialised by the caller).
 * On failure *r_res holds whatever was sampled; the caller discards it. */
int rs_run_execute(const char *trace_path, const rs_config *cfg, rs_result *r_res,
                   rs_run_stats *r_stats, rs_err *err);
/* The same with options (opts may be NULL). */
int rs_run_execute_opts(const char *trace_path, const rs_config *cfg, const rs_run_opts *opts,
                        rs_result *r_res, rs_run_stats *r_stats, rs_err *err);

#endif
