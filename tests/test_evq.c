/* test_evq.c — the event calendar: (t, seq) order, ties, periodic re-arm,
 * the FIFO runs against a plain sort, and the engine's merge of records with
 * timers (timers first on a tie). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim/engine.h"
#include "sim/evq.h"

static char log_buf[256];
static size_t log_n;

static void note(void *ctx, uint64_t now_ns)
{
    (void)now_ns;
    log_buf[log_n++] = *(const char *)ctx;
    log_buf[log_n] = '\0';
}

static void test_order_and_ties(void)
{
    rs_evq q;
    rs_event ev;
    rs_err err;
    static const char a = 'a', b = 'b', c = 'c', d = 'd';

    rs_evq_init(&q);
    CHECK(rs_evq_next_ns(&q) == UINT64_MAX);
    rs_evq_push(&q, 20, 0, note, (void *)&a, &err);
    rs_evq_push(&q, 10, 0, note, (void *)&b, &err);
    rs_evq_push(&q, 20, 0, note, (void *)&c, &err); /* same time as a: after it */
    rs_evq_push(&q, 5, 0, note, (void *)&d, &err);
    log_n = 0;
    while (rs_evq_pop(&q, &ev, &err) == 0)
        ev.fn(ev.ctx, ev.t_ns);
    CHECK_MSG(strcmp(log_buf, "dbac") == 0, "order '%s'", log_buf);
    rs_evq_release(&q);
}

static void test_many_ties_stable(void)
{
    rs_evq q;
    rs_event ev;
    rs_err err;
    static char ids[1000];
    rs_evq_init(&q);
    for (int i = 0; i < 1000; i++) {
        ids[i] = (char)i;
        rs_evq_push(&q, (uint64_t)(i % 7), 0, note, &ids[i], &err);
    }
    uint64_t last_t = 0, last_seq = 0;
    int ok = 1, n = 0;
    while (rs_evq_pop(&q, &ev, &err) == 0) {
        if (n && (ev.t_ns < last_t || (ev.t_ns == last_t && ev.seq <= last_seq)))
            ok = 0;
        last_t = ev.t_ns;
        last_seq = ev.seq;
        n++;
    }
    CHECK(ok);
    CHECK(n == 1000);
    rs_evq_release(&q);
}

static void test_periodic(void)
{
    rs_evq q;
    rs_event ev;
    rs_err err;
    static const char p = 'p', o = 'o';
    uint64_t times[8];

    rs_evq_init(&q);
    rs_evq_push(&q, 100, 100, note, (void *)&p, &err);
    rs_evq_push(&q, 250, 0, note, (void *)&o, &err);
    log_n = 0;
    for (int i = 0; i < 5; i++) {
        CHECK(rs_evq_pop(&q, &ev, &err) == 0);
        times[i] = ev.t_ns;
        ev.fn(ev.ctx, ev.t_ns);
    }
    CHECK_MSG(strcmp(log_buf, "ppopp") == 0, "order '%s'", log_buf);
    CHECK(times[0] == 100 && times[1] == 200 && times[2] == 250 && times[3] == 300 && times[4] == 400);
    CHECK(q.n == 1); /* only the periodic one is left */
    rs_evq_release(&q);
}

static void test_observer_first(void)
{
    rs_evq q;
    rs_event ev;
    rs_err err;
    static const char t = 't', s = 's';

    rs_evq_init(&q);
    /* a normal timer scheduled first, an observer second, both every 100 */
    rs_evq_push(&q, 100, 100, note, (void *)&t, &err);
    rs_evq_push_prio(&q, 100, 100, RS_PRIO_OBSERVE, note, (void *)&s, &err);
    log_n = 0;
    for (int i = 0; i < 6; i++) {
        CHECK(rs_evq_pop(&q, &ev, &err) == 0);
        ev.fn(ev.ctx, ev.t_ns);
    }
    /* at every time the observer goes first, re-armed or not */
    CHECK_MSG(strcmp(log_buf, "ststst") == 0, "order '%s'", log_buf);
    rs_evq_release(&q);
}

/* Callbacks to tell events apart (the runs take any callback's events). */
static void fn_a(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }
static void fn_b(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }
static void fn_c(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }
static void fn_d(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }
static void fn_e(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }
static void fn_f(void *ctx, uint64_t now_ns) { (void)ctx; (void)now_ns; }

typedef struct ref_ev {
    uint64_t t_ns, key, id; /* key: prio, then push order */
} ref_ev;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref_ev *a = pa, *b = pb;
    if (a->t_ns != b->t_ns)
        return a->t_ns < b->t_ns ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* More callbacks than runs, each pushing mostly in time order (a fixed
 * delay after now, a FIFO server) and sometimes not, interleaved with pops,
 * observers and equal times: the pops come out as a sort of (t, prio, push
 * order) would give them. */
static void test_runs_against_sort(void)
{
    static const rs_event_fn fns[] = { fn_a, fn_b, fn_c, fn_d, fn_e, fn_f };
    enum { N = 20000 };
    ref_ev *ref = calloc(N, sizeof *ref);
    uint64_t *got = calloc(N, sizeof *got);
    uint64_t rng = 12345, now = 0, busy[6] = { 0 }, order = 0;
    size_t nref = 0, ngot = 0, pushed = 0;
    int ok = 1;
    rs_evq q;
    rs_event ev;
    rs_err err;
    rs_evq_init(&q);
    CHECK(ref && got);
    while (pushed < N || rs_evq_count(&q)) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(rng >> 33);
        if (pushed < N && (r % 3 || !rs_evq_count(&q))) {
            unsigned f = (r >> 2) % 6, prio = (r >> 5) % 8 == 0 ? RS_PRIO_OBSERVE : RS_PRIO_NORMAL;
            uint64_t t;
            if (f < 2) /* a fixed delay after now */
                t = now + 100 * (f + 1);
            else if (f < 4) /* a FIFO server */
                t = busy[f] = (busy[f] > now ? busy[f] : now) + (r >> 8) % 50;
            else /* anywhere ahead, ties likely */
                t = now + (r >> 8) % 8;
            if ((r >> 12) % 16 == 0)
                t = now; /* now: before the runs' tails */
            ref[nref] = (ref_ev){ t, (uint64_t)prio << 56 | order++, pushed };
            ok &= rs_evq_push_prio(&q, t, 0, prio, fns[f], (void *)(uintptr_t)pushed, &err) == 0;
            nref++;
            pushed++;
        } else {
            uint64_t next = rs_evq_next_ns(&q);
            CHECK(rs_evq_pop(&q, &ev, &err) == 0);
            ok &= ev.t_ns == next && ev.t_ns >= now;
            now = ev.t_ns;
            got[ngot++] = (uint64_t)(uintptr_t)ev.ctx;
        }
    }
    CHECK(rs_evq_pop(&q, &ev, &err) == RS_ENOTFOUND);
    CHECK(rs_evq_next_ns(&q) == UINT64_MAX);
    CHECK(ok);
    CHECK(ngot == N);
    rs_evq_release(&q);
    /* each pop is the least of what was queued then: the same interleaving
     * of pushes and pops again, each pop a search of what is queued */
    size_t a = 0;
    ref_ev *live = calloc(N, sizeof *live);
    size_t nlive = 0, pops = 0;
    rng = 12345;
    pushed = 0;
    while (pops < N && live) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(rng >> 33);
        if (pushed < N && (r % 3 || !nlive)) {
            live[nlive++] = ref[pushed++];
        } else {
            size_t best = 0;
            for (size_t i = 1; i < nlive; i++)
                if (ref_cmp(&live[i], &live[best]) < 0)
                    best = i;
            ok &= live[best].id == got[a++];
            live[best] = live[--nlive];
            pops++;
        }
    }
    CHECK_MSG(ok, "the runs and the heap popped out of (t, prio, seq) order");
    free(live);
    free(ref);
    free(got);
}

/* RS_EVQ_RUNS ordered streams of one callback, interleaved at random with
 * pops (a device's FIFO completions, CPU phases of a few fixed lengths): no
 * event goes to the heap, and they pop in time order.  One more stream
 * than runs does use the heap. */
static void test_streams_take_runs(void)
{
    for (int extra = 0; extra <= 1; extra++) {
        enum { N = 20000 };
        const int nstreams = RS_EVQ_RUNS + extra;
        uint64_t rng = 777, now = 0, busy[RS_EVQ_RUNS + 1] = { 0 }, last = 0;
        size_t pushed = 0;
        int ok = 1;
        rs_evq q;
        rs_event ev;
        rs_err err;
        rs_evq_init(&q);
        while (pushed < N || rs_evq_count(&q)) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(rng >> 33);
            if (pushed < N && (r % 2 || !rs_evq_count(&q))) {
                int f = (int)((r >> 4) % (unsigned)nstreams);
                /* stream f: a FIFO server, its step spread so that streams overtake each other */
                busy[f] = (busy[f] > now ? busy[f] : now) + 1 + (uint64_t)f * 37 + (r >> 12) % 5;
                ok &= rs_evq_push(&q, busy[f], 0, fn_a, NULL, &err) == 0;
                pushed++;
            } else {
                CHECK(rs_evq_pop(&q, &ev, &err) == 0);
                ok &= ev.t_ns >= last;
                last = now = ev.t_ns;
            }
        }
        CHECK(ok);
        if (!extra)
            CHECK_MSG(q.heap_pushes == 0, "%d ordered streams: %llu events went to the heap", nstreams,
                      (unsigned long long)q.heap_pushes);
        else
            CHECK_MSG(q.heap_pushes > 0, "%d ordered streams in %d runs: none went to the heap", nstreams,
                      RS_EVQ_RUNS);
        rs_evq_release(&q);
    }
}

int main(void)
{
    test_runs_against_sort();
    test_streams_take_runs();
    test_observer_first();
    test_order_and_ties();
    test_many_ties_stable();
    test_periodic();
    return check_done();
}
