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

void rs_grid_spec(const rs_grid *g, char *r_buf, size_t cap)
{
    size_t n = 0;
    r_buf[0] = '\0';
    for (int k = 0; k < g->nkeys && n < cap; k++) {
        n += (size_t)snprintf(r_buf + n, cap - n, "%s--vary %s=", k ? " " : "", g->keys[k]);
        for (int j = 0; j < g->nvalues[k] && n < cap; j++)
            n += (size_t)snprintf(r_buf + n, cap - n, "%s%s", j ? "," : "", g->values[k][j]);
    }
}

void rs_grid_keys(const rs_grid *g, char *r_buf, size_t cap)
{
    size_t n = 0;
    r_buf[0] = '\0';
    for (int k = 0; k < g->nkeys && n < cap; k++)
        n += (size_t)snprintf(r_buf + n, cap - n, "%s%s", k ? "," : "", g->keys[k]);
}

void rs_grid_hash(const rs_grid *g, const rs_config *base, const char *trace_sha256,
                  char r_hex[17])
{
    uint64_t h = rs_config_hash(base);
    char spec[8192];
    rs_grid_spec(g, spec, sizeof spec);
    for (const char *s = spec; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    for (const char *s = trace_sha256; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    snprintf(r_hex, 17, "%016llx", (unsigned long long)h);
}
