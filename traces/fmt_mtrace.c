/*
 * fmt_mtrace.c — glibc mtrace(3) logs read as allocation traces.
 *
 * The log's lines (glibc malloc/mtrace-impl.c since 2.34, malloc/mtrace.c
 * before): "= Start" / "= End"; an optional caller "@ WHERE[0xCALLER] " in
 * front of each of
 *   + PTR SIZE   malloc, calloc, memalign, realloc(NULL, n)  -> MALLOC
 *   - PTR        free, realloc(p, 0)                         -> FREE
 *   < PTR        realloc(p, n): the old block ...            -> FREE
 *   > PTR SIZE   ... and the new one                         -> MALLOC
 *   ! PTR SIZE   a failed realloc (p stays allocated)        -> nothing
 * PTR is "%p" ("(nil)" for NULL: a failed malloc or free(NULL), nothing),
 * SIZE "%#lx".  As real/record.c writes allocation traces, each MALLOC gets
 * a new handle counting up from 1 (addresses are reused, handles never),
 * a FREE carries its block's size, malloc(0) is recorded as 1 byte, thread
 * 0; the log has no times, so call i is at i x interval.
 *
 * The live blocks are a hash table (address -> handle, size), bounded by
 * MT_MAX_LIVE: a log holding more live blocks at once is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "../sim/base/hash.h"
#include "foreign.h"

#define MT_MAX_LIVE ((uint64_t)1 << 22)

typedef struct mt_slot {
    uint64_t addr; /* 0 = empty */
    uint64_t handle, size;
} mt_slot;

typedef struct mt_state {
    rs_foreign f;
    uint64_t interval_ns;
    int skip_unknown;     /* a free of an address not allocated in the log */
    uint64_t next_handle;
    uint64_t calls;       /* records so far: the time index */
    mt_slot *slots;
    uint64_t cap, live;   /* cap: a power of two */
} mt_state;

static void mt_free(void *p)
{
    mt_state *st = p;
    if (st)
        free(st->slots);
    free(st);
}

static mt_slot *mt_find(mt_state *st, uint64_t addr)
{
    for (uint64_t i = rs_hash64(addr) & (st->cap - 1);; i = (i + 1) & (st->cap - 1))
        if (st->slots[i].addr == addr || st->slots[i].addr == 0)
            return &st->slots[i];
}

/* Remove s (linear probing: move back the entries after it). */
static void mt_remove(mt_state *st, mt_slot *s)
{
    uint64_t i = (uint64_t)(s - st->slots), j = i;
    for (;;) {
        st->slots[i].addr = 0;
        for (;;) {
            j = (j + 1) & (st->cap - 1);
            if (st->slots[j].addr == 0) {
                st->live--;
                return;
            }
            uint64_t home = rs_hash64(st->slots[j].addr) & (st->cap - 1);
            /* j's entry may move to i unless its home lies in (i, j] */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        st->slots[i] = st->slots[j];
        i = j;
    }
}

static int mt_grow(mt_state *st, rs_err *err)
{
    uint64_t old_cap = st->cap;
    mt_slot *old = st->slots;

    st->cap = old_cap ? old_cap * 2 : 1024;
    if (!(st->slots = calloc(st->cap, sizeof *st->slots))) {
        st->slots = old;
        st->cap = old_cap;
        return rs_fail(err, RS_ENOMEM, "out of memory for %llu live blocks",
                       (unsigned long long)st->live);
    }
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i].addr)
            *mt_find(st, old[i].addr) = old[i];
    free(old);
    return 0;
}

/* A "%p" field: 0 for "(nil)", else a hex address. */
static int ptr_field(rs_trace *tr, const char *s, uint64_t *r_addr, rs_err *err)
{
    char q[64 * 4];
    if (!strcmp(s, "(nil)")) {
        *r_addr = 0;
        return 0;
    }
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || rs_foreign_u64(s, r_addr) || *r_addr == 0)
        return rs_trace_fail(tr, err, "field address: '%s' is not a 0x pointer",
                             rs_quote(q, sizeof q, s, strlen(s)));
    return 0;
}

static int size_field(rs_trace *tr, const char *s, uint64_t *r_size, rs_err *err)
{
    char q[64 * 4];
    if (rs_foreign_u64(s, r_size))
        return rs_trace_fail(tr, err, "field size: '%s' is not a number",
                             rs_quote(q, sizeof q, s, strlen(s)));
    if (*r_size == 0)
        *r_size = 1; /* malloc(0): the format needs size > 0 (as real/record.c) */
    if (*r_size > RS_REC_MALLOC_MAX_BYTES)
        return rs_trace_fail(tr, err, "field size: %llu bytes, more than a MALLOC may be (%llu)",
                             (unsigned long long)*r_size,
                             (unsigned long long)RS_REC_MALLOC_MAX_BYTES);
    return 0;
}

/* One line: 1 = a record in *r_rec, 0 = none. */
static int mt_line(rs_trace *tr, mt_state *st, char *s, rs_rec *r_rec, rs_err *err)
{
    char *f[4], q[64 * 4], op;
    uint64_t addr, size = 0;
    int n = 0, rc;

    if (s[0] == '=' && (s[1] == ' ' || !s[1]))
        return 0; /* = Start, = End */
    if (s[0] == '@' && s[1] == ' ') {
        char *end = strstr(s, "] ");
        if (!end)
            return rs_trace_fail(tr, err, "field caller: '@' without '[0xADDR] ' after it");
        s = end + 2;
    }
    for (;;) {
        s += strspn(s, " \t");
        if (!*s)
            break;
        if (n == 3)
            return rs_trace_fail(tr, err, "wrong field count: more than 3 after the caller");
        f[n++] = s;
        s += strcspn(s, " \t");
        if (*s)
            *s++ = '\0';
    }
    if (n == 0 || strlen(f[0]) != 1 || !strchr("+-<>!", f[0][0]))
        return rs_trace_fail(tr, err, "field op: '%s' is not one of + - < > !",
                             n ? rs_quote(q, sizeof q, f[0], strlen(f[0])) : "");
    op = f[0][0];
    int want = op == '-' || op == '<' ? 2 : 3;
    if (n != want)
        return rs_trace_fail(tr, err, "wrong field count: '%c' takes %s, got %d field%s", op,
                             want == 2 ? "ADDR" : "ADDR SIZE", n - 1, n == 2 ? "" : "s");
    if ((rc = ptr_field(tr, f[1], &addr, err)) || (want == 3 && (rc = size_field(tr, f[2], &size, err))))
        return rc;
    if (op == '!' || addr == 0)
        return 0; /* a failed call: nothing changed */
    if (st->interval_ns && st->calls > UINT64_MAX / st->interval_ns)
        return rs_trace_fail(tr, err, "call %llu at the interval passes 2^64 ns",
                             (unsigned long long)st->calls + 1);
    *r_rec = (rs_rec){ .t_ns = st->calls * st->interval_ns };
    mt_slot *slot = mt_find(st, addr);
    if (op == '+' || op == '>') {
        if (slot->addr)
            return rs_trace_fail(tr, err, "field address: 0x%llx allocated again without a free "
                                 "(its handle %llu)", (unsigned long long)addr,
                                 (unsigned long long)slot->handle);
        if (st->live == MT_MAX_LIVE)
            return rs_trace_fail(tr, err, "more than %llu blocks live at once",
                                 (unsigned long long)MT_MAX_LIVE);
        if ((st->live + 1) * 2 > st->cap) {
            if ((rc = mt_grow(st, err)))
                return rc;
            slot = mt_find(st, addr);
        }
        *slot = (mt_slot){ .addr = addr, .handle = ++st->next_handle, .size = size };
        st->live++;
        r_rec->op = RS_OP_MALLOC;
        r_rec->key = slot->handle;
        r_rec->size_bytes = size;
    } else {
        if (!slot->addr) {
            if (st->skip_unknown)
                return 0;
            return rs_trace_fail(tr, err, "field address: free of 0x%llx, not allocated in the log "
                                 "(unknown-free=skip skips such frees)", (unsigned long long)addr);
        }
        r_rec->op = RS_OP_FREE;
        r_rec->key = slot->handle;
        r_rec->size_bytes = slot->size;
        mt_remove(st, slot);
    }
    st->calls++;
    return 1;
}

static int mt_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    mt_state *st = tr->imp;
    int rc;

    for (;;) {
        if ((rc = rs_foreign_line(tr, &st->f, err)) <= 0)
            return rc;
        char *s = rs_foreign_trim(st->f.line);
        if (!*s)
            continue;
        if ((rc = mt_line(tr, st, s, r_rec, err)) < 0)
            return rc;
        if (rc)
            return rs_foreign_emit(tr, &st->f, r_rec, err);
    }
}

static int mt_open(rs_trace *tr, const char *text, rs_err *err)
{
    static const char *const known[] = { "interval", "unknown-free", NULL };
    static const char *const unknown[] = { "error", "skip", NULL };
    rs_spec spec;
    int rc, ui;
    mt_state *st = calloc(1, sizeof *st);

    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    tr->imp = st;
    tr->imp_free = mt_free;
    tr->next = mt_next;
    tr->daemon_id = RS_DAEMON_ALLOC;
    if ((rc = rs_spec_parse(&spec, "mtrace", text, known, err)) ||
        (rc = rs_spec_duration(&spec, "interval", 1000, &st->interval_ns, err)) ||
        (rc = rs_spec_choice(&spec, "unknown-free", unknown, 0, &ui, err)))
        return rc;
    st->skip_unknown = ui == 1;
    return mt_grow(st, err);
}

const rs_trace_codec_ops rs_trace_codec_mtrace = {
    .name = "mtrace",
    .doc = "foreign, alloc: glibc mtrace(3) log ('@ caller + 0xADDR 0xSIZE', '- 0xADDR', '< >' "
           "realloc pairs); spec interval (default 1us per call), unknown-free=error|skip",
    .open_foreign = mt_open,
    .example = "= Start\n@ ./prog:(main+0x1c)[0x401136] + 0x4052a0 0x10\n"
               "@ ./prog:[0x401150] + 0x4052c0 0x20\n@ ./prog:[0x40115a] < 0x4052a0\n"
               "@ ./prog:[0x40115a] > 0x405300 0x40\n@ ./prog:[0x401164] - 0x4052c0\n"
               "@ [0x401170] ! 0x405300 0x100000\n- 0x405300\n= End\n",
    .example_spec = "",
};
