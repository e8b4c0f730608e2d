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

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"
#include "../trace.h"

typedef struct rs_gen_ops {
    const char *name;        /* "kv", later "kernel-build", "fio" */
    const char *doc;         /* one line */
    const char *daemon;      /* the trace's daemon kind */
    const rs_param *params;  /* options, NULL-terminated; must include "seed" */
    /* Write the whole trace to w (opened by the caller, closed by it).
     * data_dir (may be NULL): the folder of rssim's bundled trace data, where
     * a generator looks up a data file option given as a bare name
     * (kernel-build's listings); the caller finds it, the generator never
     * guesses one.  When r_summary is not NULL, the generator may describe
     * what it wrote (records, peaks: known only after generating, or how to
     * replay it) in one line of at most cap bytes; it is left empty
     * otherwise. */
    int (*generate)(const rs_config *opts, const char *data_dir, rs_trace_writer *w,
                    char *r_summary, size_t cap, rs_err *err);
} rs_gen_ops;

/* Generate into path (format "text" or "binary"; .gz/.zst compress): the
 * file appears whole or not at all.  opts must be validated.  A record past
 * the max_records-th (0: no limit) fails as RS_EINPUT, naming the limit and
 * `--max-records`.  data_dir and r_summary as for generate (both may be
 * NULL). */
int rs_gen_to_file(const rs_gen_ops *gen, const rs_config *opts, const char *data_dir,
                   const char *path, const char *format, uint64_t max_records, char *r_summary,
                   size_t cap, rs_err *err);

#endif
