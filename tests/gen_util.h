/*
 * gen_util.h — what the generator tests share: a scratch directory, paths
 * in it, and running a generator with "key=value" options into a file.
 */
#ifndef RS_TEST_GEN_UTIL_H
#define RS_TEST_GEN_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "sim/config.h"
#include "traces/gen/gen.h"

static char dir[256];

/* Make the scratch directory $TMPDIR/rssim-test-NAME-XXXXXX; 0 on success. */
static int scratch_dir(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/rssim-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* name inside the scratch directory (four results stay valid at once). */
static const char *path_in(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

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
        rc = rs_gen_to_file(g, cfg, path, format, r_summary, cap, err);
    rs_config_free(cfg);
    return rc;
}

#endif
