/*
 * config.h — run parameters: typed keys, Ceph-style units, preset files.
 *
 * A run is a pure function of (trace, config, seed).  The config is a small
 * ordered list of key = value strings; every key must be declared by rssim's
 * core parameter table or by some plug-in's rs_param table (see registry.h),
 * and every value must parse as that key's type.  Sizes take binary suffixes
 * K/M/G/T (optionally followed by "i" or "iB"/"B"); durations take ns/us/ms/s
 * (a bare number of a duration is seconds, as in Ceph's float options).
 *
 * Lookups are linear: a config holds tens of keys and is read at set-up, never
 * on the per-event path.
 */
#ifndef RS_CONFIG_H
#define RS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum rs_ptype {
    RS_PT_SIZE,     /* bytes, K/M/G/T binary suffixes */
    RS_PT_DURATION, /* nanoseconds, ns/us/ms/s suffixes; bare number = seconds */
    RS_PT_INT,      /* signed 64-bit integer */
    RS_PT_DOUBLE,   /* finite real number */
    RS_PT_BOOL,     /* true/false/1/0/yes/no/on/off */
    RS_PT_STRING,   /* free text or a plug-in name */
} rs_ptype;

/* One declared parameter.  Tables end with an entry whose key is NULL. */
typedef struct rs_param {
    const char *key;  /* Ceph's own option name where one exists */
    rs_ptype type;
    const char *def;  /* default value, as it would be written in a preset */
    const char *doc;  /* one line: meaning, unit, source */
    /* Optional, numeric types: the values allowed, as an interval whose
     * bounds are written like def, "[1, 65535]", "(0, )" (> 0), "[0, 1)";
     * an empty bound is unbounded.  rs_config_validate refuses a value
     * outside it, so a plug-in reads only values in range. */
    const char *range;
    /* Optional, strings: the values allowed, "|"-separated ("luminous|octopus");
     * rs_config_validate refuses any other, listing them, so a plug-in maps
     * the value with rs_config_choice and never validates it itself. */
    const char *choices;
} rs_param;

typedef struct rs_config rs_config;

/* Where a config's keys are declared, when it is not one table: lookup
 * returns the declaration of key (NULL: unknown); check, optional, runs
 * after every entry parsed as its declared type and range, for what needs
 * more than one key (a plug-in name that must exist, a key no active
 * plug-in reads).  sim/schema.c builds the one rssim runs with. */
typedef struct rs_config_schema {
    const void *ctx;
    const rs_param *(*lookup)(const void *ctx, const char *key);
    int (*check)(const void *ctx, const rs_config *cfg, rs_err *err);
} rs_config_schema;

/* A config whose keys the given schema declares. */
int rs_config_new_schema(rs_config **r_cfg, const rs_config_schema *schema, rs_err *err);
/* A config checked against one table only (generator options, tests)
 * instead of the core and plug-in parameters. */
int rs_config_new_with(rs_config **r_cfg, const rs_param *schema, rs_err *err);
void rs_config_free(rs_config *cfg);
int rs_config_clone(const rs_config *cfg, rs_config **r_copy, rs_err *err);

/* Set key to value (replacing an earlier value).  No validation here. */
int rs_config_set(rs_config *cfg, const char *key, const char *value, rs_err *err);
/* Parse "key=value"; origin names where it came from, for messages. */
int rs_config_set_kv(rs_config *cfg, const char *kv, const char *origin, rs_err *err);
/* Read a preset file of "key = value" lines ('#' comments, blank lines). */
int rs_config_load_file(rs_config *cfg, const char *path, rs_err *err);

/* Check every key is declared and every value parses; fills defaults for
 * declared-but-unset core keys lazily (getters fall back to the default).
 * Errors name the key and the value. */
int rs_config_validate(const rs_config *cfg, rs_err *err);

/* Look up the declaration of key in cfg's schema (core and all plug-in
 * parameters unless the config was made with rs_config_new_with). */
const rs_param *rs_config_param(const rs_config *cfg, const char *key);

size_t rs_config_count(const rs_config *cfg);
void rs_config_at(const rs_config *cfg, size_t i, const char **r_key, const char **r_value);
/* 1 when a getter (typed, or rs_config_raw) has returned key's set value:
 * after a run, a key set but never read did nothing (tests check that none
 * does). */
int rs_config_was_read(const rs_config *cfg, const char *key);
/* 1 when key's value was read from a preset file (not set by the user). */
int rs_config_from_file(const rs_config *cfg, const char *key);
/* Remove key (nothing when unset). */
void rs_config_unset(rs_config *cfg, const char *key);
/* Where key's value came from ("presets/x.conf:12", "--set"), or
 * "(default)" when unset. */
const char *rs_config_origin(const rs_config *cfg, const char *key);
/* The raw value set for key, or NULL when unset. */
const char *rs_config_raw(const rs_config *cfg, const char *key);

/* Typed getters.  The key must be declared; when unset its default is used.
 * After rs_config_validate succeeded these cannot fail; before, a bad value
 * returns the default-parsed value and sets *r_bad (if non-NULL). */
uint64_t rs_config_size(const rs_config *cfg, const char *key);
uint64_t rs_config_duration_ns(const rs_config *cfg, const char *key);
int64_t rs_config_int(const rs_config *cfg, const char *key);
double rs_config_double(const rs_config *cfg, const char *key);
int rs_config_bool(const rs_config *cfg, const char *key);
const char *rs_config_string(const rs_config *cfg, const char *key);
/* The index of key's value in its declared choices (0 for the first), or
 * -1 when it is not one of them (never after rs_config_validate). */
int rs_config_choice(const rs_config *cfg, const char *key);

/* Fail with RS_EINPUT "bad value 'V' for key 'K': why", V as it was written
 * (or the key's default when unset): for checks beyond the key's type. */
int rs_config_bad_value(const rs_config *cfg, const char *key, const char *why, rs_err *err);

/* Stable 64-bit hash (FNV-1a) of the sorted key=value pairs. */
uint64_t rs_config_hash(const rs_config *cfg);

/* Unit parsers, exported for the CLI and tests.  0 on success. */
int rs_parse_size(const char *s, uint64_t *r_bytes);
int rs_parse_duration(const char *s, uint64_t *r_ns);
int rs_parse_int(const char *s, int64_t *r_v);
int rs_parse_double(const char *s, double *r_v);
int rs_parse_bool(const char *s, int *r_v);
/* Check one value against a type; 0 when it parses. */
int rs_param_check(rs_ptype type, const char *value);
/* Check a value that parses against p->range: 0 when inside it (or p has
 * no range), else -1 with what is expected ("expected 1..65535", "must be
 * > 0", ...) in why. */
int rs_param_check_range(const rs_param *p, const char *value, char *why, size_t why_size);
/* The index of value in p->choices, or -1 when it is none of them (or p
 * has no choices). */
int rs_param_choice(const rs_param *p, const char *value);
/* 0 when value is one of p->choices (or p has none), else -1 with
 * "expected one of a, b, c" in why. */
int rs_param_check_choice(const rs_param *p, const char *value, char *why, size_t why_size);
const char *rs_ptype_name(rs_ptype type);

/* The declaration of key in a NULL-terminated table, or NULL. */
const rs_param *rs_param_find(const rs_param *table, const char *key);

#endif
