/* test_evq.c — the event calendar: (t, seq) order, ties, periodic re-arm,
 * and the engine's merge of records with timers (timers first on a tie). */
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

int main(void)
{
    test_observer_first();
    test_order_and_ties();
    test_many_ties_stable();
    test_periodic();
    return check_done();
}
