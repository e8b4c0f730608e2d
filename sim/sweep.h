/*
 * sweep.h — a parameter grid: the cartesian product of --vary lists.
 *
 * Point i of the grid takes, for each varied key in --vary order, one of its
 * values; the first --vary is the outermost (slowest-changing) loop, so
 * points are numbered the same way on every machine and with any number of
 * workers.  A point's config is the base config with its values set, so a
 * point replayed alone (`rssim replay --set k=v ...`) is the same run.
 */
#ifndef RS_SWEEP_H
#define RS_SWEEP_H

#include <stdint.h>

#include "base/config.h"
#include "base/err.h"

#define RS_SWEEP_MAX_KEYS 16
/* The most points one grid may have: 10^6 (a row each in the store, made
 * before the first runs; a 1,000-point sweep is docs/store.md's measured
 * case).  A larger grid is refused naming the limit. */
#define RS_SWEEP_MAX_POINTS 1000000

typedef struct rs_grid {
    int nkeys;
    char *keys[RS_SWEEP_MAX_KEYS];
    char **values[RS_SWEEP_MAX_KEYS]; /* values[k][j] */
    int nvalues[RS_SWEEP_MAX_KEYS];
    int64_t points;                   /* product of nvalues */
} rs_grid;

void rs_grid_init(rs_grid *g);
void rs_grid_release(rs_grid *g);
/* Add "key=v1,v2,..." (values checked against the key's type; the grid
 * may not pass RS_SWEEP_MAX_POINTS). */
int rs_grid_add(rs_grid *g, const char *spec, rs_err *err);
/* Value index of key k at point p. */
int rs_grid_value_index(const rs_grid *g, int64_t point, int k);
/* base + point's values, validated.  Caller frees *r_cfg. */
int rs_grid_point_config(const rs_grid *g, const rs_config *base, int64_t point,
                         rs_config **r_cfg, rs_err *err);
/* "key=value key=value" for point, for labels. */
void rs_grid_point_label(const rs_grid *g, int64_t point, char *r_buf, size_t cap);
/* "--vary key=v1,v2 --vary key2=..." and "key,key2" into r_buf (cap > 0,
 * cut to fit); each returns the whole text's length, as snprintf: a result
 * >= cap means it was cut. */
size_t rs_grid_spec(const rs_grid *g, char *r_buf, size_t cap);
size_t rs_grid_keys(const rs_grid *g, char *r_buf, size_t cap);
/* Hex identity of (trace sha, base config, grid) over the whole spec:
 * finds a sweep again. */
void rs_grid_hash(const rs_grid *g, const rs_config *base, const char *trace_sha256,
                  char r_hex[17]);

#endif
