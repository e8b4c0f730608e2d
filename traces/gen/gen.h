/*
 * gen.h — trace generator plug-ins.
 *
 * A generator writes a synthetic trace from its options and an explicit seed
 * (GSL RNG, never seeded from the environment).  Options are an rs_param
 * table; `rssim gen NAME --key value ...` fills an rs_config made with
 * rs_config_new_with(ops->params) and validates it before calling generate.
 * Same options + seed => byte-identical trace.
 */
#ifndef RS_GEN_H
#define RS_GEN_H

#include "../../sim/config.h"
#include "../../sim/err.h"
#include "../trace.h"

typedef struct rs_gen_ops {
    const char *name;        /* "kv", later "kernel-build", "fio" */
    const char *doc;         /* one line */
    const char *daemon;      /* the trace's daemon kind */
    const rs_param *params;  /* options, NULL-terminated; must include "seed" */
    /* Write the whole trace to w (opened by the caller, closed by it). */
    int (*generate)(const rs_config *opts, rs_trace_writer *w, rs_err *err);
    /* Optional (NULL = use generate): generate, and describe what was written
     * (records, peaks: known only after generating) in one line of at most
     * cap bytes in r_summary, which the CLI prints on stderr. */
    int (*generate_summary)(const rs_config *opts, rs_trace_writer *w, char *r_summary,
                            size_t cap, rs_err *err);
} rs_gen_ops;

#endif
