/*
 * foreign.h — what the readers of other tools' traces share (internal to
 * traces/).
 *
 * A foreign reader is a trace codec with open_foreign (trace.h): it reads
 * a trace rssim does not write (libCacheSim's oracleGeneral, csv and txt,
 * glibc mtrace logs, block lists, MSR-Cambridge CSV) from the reader's
 * bounded buffer and returns rssim records, so `rssim replay --format` and
 * `rssim trace import --from` run them without an intermediate file.
 *
 * Each reader's state starts with an rs_foreign: the line (or record)
 * count and one line buffer of RS_FOREIGN_LINE_MAX bytes, so memory is
 * bounded whatever the input.  A spec is "k=v,k=v" (libCacheSim's reader
 * parameter syntax, including "delimiter=,,"): each reader lists the keys
 * it reads, and any other key, or one given twice, is an error naming it.
 * Every input error is "PATH:LINE: what" (binary: "PATH:N: record N at
 * byte B: what").
 */
#ifndef RS_TRACE_FOREIGN_H
#define RS_TRACE_FOREIGN_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define RS_FOREIGN_LINE_MAX 4096 /* bytes of one line, its end included */
/* The most records one input line may become (a csv count column, a block
 * I/O split into pages or objects): import_block.h's per-I/O limit. */
#define RS_FOREIGN_MAX_RECORDS_PER_LINE 65536ull

#define RS_SPEC_MAX 16

typedef struct rs_spec {
    const char *codec; /* for messages */
    size_t n;
    struct {
        char key[32];
        char val[128];
        int used;
    } f[RS_SPEC_MAX];
} rs_spec;

/* Parse text ("k=v,k=v"; '_' in a key is read as '-') for codec; each key
 * must be one of known (NULL-terminated) and given once. */
int rs_spec_parse(rs_spec *s, const char *codec, const char *text, const char *const *known,
                  rs_err *err);
/* The value of key, or NULL when the spec does not give it. */
const char *rs_spec_get(const rs_spec *s, const char *key);
/* Typed values: def when absent; a bad value is an error naming the key. */
int rs_spec_u64(const rs_spec *s, const char *key, uint64_t def, uint64_t min, uint64_t max,
                uint64_t *r_v, rs_err *err);
int rs_spec_size(const rs_spec *s, const char *key, uint64_t def, uint64_t min, uint64_t max,
                 uint64_t *r_v, rs_err *err);
int rs_spec_duration(const rs_spec *s, const char *key, uint64_t def, uint64_t *r_ns, rs_err *err);
int rs_spec_bool(const rs_spec *s, const char *key, int def, int *r_v, rs_err *err);
/* One of choices (NULL-terminated): its index in *r_i; def when absent. */
int rs_spec_choice(const rs_spec *s, const char *key, const char *const *choices, int def,
                   int *r_i, rs_err *err);

typedef struct rs_foreign {
    uint64_t lineno;  /* lines (binary: records) read so far */
    uint64_t records; /* records returned so far */
    char line[RS_FOREIGN_LINE_MAX + 1];
} rs_foreign;

/* The next line (its '\n' and a '\r' before it removed) into f->line,
 * NUL-terminated; tr->line = its number.  1 = a line, 0 = the end.  A line
 * of RS_FOREIGN_LINE_MAX bytes or more, or a NUL byte in one, fails. */
int rs_foreign_line(rs_trace *tr, rs_foreign *f, rs_err *err);
/* The next n-byte record at *r_p (inside tr->buf, valid until the next
 * call); tr->line = its number.  1 = a record, 0 = the end; a partial
 * record at the end fails naming its byte offset. */
int rs_foreign_bytes_slow(rs_trace *tr, rs_foreign *f, size_t n, const uint8_t **r_p, rs_err *err);
static inline int rs_foreign_bytes(rs_trace *tr, rs_foreign *f, size_t n, const uint8_t **r_p,
                                   rs_err *err)
{
    if (RS_UNLIKELY(tr->len - tr->pos < n))
        return rs_foreign_bytes_slow(tr, f, n, r_p, err);
    *r_p = tr->buf + tr->pos;
    tr->pos += n;
    f->lineno++;
    return 1;
}
/* Check rec by the rules of an rssim trace, count it and set tr->line
 * past the line it came from: 1, or an error. */
int rs_foreign_emit_fail(rs_trace *tr, rs_foreign *f, const rs_rec *rec, int fault, rs_err *err);
static inline int rs_foreign_emit(rs_trace *tr, rs_foreign *f, const rs_rec *rec, rs_err *err)
{
    int fault = rs_rec_fault(tr->op_class, tr->prev_t_ns, rec);
    if (RS_UNLIKELY(fault))
        return rs_foreign_emit_fail(tr, f, rec, fault, err);
    tr->prev_t_ns = rec->t_ns;
    tr->line = f->lineno + 1;
    f->records++;
    return 1;
}

/* s without leading and trailing blanks (in place). */
char *rs_foreign_trim(char *s);
/* A decimal (or 0x hex) u64 of the whole of s: 0, or -1 when s is not one. */
int rs_foreign_u64(const char *s, uint64_t *r_v);
/* FNV-1a 64 of n bytes (non-numeric object ids). */
uint64_t rs_foreign_hash(const char *s, size_t n);

#endif
