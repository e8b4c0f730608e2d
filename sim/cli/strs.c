/* strs.c — a list of key/value strings for the commands; see cli.h. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int rs_cli_strs_add(rs_cli_strs *s, const char *k, const char *v, rs_err *err)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 32;
        char **nk = realloc(s->k, ncap * sizeof *nk);
        if (nk)
            s->k = nk;
        char **nv = nk ? realloc(s->v, ncap * sizeof *nv) : NULL;
        if (!nv)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        s->v = nv;
        s->cap = ncap;
    }
    s->k[s->n] = strdup(k);
    s->v[s->n] = v ? strdup(v) : NULL;
    if (!s->k[s->n] || (v && !s->v[s->n])) {
        free(s->k[s->n]);
        free(s->v[s->n]);
        return rs_fail(err, RS_ENOMEM, "out of memory");
    }
    s->n++;
    return 0;
}

int rs_cli_strs_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    return rs_cli_strs_add(ctx, key, value, err);
}

const char *rs_cli_strs_get(const rs_cli_strs *s, const char *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->k[i], k))
            return s->v[i];
    return NULL;
}

void rs_cli_strs_release(rs_cli_strs *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->k[i]);
        free(s->v[i]);
    }
    free(s->k);
    free(s->v);
    memset(s, 0, sizeof *s);
}
