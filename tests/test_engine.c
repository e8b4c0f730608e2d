/*
 * test_engine.c — the run loop's merge of records and events: timers before
 * a record at the same time, one-shot work scheduled by a model keeping
 * the run alive after the last record, and a record's memo carried from its
 * prefetch stages to its handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../sim/engine.h"
#include "check.h"

/* The trace as a record source, read in place (one at a time per test). */
static const rs_rec_source *src_of(rs_trace *tr)
{
    static rs_rec_source src;
    rs_trace_source(tr, &src);
    return &src;
}

typedef struct ctx {
    rs_engine *eng;
    uint64_t ticks, last_tick_ns;
    uint64_t work_done_ns[4];
    unsigned nwork, chain;
    uint64_t rec_seen_ns[4];
    unsigned nrec;
} ctx;

static void on_tick(void *p, uint64_t now_ns)
{
    ctx *c = p;
    c->ticks++;
    c->last_tick_ns = now_ns;
}

static void on_work(void *p, uint64_t now_ns)
{
    ctx *c = p;
    c->work_done_ns[c->nwork++] = now_ns;
    if (c->chain) { /* work that schedules more work, once */
        c->chain = 0;
        rs_engine_at(c->eng, now_ns + 1000000000ull, on_work, c, NULL);
    }
}

static int on_rec(void *p, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    (void)memo;
    ctx *c = p;
    c->rec_seen_ns[c->nrec++] = rec->t_ns;
    /* the second record's op completes 5 s later */
    if (c->nrec == 2)
        return rs_engine_at(c->eng, rec->t_ns + 5000000000ull, on_work, c, err);
    return 0;
}

static const char *write_trace(char *path, size_t cap)
{
    rs_trace_writer *w;
    rs_err err = { 0 };
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/rssim-test-engine-%d.tsv", dir && *dir ? dir : "/tmp", (int)getpid());
    if (rs_trace_writer_open(&w, path, "text", "kv", &err))
        return NULL;
    rs_rec r1 = { .t_ns = 1000000, .key = 1, .size_bytes = 10, .op = RS_OP_SET };
    rs_rec r2 = { .t_ns = 2000000000ull, .key = 2, .size_bytes = 10, .op = RS_OP_SET };
    if (rs_trace_write(w, &r1, &err) || rs_trace_write(w, &r2, &err) || rs_trace_writer_close(w, &err))
        return NULL;
    return path;
}

static void test_work_keeps_run_alive(int chain, uint64_t tail_ns)
{
    char path[512];
    rs_engine eng;
    rs_trace *tr = NULL;
    rs_err err = { 0 };
    ctx c = { .eng = &eng, .chain = (unsigned)chain };
    uint64_t end_ns = 0;

    CHECK(write_trace(path, sizeof path) != NULL);
    rs_engine_init(&eng);
    CHECK(rs_trace_open(&tr, path, &err) == 0);
    CHECK(rs_engine_every(&eng, 0, 100000000ull, on_tick, &c, &err) == 0);
    CHECK(rs_engine_run(&eng, src_of(tr), on_rec, NULL, &c, tail_ns, &end_ns, &err) == 0);
    uint64_t last_work = 2000000000ull + 5000000000ull + (chain ? 1000000000ull : 0);
    CHECK_EQ_U64(c.nrec, 2);
    CHECK_EQ_U64(c.nwork, chain ? 2 : 1);
    CHECK_EQ_U64(c.work_done_ns[c.nwork - 1], last_work);
    CHECK_EQ_U64(end_ns, last_work + (tail_ns ? tail_ns : 1));
    CHECK_EQ_U64(eng.pending, 0);
    /* the periodic timer kept firing through the work, up to the end */
    CHECK_EQ_U64(c.last_tick_ns, end_ns / 100000000ull * 100000000ull);
    CHECK_EQ_U64(c.ticks, end_ns / 100000000ull + 1);
    rs_trace_close(tr);
    rs_engine_release(&eng);
    unlink(path);
}

/* A closed loop of depth 1: each record holds the stream until its op,
 * taking 3 s, completes; records then run at the completion times. */
typedef struct loop {
    rs_engine *eng;
    uint64_t seen_ns[4];
    unsigned n;
} loop;

static void on_done(void *p, uint64_t now_ns)
{
    (void)now_ns;
    rs_engine_release_hold(((loop *)p)->eng);
}

static int on_rec_hold(void *p, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    (void)memo;
    loop *l = p;
    l->seen_ns[l->n++] = rec->t_ns;
    rs_engine_hold(l->eng);
    return rs_engine_at(l->eng, rec->t_ns + 3000000000ull, on_done, l, err);
}

static int on_rec_hold_forever(void *p, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    (void)memo;
    (void)rec;
    (void)err;
    rs_engine_hold(((loop *)p)->eng);
    return 0;
}

static void test_hold(void)
{
    char path[512];
    rs_engine eng;
    rs_trace *tr = NULL;
    rs_err err = { 0 };
    loop l = { .eng = &eng };
    uint64_t end_ns = 0;

    CHECK(write_trace(path, sizeof path) != NULL);
    rs_engine_init(&eng);
    CHECK(rs_trace_open(&tr, path, &err) == 0);
    CHECK(rs_engine_run(&eng, src_of(tr), on_rec_hold, NULL, &l, 0, &end_ns, &err) == 0);
    CHECK_EQ_U64(l.n, 2);
    CHECK_EQ_U64(l.seen_ns[0], 1000000);
    CHECK_EQ_U64(l.seen_ns[1], 3001000000ull); /* after the first op, not at 2 s */
    CHECK_EQ_U64(end_ns, 6001000000ull + 1);
    rs_trace_close(tr);
    rs_engine_release(&eng);

    /* holding with nothing scheduled is an error, not a hang */
    rs_engine_init(&eng);
    l = (loop){ .eng = &eng };
    CHECK(rs_trace_open(&tr, path, &err) == 0);
    CHECK(rs_engine_run(&eng, src_of(tr), on_rec_hold_forever, NULL, &l, 0, &end_ns, &err) == RS_EINTERNAL);
    rs_trace_close(tr);
    rs_engine_release(&eng);
    unlink(path);
}

/* Each record's memo starts zero, and what its prefetch stages write
 * reaches its later stages and its handler, never another record's. */
typedef struct memo_ctx {
    unsigned nrec, bad, staged[RS_ENGINE_PREFETCH_STAGES], all; /* all: every stage's bit */
} memo_ctx;

static void memo_prefetch(void *p, const rs_rec *rec, rs_memo *memo, int stage)
{
    memo_ctx *c = p;
    if (stage == 0)
        c->bad += memo->word[0] != 0 || memo->word[1] != 0;
    else
        c->bad += memo->word[0] != rec->key || !(memo->word[1] & 1);
    memo->word[0] = rec->key;
    memo->word[1] |= 1u << stage;
    c->staged[stage]++;
}

static int memo_rec(void *p, const rs_rec *rec, const rs_memo *memo, rs_err *err)
{
    memo_ctx *c = p;
    (void)err;
    c->bad += memo == NULL || memo->word[0] != rec->key || !(memo->word[1] & 1);
    /* every stage asked for ran, in order, for every record but the first
     * few, which were already nearer than a stage's distance when the run
     * began */
    c->bad += rec->key > RS_ENGINE_LOOKAHEAD / 2 && memo->word[1] != c->all;
    c->nrec++;
    return 0;
}

static void test_memo(int stages)
{
    char path[512];
    rs_trace_writer *w;
    rs_trace *tr = NULL;
    rs_engine eng;
    rs_err err = { 0 };
    memo_ctx c = { .all = (1u << stages) - 1 };
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/rssim-test-memo-%d.tsv", dir && *dir ? dir : "/tmp", (int)getpid());
    CHECK(rs_trace_writer_open(&w, path, "text", "kv", &err) == 0);
    for (uint64_t k = 1; k <= 1000; k++) {
        rs_rec r = { .t_ns = k * 1000, .key = k, .size_bytes = 10, .op = RS_OP_GET };
        CHECK(rs_trace_write(w, &r, &err) == 0);
    }
    CHECK(rs_trace_writer_close(w, &err) == 0);
    rs_engine_init(&eng);
    CHECK(eng.prefetch_stages == 3); /* the default */
    if (stages)
        eng.prefetch_stages = stages;
    else
        c.all = 7;
    CHECK(rs_trace_open(&tr, path, &err) == 0);
    CHECK(rs_engine_run(&eng, src_of(tr), memo_rec, memo_prefetch, &c, 0, NULL, &err) == 0);
    CHECK_EQ_U64(c.nrec, 1000);
    CHECK_EQ_U64(c.staged[0], 1000);
    CHECK_EQ_U64(c.staged[1], 1000 - RS_ENGINE_LOOKAHEAD / 2);
    CHECK_EQ_U64(c.staged[2], 1000 - RS_ENGINE_LOOKAHEAD / 4);
    /* stages 3 and 4 (an eighth, a sixteenth of the lookahead) only when asked */
    CHECK_EQ_U64(c.staged[3], stages > 3 ? 1000 - RS_ENGINE_LOOKAHEAD / 8 : 0);
    CHECK_EQ_U64(c.staged[4], stages > 4 ? 1000 - RS_ENGINE_LOOKAHEAD / 16 : 0);
    CHECK_MSG(c.bad == 0, "%u memos wrong", c.bad);
    rs_trace_close(tr);
    rs_engine_release(&eng);
    unlink(path);
}

int main(void)
{
    test_memo(0);
    test_memo(4);
    test_memo(RS_ENGINE_PREFETCH_STAGES);
    test_hold();
    test_work_keeps_run_alive(0, 0);
    test_work_keeps_run_alive(1, 0);
    test_work_keeps_run_alive(1, 3000000000ull);
    return check_done();
}
