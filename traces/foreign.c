/*
 * foreign.c — specs, line and record reading and the record check the
 * foreign readers share; see foreign.h.
 */
#include "foreign.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../sim/base/config.h"

static int spec_fail(const rs_spec *s, rs_err *err, const char *key, const char *why)
{
    return rs_fail(err, RS_EINPUT, "%s spec: field '%s': %s", s->codec, key, why);
}

int rs_spec_parse(rs_spec *s, const char *codec, const char *text, const char *const *known,
                  rs_err *err)
{
    const char *p = text;

    memset(s, 0, sizeof *s);
    s->codec = codec;
    while (*p) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        char key[32];
        size_t kn;

        if (!eq || (comma && comma < eq)) {
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            return rs_fail(err, RS_EINPUT, "%s spec: '%.*s' is not key=value", codec, (int)n, p);
        }
        kn = (size_t)(eq - p);
        if (kn == 0 || kn >= sizeof key)
            return rs_fail(err, RS_EINPUT, "%s spec: bad field name '%.*s'", codec, (int)kn, p);
        for (size_t i = 0; i < kn; i++)
            key[i] = p[i] == '_' ? '-' : p[i];
        key[kn] = '\0';
        int k = 0;
        while (known[k] && strcasecmp(known[k], key) != 0)
            k++;
        if (!known[k]) {
            char list[256];
            size_t n = 0;
            list[0] = '\0';
            for (int j = 0; known[j] && n < sizeof list; j++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "", known[j]);
            return rs_fail(err, RS_EINPUT, "%s spec: unknown field '%s' (known: %s)", codec, key,
                           list);
        }
        if (rs_spec_get(s, known[k]))
            return rs_fail(err, RS_EINPUT, "%s spec: field '%s' given twice", codec, known[k]);
        if (s->n == RS_SPEC_MAX)
            return rs_fail(err, RS_EINPUT, "%s spec: more than %d fields", codec, RS_SPEC_MAX);
        const char *v = eq + 1, *end = strchr(v, ',');
        size_t vn = end ? (size_t)(end - v) : strlen(v);
        if (vn >= sizeof s->f[0].val)
            return rs_fail(err, RS_EINPUT, "%s spec: field '%s': value longer than %zu bytes", codec,
                           known[k], sizeof s->f[0].val - 1);
        snprintf(s->f[s->n].key, sizeof s->f[0].key, "%s", known[k]);
        memcpy(s->f[s->n].val, v, vn);
        s->f[s->n].val[vn] = '\0';
        if (vn == 0 && end && !strcmp(known[k], "delimiter")) {
            memcpy(s->f[s->n].val, ",", 2); /* libCacheSim's "delimiter=,," */
            end++;
        }
        s->n++;
        p = end ? end + 1 : v + vn;
        while (*p == ' ')
            p++;
    }
    return 0;
}

const char *rs_spec_get(const rs_spec *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->f[i].key, key))
            return s->f[i].val;
    return NULL;
}

int rs_spec_u64(const rs_spec *s, const char *key, uint64_t def, uint64_t min, uint64_t max,
                uint64_t *r_v, rs_err *err)
{
    const char *v = rs_spec_get(s, key);
    char why[128];

    *r_v = def;
    if (!v)
        return 0;
    if (rs_foreign_u64(v, r_v) || *r_v < min || *r_v > max) {
        snprintf(why, sizeof why, "'%s' is not a number in %llu .. %llu", v,
                 (unsigned long long)min, (unsigned long long)max);
        return spec_fail(s, err, key, why);
    }
    return 0;
}

int rs_spec_size(const rs_spec *s, const char *key, uint64_t def, uint64_t min, uint64_t max,
                 uint64_t *r_v, rs_err *err)
{
    const char *v = rs_spec_get(s, key);
    char why[160];

    *r_v = def;
    if (!v)
        return 0;
    if (rs_parse_size(v, r_v) != 0 || *r_v < min || *r_v > max) {
        snprintf(why, sizeof why, "'%s' is not a size in %llu .. %llu bytes (e.g. 4K)", v,
                 (unsigned long long)min, (unsigned long long)max);
        return spec_fail(s, err, key, why);
    }
    return 0;
}

int rs_spec_duration(const rs_spec *s, const char *key, uint64_t def, uint64_t *r_ns, rs_err *err)
{
    const char *v = rs_spec_get(s, key);
    char why[160];

    *r_ns = def;
    if (v && rs_parse_duration(v, r_ns) != 0) {
        snprintf(why, sizeof why, "'%s' is not a duration (e.g. 1s, 10us)", v);
        return spec_fail(s, err, key, why);
    }
    return 0;
}

int rs_spec_bool(const rs_spec *s, const char *key, int def, int *r_v, rs_err *err)
{
    const char *v = rs_spec_get(s, key);
    char why[128];

    *r_v = def;
    if (v && rs_parse_bool(v, r_v) != 0) {
        snprintf(why, sizeof why, "'%s' is not true or false", v);
        return spec_fail(s, err, key, why);
    }
    return 0;
}

int rs_spec_choice(const rs_spec *s, const char *key, const char *const *choices, int def,
                   int *r_i, rs_err *err)
{
    const char *v = rs_spec_get(s, key);
    char why[160];
    size_t n = 0;

    *r_i = def;
    if (!v)
        return 0;
    for (int i = 0; choices[i]; i++)
        if (!strcasecmp(choices[i], v)) {
            *r_i = i;
            return 0;
        }
    n = (size_t)snprintf(why, sizeof why, "'%s' is not one of", v);
    for (int i = 0; choices[i] && n < sizeof why; i++)
        n += (size_t)snprintf(why + n, sizeof why - n, "%s %s", i ? "," : "", choices[i]);
    return spec_fail(s, err, key, why);
}

int rs_foreign_line(rs_trace *tr, rs_foreign *f, rs_err *err)
{
    const uint8_t *nl;
    size_t avail;
    int rc;

    tr->line = f->lineno + 1;
    for (;;) {
        avail = tr->len - tr->pos;
        nl = memchr(tr->buf + tr->pos, '\n', avail < RS_FOREIGN_LINE_MAX ? avail : RS_FOREIGN_LINE_MAX);
        if (nl || avail >= RS_FOREIGN_LINE_MAX || tr->eof)
            break;
        if ((rc = rs_trace_fill(tr, avail + 1, err)))
            return rc;
    }
    if (!nl && avail >= RS_FOREIGN_LINE_MAX)
        return rs_trace_fail(tr, err, "line too long (more than %d bytes)", RS_FOREIGN_LINE_MAX - 1);
    if (!nl && avail == 0)
        return 0;
    size_t n = nl ? (size_t)(nl - (tr->buf + tr->pos)) : avail;
    memcpy(f->line, tr->buf + tr->pos, n);
    tr->pos += n + (nl != NULL);
    f->lineno++;
    if (n && f->line[n - 1] == '\r')
        n--;
    f->line[n] = '\0';
    if (strlen(f->line) != n)
        return rs_trace_fail(tr, err, "NUL byte at column %zu", strlen(f->line) + 1);
    return 1;
}

int rs_foreign_bytes_slow(rs_trace *tr, rs_foreign *f, size_t n, const uint8_t **r_p, rs_err *err)
{
    int rc;

    tr->line = f->lineno + 1;
    {
        if ((rc = rs_trace_fill(tr, n, err)))
            return rc;
        if (tr->len - tr->pos == 0)
            return 0;
        if (tr->len - tr->pos < n)
            return rs_trace_fail(tr, err, "record %llu at byte %llu: truncated: %zu of %zu bytes",
                                 (unsigned long long)tr->line,
                                 (unsigned long long)(f->lineno * n), tr->len - tr->pos, n);
    }
    *r_p = tr->buf + tr->pos;
    tr->pos += n;
    f->lineno++;
    return 1;
}

int rs_foreign_emit_fail(rs_trace *tr, rs_foreign *f, const rs_rec *rec, int fault, rs_err *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%llu", tr->path, (unsigned long long)f->lineno);
    return rs_rec_fail(err, where, fault, tr->prev_t_ns, rec, tr->daemon_id);
}

char *rs_foreign_trim(char *s)
{
    size_t n;
    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

int rs_foreign_u64(const char *s, uint64_t *r_v)
{
    uint64_t v = 0;
    int base = 10;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s)
        return -1;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + d;
    }
    *r_v = v;
    return 0;
}

uint64_t rs_foreign_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis and prime */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}
