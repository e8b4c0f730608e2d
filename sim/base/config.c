/*
 * config.c — key = value parameters with Ceph-style units; see config.h.
 *
 * Entries keep where they came from ("presets/x.conf:12", "--set") so a bad
 * value is reported where the user wrote it.  Declarations are looked up in
 * the config's schema: one explicit table (generators, tests), or a schema
 * the caller supplies (sim/schema.c: the core parameters and every plug-in's,
 * with the checks that need the registry).  This file depends on nothing but
 * err.h: it is a bottom-layer helper.
 */
#include "config.h"
#include "vec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *key;
    char *value;
    char *origin; /* "file:line" or "--set", for messages */
    int from_file; /* set by rs_config_load_file (a preset), not by the user */
    unsigned long reads; /* typed getter calls that returned this value */
} entry;

struct rs_config {
    entry *v;
    size_t n, cap;
    const rs_param *table;        /* one explicit table, or NULL */
    const rs_config_schema *schema; /* used when table is NULL */
};

static int config_new(rs_config **r_cfg, const rs_param *table, const rs_config_schema *schema,
                      rs_err *err)
{
    rs_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return rs_fail(err, RS_ENOMEM, "out of memory for a config");
    cfg->table = table;
    cfg->schema = schema;
    *r_cfg = cfg;
    return 0;
}

int rs_config_new_with(rs_config **r_cfg, const rs_param *schema, rs_err *err)
{
    return config_new(r_cfg, schema, NULL, err);
}

int rs_config_new_schema(rs_config **r_cfg, const rs_config_schema *schema, rs_err *err)
{
    return config_new(r_cfg, NULL, schema, err);
}

void rs_config_free(rs_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->n; i++) {
        free(cfg->v[i].key);
        free(cfg->v[i].value);
        free(cfg->v[i].origin);
    }
    free(cfg->v);
    free(cfg);
}

static entry *find(const rs_config *cfg, const char *key)
{
    for (size_t i = 0; i < cfg->n; i++)
        if (strcmp(cfg->v[i].key, key) == 0)
            return &cfg->v[i];
    return NULL;
}

static int set_origin(rs_config *cfg, const char *key, const char *value,
                      const char *origin, int from_file, rs_err *err)
{
    entry *e = find(cfg, key);
    char *v = strdup(value), *o = strdup(origin ? origin : "--set");

    if (!v || !o) {
        free(v);
        free(o);
        return rs_fail(err, RS_ENOMEM, "out of memory setting '%s'", key);
    }
    if (e) {
        free(e->value);
        free(e->origin);
        e->value = v;
        e->origin = o;
        e->from_file = from_file;
        e->reads = 0;
        return 0;
    }
    if (RS_VEC_RESERVE(cfg->v, cfg->cap, cfg->n + 1, 16)) {
        free(v);
        free(o);
        return rs_fail(err, RS_ENOMEM, "out of memory setting '%s'", key);
    }
    e = &cfg->v[cfg->n];
    e->key = strdup(key);
    if (!e->key) {
        free(v);
        free(o);
        return rs_fail(err, RS_ENOMEM, "out of memory setting '%s'", key);
    }
    e->value = v;
    e->origin = o;
    e->from_file = from_file;
    e->reads = 0;
    cfg->n++;
    return 0;
}

int rs_config_set(rs_config *cfg, const char *key, const char *value, rs_err *err)
{
    return set_origin(cfg, key, value, "--set", 0, err);
}

int rs_config_clone(const rs_config *cfg, rs_config **r_copy, rs_err *err)
{
    rs_config *c = NULL;
    int rc = config_new(&c, cfg->table, cfg->schema, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < cfg->n; i++) {
        rc = set_origin(c, cfg->v[i].key, cfg->v[i].value, cfg->v[i].origin, cfg->v[i].from_file, err);
        if (rc) {
            rs_config_free(c);
            return rc;
        }
    }
    *r_copy = c;
    return 0;
}

/* Trim leading and trailing white space in place; returns the start. */
static char *strip(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static int set_line(rs_config *cfg, char *line, const char *origin, int from_file, rs_err *err)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return rs_fail(err, RS_EINPUT, "%s: expected key=value, got '%s'", origin, strip(line));
    *eq = '\0';
    char *key = strip(line), *value = strip(eq + 1);
    if (!*key)
        return rs_fail(err, RS_EINPUT, "%s: empty key before '='", origin);
    if (!*value)
        return rs_fail(err, RS_EINPUT, "%s: empty value for key '%s'", origin, key);
    /* a preset names each key once: a second line for it is a mistake, not
     * an override (which is what --set is for) */
    const entry *prev = from_file ? find(cfg, key) : NULL;
    if (prev && prev->from_file) {
        const char *colon = strrchr(origin, ':'); /* origin is "path:line" */
        size_t n = colon ? (size_t)(colon - origin) + 1 : 0;
        if (n && !strncmp(prev->origin, origin, n) && !strchr(prev->origin + n, ':'))
            return rs_fail(err, RS_EINPUT, "%s: key '%s' given twice (first at %s)", origin, key,
                           prev->origin);
    }
    return set_origin(cfg, key, value, origin, from_file, err);
}

int rs_config_set_kv(rs_config *cfg, const char *kv, const char *origin, rs_err *err)
{
    char buf[1024];
    if (strlen(kv) >= sizeof buf)
        return rs_fail(err, RS_EINPUT, "%s: setting too long: '%.40s...'", origin, kv);
    snprintf(buf, sizeof buf, "%s", kv);
    return set_line(cfg, buf, origin ? origin : "--set", 0, err);
}

int rs_config_load_file(rs_config *cfg, const char *path, rs_err *err)
{
    FILE *f = fopen(path, "r");
    char line[1024], origin[1100];
    unsigned long lineno = 0;
    int rc = 0;

    if (!f)
        return rs_fail(err, RS_EINPUT, "cannot open preset '%s': %s", path, strerror(errno));
    long pos = ftell(f);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(origin, sizeof origin, "%s:%lu", path, lineno);
        /* fgets stops at a newline, not at a NUL, which would hide the rest
         * of the line: the bytes read must be the string's length */
        long next = ftell(f);
        size_t len = strlen(line);
        if (pos >= 0 && next >= 0 && (size_t)(next - pos) != len) {
            rc = rs_fail(err, RS_EINPUT, "%s: NUL byte at column %zu (a preset is text)", origin,
                         len + 1);
            break;
        }
        pos = next;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = rs_fail(err, RS_EINPUT, "%s: line too long (more than %zu bytes)", origin,
                         sizeof line - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = strip(line);
        if (!*s)
            continue;
        rc = set_line(cfg, s, origin, 1, err);
        if (rc)
            break;
    }
    if (!rc && ferror(f))
        rc = rs_fail(err, RS_EIO, "cannot read preset '%s'", path);
    fclose(f);
    return rc;
}

const rs_param *rs_param_find(const rs_param *table, const char *key)
{
    for (const rs_param *p = table; p && p->key; p++)
        if (strcmp(p->key, key) == 0)
            return p;
    return NULL;
}

const rs_param *rs_config_param(const rs_config *cfg, const char *key)
{
    if (cfg->table)
        return rs_param_find(cfg->table, key);
    return cfg->schema ? cfg->schema->lookup(cfg->schema->ctx, key) : NULL;
}

/* ---- unit parsers ---------------------------------------------------- */

static int parse_number(const char *s, double *r_v, const char **r_end)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v))
        return -1;
    *r_v = v;
    *r_end = end;
    return 0;
}

int rs_parse_size(const char *s, uint64_t *r_bytes)
{
    static const struct { const char *suffix; double mult; } units[] = {
        { "", 1.0 }, { "B", 1.0 },
        { "K", 1024.0 }, { "KB", 1024.0 }, { "Ki", 1024.0 }, { "KiB", 1024.0 }, { "k", 1024.0 },
        { "M", 1048576.0 }, { "MB", 1048576.0 }, { "Mi", 1048576.0 }, { "MiB", 1048576.0 },
        { "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "Gi", 1073741824.0 }, { "GiB", 1073741824.0 },
        { "T", 1099511627776.0 }, { "TB", 1099511627776.0 }, { "Ti", 1099511627776.0 },
        { "TiB", 1099511627776.0 },
    };
    const char *end;
    double v;

    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-' || parse_number(s, &v, &end))
        return -1;
    if (*s == '+')
        return -1;
    while (*end == ' ' || *end == '_')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double b = v * units[i].mult;
            if (b < 0 || b > 1.8e19)
                return -1;
            *r_bytes = (uint64_t)llround(b);
            return 0;
        }
    }
    return -1;
}

int rs_parse_duration(const char *s, uint64_t *r_ns)
{
    static const struct { const char *suffix; double mult; } units[] = {
        { "", 1e9 }, { "s", 1e9 }, { "sec", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
        { "ns", 1.0 }, { "min", 60e9 }, { "h", 3600e9 },
    };
    const char *end;
    double v;

    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-' || *s == '+' || parse_number(s, &v, &end))
        return -1;
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double ns = v * units[i].mult;
            if (ns < 0 || ns > 9.2e18)
                return -1;
            *r_ns = (uint64_t)llround(ns);
            return 0;
        }
    }
    return -1;
}

int rs_parse_int(const char *s, int64_t *r_v)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE)
        return -1;
    *r_v = v;
    return 0;
}

int rs_parse_double(const char *s, double *r_v)
{
    const char *end;
    double v;
    if (parse_number(s, &v, &end) || *end)
        return -1;
    *r_v = v;
    return 0;
}

int rs_parse_bool(const char *s, int *r_v)
{
    static const char *yes[] = { "true", "1", "yes", "on" }, *no[] = { "false", "0", "no", "off" };
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *r_v = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *r_v = 0;
            return 0;
        }
    }
    return -1;
}

const char *rs_ptype_name(rs_ptype type)
{
    switch (type) {
    case RS_PT_SIZE: return "size (bytes; K/M/G/T)";
    case RS_PT_DURATION: return "duration (ns/us/ms/s; bare number = s)";
    case RS_PT_INT: return "integer";
    case RS_PT_DOUBLE: return "number";
    case RS_PT_BOOL: return "boolean (true/false)";
    case RS_PT_STRING: return "string";
    }
    return "?";
}

/* value as a number of its type (sizes and durations in bytes and ns). */
static int param_number(rs_ptype type, const char *value, double *r_v)
{
    uint64_t u;
    int64_t i;
    switch (type) {
    case RS_PT_SIZE: return rs_parse_size(value, &u) ? -1 : (*r_v = (double)u, 0);
    case RS_PT_DURATION: return rs_parse_duration(value, &u) ? -1 : (*r_v = (double)u, 0);
    case RS_PT_INT: return rs_parse_int(value, &i) ? -1 : (*r_v = (double)i, 0);
    case RS_PT_DOUBLE: return rs_parse_double(value, r_v);
    default: return -1;
    }
}

/* A range "[lo, hi)": its brackets and bound texts (empty = unbounded). */
typedef struct range {
    char lo[32], hi[32];
    int lo_open, hi_open;
} range;

static void bound_text(char *dst, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(dst, 32, "%.*s", (int)n, s);
}

static int range_parse(const char *text, range *r)
{
    size_t len = strlen(text);
    const char *comma = strchr(text, ',');
    if (len < 3 || !comma || (text[0] != '[' && text[0] != '(') ||
        (text[len - 1] != ']' && text[len - 1] != ')'))
        return -1;
    r->lo_open = text[0] == '(';
    r->hi_open = text[len - 1] == ')';
    bound_text(r->lo, text + 1, (size_t)(comma - text - 1));
    bound_text(r->hi, comma + 1, (size_t)(text + len - 1 - comma - 1));
    return 0;
}

int rs_param_check_range(const rs_param *p, const char *value, char *why, size_t why_size)
{
    range r;
    double v, lo = 0, hi = 0;
    if (!p->range)
        return 0;
    if (range_parse(p->range, &r) || param_number(p->type, value, &v) ||
        (*r.lo && param_number(p->type, r.lo, &lo)) || (*r.hi && param_number(p->type, r.hi, &hi))) {
        snprintf(why, why_size, "expected a value in %s", p->range);
        return -1;
    }
    if ((!*r.lo || (r.lo_open ? v > lo : v >= lo)) && (!*r.hi || (r.hi_open ? v < hi : v <= hi)))
        return 0;
    if (*r.lo && *r.hi && !r.lo_open && !r.hi_open)
        snprintf(why, why_size, "expected %s..%s", r.lo, r.hi);
    else if (!*r.hi)
        snprintf(why, why_size, "must be %s %s", r.lo_open ? ">" : ">=", r.lo);
    else if (!*r.lo)
        snprintf(why, why_size, "must be %s %s", r.hi_open ? "<" : "<=", r.hi);
    else
        snprintf(why, why_size, "expected %s %s x %s %s", r.lo, r.lo_open ? "<" : "<=",
                 r.hi_open ? "<" : "<=", r.hi);
    return -1;
}

int rs_param_choice(const rs_param *p, const char *value)
{
    size_t len = strlen(value);
    int i = 0;
    for (const char *c = p->choices; c; i++) {
        size_t n = strcspn(c, "|");
        if (n == len && memcmp(c, value, n) == 0)
            return i;
        c = c[n] ? c + n + 1 : NULL;
    }
    return -1;
}

int rs_param_check_choice(const rs_param *p, const char *value, char *why, size_t why_size)
{
    if (!p->choices || rs_param_choice(p, value) >= 0)
        return 0;
    size_t n = (size_t)snprintf(why, why_size, "expected one of ");
    for (const char *c = p->choices; *c && n < why_size; c++)
        n += (size_t)snprintf(why + n, why_size - n, *c == '|' ? ", " : "%c", *c);
    return -1;
}

int rs_param_check(rs_ptype type, const char *value)
{
    uint64_t u;
    int64_t i;
    double d;
    int b;

    switch (type) {
    case RS_PT_SIZE: return rs_parse_size(value, &u);
    case RS_PT_DURATION: return rs_parse_duration(value, &u);
    case RS_PT_INT: return rs_parse_int(value, &i);
    case RS_PT_DOUBLE: return rs_parse_double(value, &d);
    case RS_PT_BOOL: return rs_parse_bool(value, &b);
    case RS_PT_STRING: return *value ? 0 : -1;
    }
    return -1;
}

int rs_config_validate(const rs_config *cfg, rs_err *err)
{
    for (size_t i = 0; i < cfg->n; i++) {
        const entry *e = &cfg->v[i];
        const rs_param *p = rs_config_param(cfg, e->key);
        if (!p)
            return rs_fail(err, RS_EINPUT, "%s: unknown key '%s' (value '%s'; see 'rssim list')",
                           e->origin, e->key, e->value);
        if (rs_param_check(p->type, e->value))
            return rs_fail(err, RS_EINPUT, "%s: bad value '%s' for key '%s': expected %s",
                           e->origin, e->value, e->key, rs_ptype_name(p->type));
        char why[256];
        if (rs_param_check_range(p, e->value, why, sizeof why) ||
            rs_param_check_choice(p, e->value, why, sizeof why))
            return rs_fail(err, RS_EINPUT, "%s: bad value '%s' for key '%s': %s", e->origin,
                           e->value, e->key, why);
    }
    if (!cfg->table && cfg->schema && cfg->schema->check)
        return cfg->schema->check(cfg->schema->ctx, cfg, err);
    return 0;
}

size_t rs_config_count(const rs_config *cfg)
{
    return cfg->n;
}

void rs_config_at(const rs_config *cfg, size_t i, const char **r_key, const char **r_value)
{
    *r_key = cfg->v[i].key;
    *r_value = cfg->v[i].value;
}

int rs_config_was_read(const rs_config *cfg, const char *key)
{
    const entry *e = find(cfg, key);
    return e && e->reads > 0;
}

int rs_config_from_file(const rs_config *cfg, const char *key)
{
    const entry *e = find(cfg, key);
    return e && e->from_file;
}

void rs_config_unset(rs_config *cfg, const char *key)
{
    entry *e = find(cfg, key);
    if (!e)
        return;
    free(e->key);
    free(e->value);
    free(e->origin);
    size_t i = (size_t)(e - cfg->v);
    memmove(e, e + 1, (cfg->n - i - 1) * sizeof *e);
    cfg->n--;
}

const char *rs_config_origin(const rs_config *cfg, const char *key)
{
    const entry *e = find(cfg, key);
    return e ? e->origin : "(default)";
}

const char *rs_config_raw(const rs_config *cfg, const char *key)
{
    entry *e = find(cfg, key);
    if (!e)
        return NULL;
    e->reads++;
    return e->value;
}

/* The value to parse for key: the set one if it parses, else the default. */
static const char *value_of(const rs_config *cfg, const char *key, rs_ptype type)
{
    const rs_param *p = rs_config_param(cfg, key);
    entry *e = find(cfg, key);

    if (e && (!p || rs_param_check(p->type, e->value) == 0)) {
        e->reads++; /* bookkeeping only: the entries are the config's own heap memory */
        return e->value;
    }
    if (p && p->type == type)
        return p->def;
    return NULL;
}

/* The typed getters: the set value if it parses as the key's type, else
 * the key's default, parsed; 0 when neither is there. */
#define GETTER(ret, name, ptype, parse)                                        \
    ret name(const rs_config *cfg, const char *key)                            \
    {                                                                          \
        ret v = 0;                                                             \
        const char *s = value_of(cfg, key, ptype);                             \
        if (s)                                                                 \
            parse(s, &v);                                                      \
        return v;                                                              \
    }
GETTER(uint64_t, rs_config_size, RS_PT_SIZE, rs_parse_size)
GETTER(uint64_t, rs_config_duration_ns, RS_PT_DURATION, rs_parse_duration)
GETTER(int64_t, rs_config_int, RS_PT_INT, rs_parse_int)
GETTER(double, rs_config_double, RS_PT_DOUBLE, rs_parse_double)
GETTER(int, rs_config_bool, RS_PT_BOOL, rs_parse_bool)
#undef GETTER

const char *rs_config_string(const rs_config *cfg, const char *key)
{
    const char *s = value_of(cfg, key, RS_PT_STRING);
    return s ? s : "";
}

int rs_config_choice(const rs_config *cfg, const char *key)
{
    const rs_param *p = rs_config_param(cfg, key);
    return p ? rs_param_choice(p, rs_config_string(cfg, key)) : -1;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp((*(const entry *const *)a)->key, (*(const entry *const *)b)->key);
}

uint64_t rs_config_hash(const rs_config *cfg)
{
    uint64_t h = 1469598103934665603ull;
    const entry **sorted = malloc((cfg->n ? cfg->n : 1) * sizeof *sorted);

    if (!sorted)
        return 0;
    for (size_t i = 0; i < cfg->n; i++)
        sorted[i] = &cfg->v[i];
    qsort(sorted, cfg->n, sizeof *sorted, cmp_entry);
    for (size_t i = 0; i < cfg->n; i++) {
        for (const char *s = sorted[i]->key; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        h = (h ^ '=') * 1099511628211ull;
        for (const char *s = sorted[i]->value; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        h = (h ^ '\n') * 1099511628211ull;
    }
    free(sorted);
    return h;
}

int rs_config_bad_value(const rs_config *cfg, const char *key, const char *why, rs_err *err)
{
    const char *v = rs_config_raw(cfg, key);
    const rs_param *p = v ? NULL : rs_config_param(cfg, key);
    return rs_fail(err, RS_EINPUT, "bad value '%s' for key '%s': %s", v ? v : p ? p->def : "", key,
                   why);
}
