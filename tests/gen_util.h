/*
 * gen_util.h — what the generator tests share: a scratch directory
 * (scratch.h) and running a generator with "key=value" options into a file.
 */
#ifndef RS_TEST_GEN_UTIL_H
#define RS_TEST_GEN_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "scratch.h"
#include "sim/base/config.h"
#include "traces/gen/gen.h"

/* Run g with the "k=v" options kv (NULL-terminated) into path; the summary
 * line goes to r_summary when it is not NULL. */
static int gen_with(const rs_gen_ops *g, const char *path, const char *format,
                    const char *const *kv, char *r_summary, size_t cap, rs_err *err)
{
    rs_config *cfg;
    int rc = rs_config_new_with(&cfg, g->params, err);
    if (rc)
        return rc;
    for (; *kv && rc == 0; kv++)
        rc = rs_config_set_kv(cfg, *kv, "test", err);
    if (rc == 0)
        rc = rs_config_validate(cfg, err);
    if (rc == 0)
        rc = rs_gen_to_file(g, cfg, RSSIM_TRACES_DIR, path, format, 0, r_summary, cap, err);
    rs_config_free(cfg);
    return rc;
}

#endif
