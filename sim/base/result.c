/* result.c — growable sample and metric arrays; see result.h. */
#include "result.h"
#include "vec.h"

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
    if (RS_VEC_RESERVE(res->samples, res->samples_cap, res->nsamples + 1, 256))
        return rs_fail(err, RS_ENOMEM, "out of memory for %zu samples", res->nsamples + 1);
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
    if (RS_VEC_RESERVE(res->metrics, res->metrics_cap, res->nmetrics + 1, 32))
        return rs_fail(err, RS_ENOMEM, "out of memory for %zu metrics", res->nmetrics + 1);
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
