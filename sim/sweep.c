/* sweep.c — parameter grids; see sweep.h. */
#include "sweep.h"

#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rs_grid_init(rs_grid *g)
{
    memset(g, 0, sizeof *g);
    g->points = 1;
}

void rs_grid_release(rs_grid *g)
{
    for (int k = 0; k < g->nkeys; k++) {
        for (int j = 0; j < g->nvalues[k]; j++)
            free(g->values[k][j]);
        free(g->values[k]);
        free(g->keys[k]);
    }
    rs_grid_init(g);
}

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

int rs_grid_add(rs_grid *g, const char *spec, rs_err *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return rs_fail(err, RS_EINPUT, "--vary: expected key=v1,v2,..., got '%s'", spec);
    if (g->nkeys == RS_SWEEP_MAX_KEYS)
        return rs_fail(err, RS_EINPUT, "--vary: at most %d keys", RS_SWEEP_MAX_KEYS);
    char *key = dup_range(spec, (size_t)(eq - spec));
    if (!key)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    const rs_param *p = rs_schema_param(key);
    if (!p) {
        rs_fail(err, RS_EINPUT, "--vary: unknown key '%s' (see 'rssim list')", key);
        free(key);
        return RS_EINPUT;
    }
    for (int k = 0; k < g->nkeys; k++) {
        if (!strcmp(g->keys[k], key)) {
            rs_fail(err, RS_EINPUT, "--vary: key '%s' given twice", key);
            free(key);
            return RS_EINPUT;
        }
    }
    int k = g->nkeys;
    g->keys[k] = key;
    g->values[k] = NULL;
    g->nvalues[k] = 0;
    g->nkeys++;
    for (const char *s = eq + 1;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char *v = dup_range(s, n);
        char **vs = realloc(g->values[k], (size_t)(g->nvalues[k] + 1) * sizeof *vs);
        if (!v || !vs) {
            free(v);
            if (vs)
                g->values[k] = vs;
            return rs_fail(err, RS_ENOMEM, "out of memory");
        }
        g->values[k] = vs;
        vs[g->nvalues[k]++] = v;
        if (g->points * g->nvalues[k] > RS_SWEEP_MAX_POINTS)
            return rs_fail(err, RS_EINPUT, "--vary %s: the grid passes %d points (a sweep has at "
                           "most %d; split it into several sweeps with fewer values)", key,
                           RS_SWEEP_MAX_POINTS, RS_SWEEP_MAX_POINTS);
        if (!n || rs_param_check(p->type, v))
            return rs_fail(err, RS_EINPUT, "--vary: bad value '%s' for key '%s': expected %s", v,
                           key, rs_ptype_name(p->type));
        if (!comma)
            break;
        s = comma + 1;
    }
    g->points *= g->nvalues[k];
    return 0;
}

int rs_grid_value_index(const rs_grid *g, int64_t point, int k)
{
    /* the last key changes fastest */
    for (int i = g->nkeys - 1; i > k; i--)
        point /= g->nvalues[i];
    return (int)(point % g->nvalues[k]);
}

int rs_grid_point_config(const rs_grid *g, const rs_config *base, int64_t point,
                         rs_config **r_cfg, rs_err *err)
{
    rs_config *cfg;
    int rc = rs_config_clone(base, &cfg, err);
    if (rc)
        return rc;
    for (int k = 0; k < g->nkeys && !rc; k++)
        rc = rs_config_set(cfg, g->keys[k], g->values[k][rs_grid_value_index(g, point, k)], err);
    if (!rc)
        rc = rs_schema_finish(cfg, NULL, NULL, err);
    if (rc) {
        rs_config_free(cfg);
        return rc;
    }
    *r_cfg = cfg;
    return 0;
}

void rs_grid_point_label(const rs_grid *g, int64_t point, char *r_buf, size_t cap)
{
    size_t n = 0;
    r_buf[0] = '\0';
    for (int k = 0; k < g->nkeys && n < cap; k++)
        n += (size_t)snprintf(r_buf + n, cap - n, "%s%s=%s", k ? " " : "", g->keys[k],
                              g->values[k][rs_grid_value_index(g, point, k)]);
}

/* The spec's text, piece by piece, to a sink (a buffer, a hash): one
 * walk, so the text stored and the text hashed are the same. */
typedef void (*spec_sink)(void *ctx, const char *piece);

static void spec_walk(const rs_grid *g, spec_sink sink, void *ctx)
{
    for (int k = 0; k < g->nkeys; k++) {
        sink(ctx, k ? " --vary " : "--vary ");
        sink(ctx, g->keys[k]);
        sink(ctx, "=");
        for (int j = 0; j < g->nvalues[k]; j++) {
            if (j)
                sink(ctx, ",");
            sink(ctx, g->values[k][j]);
        }
    }
}

typedef struct text_sink {
    char *buf;
    size_t cap, len; /* len: the whole text's, also past cap */
} text_sink;

static void to_text(void *ctx, const char *piece)
{
    text_sink *t = ctx;
    for (; *piece; piece++, t->len++)
        if (t->len + 1 < t->cap)
            t->buf[t->len] = *piece;
    t->buf[t->len + 1 < t->cap ? t->len : t->cap - 1] = '\0';
}

static void to_fnv(void *ctx, const char *piece)
{
    uint64_t *h = ctx;
    for (; *piece; piece++)
        *h = (*h ^ (unsigned char)*piece) * 1099511628211ull;
}

size_t rs_grid_spec(const rs_grid *g, char *r_buf, size_t cap)
{
    text_sink t = { .buf = r_buf, .cap = cap };
    r_buf[0] = '\0';
    spec_walk(g, to_text, &t);
    return t.len;
}

size_t rs_grid_keys(const rs_grid *g, char *r_buf, size_t cap)
{
    text_sink t = { .buf = r_buf, .cap = cap };
    r_buf[0] = '\0';
    for (int k = 0; k < g->nkeys; k++) {
        if (k)
            to_text(&t, ",");
        to_text(&t, g->keys[k]);
    }
    return t.len;
}

void rs_grid_hash(const rs_grid *g, const rs_config *base, const char *trace_sha256,
                  char r_hex[17])
{
    uint64_t h = rs_config_hash(base);
    spec_walk(g, to_fnv, &h); /* the whole spec, however long */
    to_fnv(&h, trace_sha256);
    snprintf(r_hex, 17, "%016llx", (unsigned long long)h);
}
