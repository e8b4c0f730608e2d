/*
 * test_objects.c — the live-object table (models/layout/objects.h): the
 * addresses an object's parts were given come back, part by part, when it
 * is freed and from rs_objects_slot, whether the table keeps them packed in
 * 5 bytes (one 8 TiB window, multiples of 8) or has had to widen to 8 (an
 * address in another window, or not a multiple of 8, the window's last 8
 * bytes); a part that cannot be made undoes the object's others, whether
 * the allocator makes parts one at a time or n at a time (alloc_n).
 *
 * The allocator here hands out the addresses each case scripts and checks
 * every free against what it handed out, so a slot that decoded wrong is a
 * free of an address never made (or of the wrong size).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/layout/objects.h"

#define MAXLIVE 5000

/* ---- a scripted allocator ---------------------------------------------- */

typedef struct script {
    rs_addr next;   /* the next address to hand out */
    uint64_t step;  /* ... and the one after is this much further */
    rs_addr once;   /* when not 0: handed out next, instead (0 again after) */
    int fail_in;    /* when > 0: the fail_in-th alloc from now returns 0 */
    rs_addr live[MAXLIVE];
    uint64_t live_size[MAXLIVE];
    unsigned nlive;
    unsigned bad_frees;
} script;

static rs_addr s_alloc(void *state, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    script *s = state;
    (void)thread;
    (void)now_ns;
    if (s->fail_in > 0 && --s->fail_in == 0)
        return 0;
    rs_addr a;
    if (s->once) {
        a = s->once;
        s->once = 0;
    } else {
        a = s->next;
        s->next += s->step;
    }
    if (s->nlive == MAXLIVE)
        abort();
    s->live[s->nlive] = a;
    s->live_size[s->nlive++] = size_bytes;
    return a;
}

static void s_free(void *state, rs_addr addr, uint64_t size_bytes, uint32_t thread, uint64_t now_ns)
{
    script *s = state;
    (void)thread;
    (void)now_ns;
    for (unsigned i = 0; i < s->nlive; i++)
        if (s->live[i] == addr && s->live_size[i] == size_bytes) {
            s->live[i] = s->live[--s->nlive];
            s->live_size[i] = s->live_size[s->nlive];
            return;
        }
    s->bad_frees++;
}

static const rs_alloc_ops script_ops = { .name = "script", .alloc = s_alloc, .free = s_free };

/* The same with alloc_n and free_n (alloc.h), which count their calls. */
static unsigned n_allocs, n_frees;

static unsigned s_alloc_n(void *state, const uint64_t *size, unsigned n, uint32_t thread,
                          uint64_t now_ns, rs_addr *r_addr)
{
    n_allocs++;
    for (unsigned i = 0; i < n; i++)
        if (!(r_addr[i] = s_alloc(state, size[i], thread, now_ns)))
            return i;
    return n;
}

static void s_free_n(void *state, const rs_addr *addr, const uint64_t *size, unsigned n,
                     uint32_t thread, uint64_t now_ns)
{
    n_frees++;
    for (unsigned i = 0; i < n; i++)
        s_free(state, addr[i], size[i], thread, now_ns);
}

static const rs_alloc_ops script_n_ops = { .name = "script_n", .alloc = s_alloc, .free = s_free,
                                           .alloc_n = s_alloc_n, .free_n = s_free_n };

/* ---- a three-part layout ----------------------------------------------- */

static unsigned three_parts(const void *state, uint64_t bytes, uint32_t aux, rs_part *p)
{
    (void)state;
    p[0] = (rs_part){ .size_bytes = bytes, .tracked = 1, .name = "object" };
    p[1] = (rs_part){ .size_bytes = 48, .tracked = 0, .name = "node" };
    if (aux & 1) /* odd aux: two parts, so the third slot is empty */
        return 2;
    p[2] = (rs_part){ .size_bytes = 24 + aux, .tracked = 1, .name = "key" };
    return 3;
}

static const rs_layout_ops three_ops = {
    .name = "three", .max_parts = 3, .create = rs_layout_stateless_create,
    .destroy = rs_layout_stateless_destroy, .parts = three_parts,
};

/* ---- the cases ----------------------------------------------------------- */

typedef struct made {
    rs_oid id;
    rs_addr a[3];
    unsigned n;
} made;

static made objs[MAXLIVE / 3];
static unsigned nobjs;

static void add(rs_objects *o, script *s, uint64_t key, uint32_t aux)
{
    unsigned before = s->nlive;
    rs_oid id;
    rs_err err = { 0 };
    int rc = rs_objects_add(o, key, 100 + key % 50, aux, 0, 0, &id, NULL, &err);
    CHECK_MSG(rc == 0, "add %llu: %s", (unsigned long long)key, err.msg);
    if (rc)
        return;
    made *m = &objs[nobjs++];
    m->id = id;
    m->n = s->nlive - before;
    for (unsigned i = 0; i < m->n; i++)
        m->a[i] = s->live[before + i];
}

/* Every object made is in the table with the addresses it was given. */
static void check_slots(const rs_objects *o)
{
    unsigned bad = 0;
    for (unsigned k = 0; k < nobjs; k++)
        for (unsigned i = 0; i < 3; i++)
            bad += rs_objects_slot(o, (size_t)objs[k].id * 3 + i) != (i < objs[k].n ? objs[k].a[i] : 0);
    CHECK_EQ_U64(bad, 0);
}

/* Free them all: the allocator must see exactly what it handed out. */
static void del_all(rs_objects *o, script *s)
{
    for (unsigned k = nobjs; k-- > 0;)
        rs_objects_del(o, objs[k].id, 0, 0);
    nobjs = 0;
    CHECK_EQ_U64(s->bad_frees, 0);
    CHECK_EQ_U64(s->nlive, 0);
    CHECK_EQ_U64(o->live_count, 0);
    CHECK_EQ_U64(o->accounted_bytes, 0);
    CHECK_EQ_U64(o->untracked_bytes, 0);
}

static void table_of(rs_objects *o, script *s, rs_addr first, uint64_t step, const rs_alloc_ops *ops)
{
    rs_err err = { 0 };
    memset(s, 0, sizeof *s);
    s->next = first;
    s->step = step;
    static rs_alloc a;
    a = (rs_alloc){ .ops = ops, .state = s };
    CHECK(rs_objects_init(o, &three_ops, NULL, &a, &err) == 0);
    nobjs = 0;
}

static void table(rs_objects *o, script *s, rs_addr first, uint64_t step)
{
    table_of(o, s, first, step, &script_ops);
}

int main(void)
{
    rs_objects o;
    script s;

    /* 1. one window (tcmalloc's heap from 2^40): packed all along, through
     * the table's growth, frees and reuse of ids */
    table(&o, &s, (rs_addr)1 << 40, 48);
    for (uint64_t k = 0; k < 1500; k++)
        add(&o, &s, k, (uint32_t)(k % 7));
    CHECK_EQ_U64(o.addr_bytes, 5);
    check_slots(&o);
    for (unsigned k = 0; k < nobjs; k += 2) /* free every other one; their ids are reused */
        rs_objects_del(&o, objs[k].id, 0, 0);
    unsigned w = 0;
    for (unsigned k = 1; k < nobjs; k += 2)
        objs[w++] = objs[k];
    nobjs = w;
    for (uint64_t k = 0; k < 700; k++)
        add(&o, &s, 5000 + k, (uint32_t)(k % 5));
    CHECK_EQ_U64(o.addr_bytes, 5);
    CHECK(o.n_used < 1500 + 700); /* ids were reused */
    check_slots(&o);

    /* 2. glibc's mmapped chunks (2^46) join: the table widens, once, and
     * keeps every address it had */
    s.once = (rs_addr)1 << 46;
    add(&o, &s, 9000, 2);
    CHECK_EQ_U64(o.addr_bytes, 8);
    check_slots(&o);
    for (uint64_t k = 0; k < 200; k++)
        add(&o, &s, 10000 + k, 0);
    check_slots(&o);
    del_all(&o, &s);
    rs_objects_release(&o);

    /* 3. the window's edges: jemalloc's heap from 2^44 */
    const rs_addr win = (rs_addr)1 << 44, top = win + ((rs_addr)1 << 43);
    table(&o, &s, win + 16, 32);
    add(&o, &s, 1, 0);
    s.once = top - 16; /* the last address that packs */
    add(&o, &s, 2, 0);
    CHECK_EQ_U64(o.addr_bytes, 5);
    check_slots(&o);
    s.once = top - 8; /* the next one does not */
    add(&o, &s, 3, 0);
    CHECK_EQ_U64(o.addr_bytes, 8);
    check_slots(&o);
    del_all(&o, &s);
    rs_objects_release(&o);

    /* 4. below the window, and not a multiple of 8: each widens */
    table(&o, &s, win + 64, 16);
    add(&o, &s, 1, 0);
    s.once = win - 8;
    add(&o, &s, 2, 0);
    CHECK_EQ_U64(o.addr_bytes, 8);
    check_slots(&o);
    del_all(&o, &s);
    rs_objects_release(&o);
    table(&o, &s, 4096, 16); /* the ideal allocator's start */
    add(&o, &s, 1, 0);
    s.once = 4096 + 100 * 16 + 4;
    add(&o, &s, 2, 0);
    CHECK_EQ_U64(o.addr_bytes, 8);
    check_slots(&o);
    del_all(&o, &s);
    rs_objects_release(&o);

    /* 5. a part that cannot be made: the object's others are freed, nothing
     * is admitted, and its id is the next one used */
    table(&o, &s, (rs_addr)1 << 40, 64);
    add(&o, &s, 1, 0);
    s.fail_in = 3; /* the third part of the next object */
    rs_oid id;
    rs_err err = { 0 };
    CHECK(rs_objects_add(&o, 2, 120, 0, 0, 0, &id, NULL, &err) == RS_EINPUT);
    CHECK_EQ_U64(s.nlive, 3);
    CHECK_EQ_U64(s.bad_frees, 0);
    CHECK_EQ_U64(o.live_count, 1);
    add(&o, &s, 3, 0);
    CHECK_EQ_U64(objs[1].id, 1);
    check_slots(&o);
    del_all(&o, &s);
    rs_objects_release(&o);

    /* 6. an allocator with alloc_n and free_n: an object's parts are made
     * and freed in one call each, and a part that cannot be made undoes
     * the others as in 5 */
    table_of(&o, &s, (rs_addr)1 << 40, 64, &script_n_ops);
    n_allocs = n_frees = 0;
    for (uint64_t k = 0; k < 100; k++)
        add(&o, &s, k, (uint32_t)(k % 3));
    CHECK_EQ_U64(n_allocs, 100);
    check_slots(&o);
    s.fail_in = 2; /* the second part of the next object */
    CHECK(rs_objects_add(&o, 200, 120, 0, 0, 0, &id, NULL, &err) == RS_EINPUT);
    CHECK_EQ_U64(n_allocs, 101);
    CHECK_EQ_U64(s.bad_frees, 0);
    CHECK_EQ_U64(o.live_count, 100);
    CHECK_EQ_U64(s.nlive, 100 * 3 - 33); /* odd aux: two parts */
    add(&o, &s, 201, 0);
    check_slots(&o);
    del_all(&o, &s);
    CHECK_EQ_U64(n_frees, 101);
    rs_objects_release(&o);

    return check_done();
}
