/* result.c — growable sample and metric arrays; see result.h. */
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rs_result_init(rs_result *res)
{
    memset(res, 0, sizeof *res);
}

void rs_result_release(rs_result *res)
{
    free(res->samples);
    free(res->metrics);
    rs_result_init(res);
}

int rs_result_add_sample(rs_result *res, const rs_sample *s, rs_err *err)
{
    if (res->nsamples == res->samples_cap) {
        size_t cap = res->samples_cap ? 2 * res->samples_cap : 256;
        rs_sample *p = realloc(res->samples, cap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %zu samples", cap);
        res->samples = p;
        res->samples_cap = cap;
    }
    res->samples[res->nsamples++] = *s;
    return 0;
}

int rs_result_set_metric(rs_result *res, const char *name, double value, rs_err *err)
{
    for (size_t i = 0; i < res->nmetrics; i++) {
        if (strcmp(res->metrics[i].name, name) == 0) {
            res->metrics[i].value = value;
            return 0;
        }
    }
    if (strlen(name) >= sizeof res->metrics[0].name)
        return rs_fail(err, RS_EINTERNAL, "metric name '%s' too long", name);
    if (res->nmetrics == res->metrics_cap) {
        size_t cap = res->metrics_cap ? 2 * res->metrics_cap : 32;
        rs_metric *p = realloc(res->metrics, cap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for %zu metrics", cap);
        res->metrics = p;
        res->metrics_cap = cap;
    }
    snprintf(res->metrics[res->nmetrics].name, sizeof res->metrics[0].name, "%s", name);
    res->metrics[res->nmetrics++].value = value;
    return 0;
}

int rs_result_metric(const rs_result *res, const char *name, double *r_value)
{
    for (size_t i = 0; i < res->nmetrics; i++) {
        if (strcmp(res->metrics[i].name, name) == 0) {
            *r_value = res->metrics[i].value;
            return 0;
        }
    }
    return RS_ENOTFOUND;
}
