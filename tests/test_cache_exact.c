/*
 * test_cache_exact.c — the exact presets (kv-lru, kv-fifo) against a cache
 * simulator written here from its definition, sharing nothing with the
 * models: a plain array of {key, size, stamp}, the victim found by a scan for
 * the smallest stamp (LRU: the last use; FIFO: the insert), eviction before
 * the insert while the new object would not fit (libCacheSim
 * cache_get_base), and an object larger than the cache not admitted
 * (libCacheSim cache_can_insert_default).
 *
 * Random traces (several seeds, sizes from 1 B to twice the cache, GET, SET
 * and DEL) are replayed record by record through the kv daemon built from
 * the preset file; after every record the daemon's hit and miss counters,
 * its object count and its accounted bytes must equal the reference's, so
 * the whole hit/miss sequence is compared, not only totals.  Limits: by
 * bytes, by objects, and both.  The same trace through a whole run must
 * store the reference's totals as the metrics hits, misses, miss_ratio and
 * byte_miss_ratio.  And `exact` is a claim the run checks: a preset that
 * says exact = lru but trims on a timer, uses another policy, or counts
 * more than the object's bytes is refused, and so is a PIN record (an
 * exact cache has no pinned objects).  A count limit also holds under
 * the periodic trim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/base/config.h"
#include "sim/evq.h"
#include "sim/run.h"
#include "sim/schema.h"
#include "traces/trace.h"

/* ---- the reference cache ---- */

enum { REF_MAX = 4096 };

typedef struct ref {
    int fifo;
    uint64_t cap_bytes, cap_objects; /* 0: that bound is off */
    uint64_t key[REF_MAX], size[REF_MAX], stamp[REF_MAX];
    size_t n;
    uint64_t used, clock;
    uint64_t hits, misses, hit_bytes, miss_bytes;
} ref;

static long ref_find(const ref *r, uint64_t key)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->key[i] == key)
            return (long)i;
    return -1;
}

static void ref_remove(ref *r, size_t i)
{
    r->used -= r->size[i];
    r->n--;
    r->key[i] = r->key[r->n];
    r->size[i] = r->size[r->n];
    r->stamp[i] = r->stamp[r->n];
}

static int ref_full(const ref *r, uint64_t size)
{
    return (r->cap_bytes && r->used + size > r->cap_bytes) ||
           (r->cap_objects && r->n + 1 > r->cap_objects);
}

static void ref_insert(ref *r, uint64_t key, uint64_t size)
{
    if (r->cap_bytes && size > r->cap_bytes)
        return; /* not admitted */
    while (ref_full(r, size)) {
        size_t v = 0;
        for (size_t i = 1; i < r->n; i++)
            if (r->stamp[i] < r->stamp[v])
                v = i;
        ref_remove(r, v);
    }
    if (r->n == REF_MAX)
        abort();
    r->key[r->n] = key;
    r->size[r->n] = size;
    r->stamp[r->n] = ++r->clock;
    r->n++;
    r->used += size;
}

static void ref_use(ref *r, size_t i)
{
    if (!r->fifo)
        r->stamp[i] = ++r->clock;
}

static void ref_apply(ref *r, const rs_rec *rec)
{
    long i = ref_find(r, rec->key);
    switch (rec->op) {
    case RS_OP_GET:
        if (i >= 0) {
            r->hits++;
            r->hit_bytes += rec->size_bytes;
            ref_use(r, (size_t)i);
        } else {
            r->misses++;
            r->miss_bytes += rec->size_bytes;
            ref_insert(r, rec->key, rec->size_bytes);
        }
        break;
    case RS_OP_SET: /* a new value: a same-sized one is a use, another replaces it */
        if (i >= 0 && r->size[i] == rec->size_bytes) {
            ref_use(r, (size_t)i);
            break;
        }
        if (i >= 0)
            ref_remove(r, (size_t)i);
        ref_insert(r, rec->key, rec->size_bytes);
        break;
    case RS_OP_DEL:
        if (i >= 0)
            ref_remove(r, (size_t)i);
        break;
    default:
        abort();
    }
}

/* ---- random traces ---- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

enum { KEYS = 400, RECORDS = 30000 };

/* GET 80%, SET 15%, DEL 5% over KEYS keys (skewed to the low ones); object
 * sizes mostly 1..2000 B, some up to 20000 B, 2% up to twice cap_bytes. */
static void make_trace(uint64_t seed, uint64_t cap_bytes, rs_rec *recs)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1, size[KEYS];
    for (int k = 0; k < KEYS; k++)
        size[k] = 0;
    for (int i = 0; i < RECORDS; i++) {
        uint64_t a = rng_next(&s) % KEYS, b = rng_next(&s) % KEYS;
        uint64_t key = a < b ? a : b;
        unsigned what = (unsigned)(rng_next(&s) % 100);
        int op = what < 80 ? RS_OP_GET : what < 95 ? RS_OP_SET : RS_OP_DEL;
        if (!size[key] || (op == RS_OP_SET && rng_next(&s) % 2)) {
            unsigned band = (unsigned)(rng_next(&s) % 100);
            size[key] = band < 78 ? 1 + rng_next(&s) % 2000
                      : band < 98 ? 2000 + rng_next(&s) % 18000
                                  : cap_bytes / 2 + rng_next(&s) % (cap_bytes * 3 / 2);
        }
        recs[i] = (rs_rec){ .t_ns = (uint64_t)i * 1000, .key = key + 1, .size_bytes = size[key],
                            .op = (uint16_t)op };
    }
}

/* ---- the model, record by record ---- */

static rs_config *preset_config(const char *preset, const char *const *sets)
{
    char path[1024];
    const char *dir = getenv("RSSIM_PRESETS");
    rs_config *cfg;
    rs_err err;
    snprintf(path, sizeof path, "%s/%s.conf", dir ? dir : "models/presets", preset);
    if (rs_config_new(&cfg, &err) || rs_config_load_file(cfg, path, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(1);
    }
    for (; sets && *sets; sets++)
        if (rs_config_set_kv(cfg, *sets, "test", &err)) {
            fprintf(stderr, "%s: %s\n", *sets, err.msg);
            exit(1);
        }
    return cfg;
}

typedef struct model {
    rs_components c;
    rs_engine eng;
    rs_alloc alloc;
    void *state;
} model;

static int model_open(model *m, const rs_config *cfg, rs_err *err)
{
    int rc;
    memset(m, 0, sizeof *m);
    rs_engine_init(&m->eng);
    if ((rc = rs_config_validate(cfg, err)) || (rc = rs_schema_resolve(cfg, &m->c, err)))
        return rc;
    m->alloc.ops = m->c.alloc;
    if ((rc = m->alloc.ops->create(cfg, &m->alloc.state, err))) {
        m->alloc.ops = NULL;
        return rc;
    }
    rs_daemon_env env = { .cfg = cfg, .engine = &m->eng, .alloc = &m->alloc };
    memcpy(env.parts, m->c.parts, sizeof env.parts);
    return m->c.daemon->create(&env, &m->state, err);
}

static void model_close(model *m)
{
    if (m->state)
        m->c.daemon->destroy(m->state);
    if (m->alloc.ops)
        m->alloc.ops->destroy(m->alloc.state);
    rs_engine_release(&m->eng);
}

/* Replay recs through preset (with sets) and the reference side by side. */
static void compare(const char *preset, const char *const *sets, int fifo, uint64_t cap_bytes,
                    uint64_t cap_objects, uint64_t seed, const char *what)
{
    static rs_rec recs[RECORDS];
    static ref r;
    rs_config *cfg = preset_config(preset, sets);
    model m;
    rs_err err;
    int bad = 0;
    uint64_t over = 0;

    memset(&r, 0, sizeof r);
    r.fifo = fifo;
    r.cap_bytes = cap_bytes;
    r.cap_objects = cap_objects;
    make_trace(seed, cap_bytes ? cap_bytes : 100000, recs);
    CHECK_MSG(model_open(&m, cfg, &err) == 0, "%s: %s", what, err.msg);
    for (int i = 0; i < RECORDS && m.state && !bad; i++) {
        rs_daemon_stats st;
        m.eng.now_ns = recs[i].t_ns;
        ref_apply(&r, &recs[i]);
        over += cap_bytes && recs[i].size_bytes > cap_bytes;
        if (m.c.daemon->op(m.state, &recs[i], NULL, &err)) {
            CHECK_MSG(0, "%s: record %d: %s", what, i, err.msg);
            break;
        }
        m.c.daemon->stats(m.state, &st);
        if (st.hits.hits != r.hits || st.hits.misses != r.misses || st.items_count != r.n ||
            st.accounted_bytes != r.used || st.hits.miss_bytes != r.miss_bytes ||
            st.hits.hit_bytes != r.hit_bytes) {
            CHECK_MSG(0, "%s seed %llu: record %d (op %s key %llu size %llu): model hits %llu "
                      "misses %llu objects %llu bytes %llu, reference %llu %llu %zu %llu", what,
                      (unsigned long long)seed, i, rs_op_name(recs[i].op),
                      (unsigned long long)recs[i].key, (unsigned long long)recs[i].size_bytes,
                      (unsigned long long)st.hits.hits, (unsigned long long)st.hits.misses,
                      (unsigned long long)st.items_count, (unsigned long long)st.accounted_bytes,
                      (unsigned long long)r.hits, (unsigned long long)r.misses, r.n,
                      (unsigned long long)r.used);
            bad = 1;
        }
    }
    if (!bad)
        check_passed++;
    /* the trace is a test only if it misses, hits, evicts and has objects
     * larger than the cache */
    CHECK_MSG(r.hits > RECORDS / 10 && r.misses > RECORDS / 10, "%s: hits %llu misses %llu", what,
              (unsigned long long)r.hits, (unsigned long long)r.misses);
    CHECK_MSG(!cap_bytes || over > 100, "%s: %llu records larger than the cache", what,
              (unsigned long long)over);
    model_close(&m);
    rs_config_free(cfg);
}

static void test_sequences(void)
{
    static const char *bytes[] = { "kv_cache_limit=200000", NULL };
    static const char *objects[] = { "kv_cache_limit=0", "kv_cache_limit_objects=40", NULL };
    static const char *both[] = { "kv_cache_limit=200000", "kv_cache_limit_objects=60", NULL };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        compare("kv-lru", bytes, 0, 200000, 0, seed, "kv-lru by bytes");
        compare("kv-lru", objects, 0, 0, 40, seed, "kv-lru by objects");
        compare("kv-lru", both, 0, 200000, 60, seed, "kv-lru by bytes and objects");
        compare("kv-fifo", bytes, 1, 200000, 0, seed, "kv-fifo by bytes");
        compare("kv-fifo", objects, 1, 0, 40, seed, "kv-fifo by objects");
    }
}

/* A whole run stores the reference's totals as metrics. */
static void test_run_metrics(void)
{
    static rs_rec recs[RECORDS];
    static ref r;
    static const char *sets[] = { "kv_cache_limit=200000", NULL };
    char path[64];
    rs_trace_writer *w;
    rs_err err;
    rs_result res;

    snprintf(path, sizeof path, "test_cache_exact.%d.bin", (int)getpid());
    make_trace(9, 200000, recs);
    memset(&r, 0, sizeof r);
    r.cap_bytes = 200000;
    CHECK(rs_trace_writer_open(&w, path, "binary", "kv", &err) == 0);
    for (int i = 0; i < RECORDS; i++) {
        ref_apply(&r, &recs[i]);
        CHECK(rs_trace_write(w, &recs[i], &err) == 0);
    }
    CHECK(rs_trace_writer_close(w, &err) == 0);
    rs_config *cfg = preset_config("kv-lru", sets);
    rs_result_init(&res);
    CHECK_MSG(rs_run_execute(path, cfg, &res, NULL, &err) == 0, "%s", err.msg);
    double v[4] = { -1, -1, -1, -1 };
    rs_result_metric(&res, "hits", &v[0]);
    rs_result_metric(&res, "misses", &v[1]);
    rs_result_metric(&res, "miss_ratio", &v[2]);
    rs_result_metric(&res, "byte_miss_ratio", &v[3]);
    CHECK_EQ_U64(v[0], r.hits);
    CHECK_EQ_U64(v[1], r.misses);
    CHECK_MSG(v[2] == (double)r.misses / (double)(r.hits + r.misses), "miss_ratio %g", v[2]);
    CHECK_MSG(v[3] == (double)r.miss_bytes / (double)(r.hit_bytes + r.miss_bytes),
              "byte_miss_ratio %g", v[3]);
    rs_result_release(&res);
    rs_config_free(cfg);
    unlink(path);
}

/* exact = lru is checked: each way of breaking it is refused, naming why. */
static void refused(const char *preset, const char *const *sets, const char *want)
{
    rs_config *cfg = preset_config(preset, sets);
    model m;
    rs_err err = { 0 };
    int rc = model_open(&m, cfg, &err);
    CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want), "%s %s: rc %d '%s', want '%s'", preset,
              sets[0], rc, err.msg, want);
    model_close(&m);
    rs_config_free(cfg);
}

static void test_exact_checked(void)
{
    static const char *periodic[] = { "trim=periodic", NULL };
    static const char *policy[] = { "cache=lru-mid", NULL };
    static const char *fifo[] = { "cache=fifo", NULL };
    static const char *layout[] = { "layout=kv-map", "kv_containers_tracked=true", NULL };
    static const char *autotune[] = { "exact=none", "trim=autotune", "kv_cache_limit_objects=10",
                                      NULL };
    refused("kv-lru", periodic, "trim=on-insert");
    refused("kv-lru", policy, "needs cache=lru");
    refused("kv-lru", fifo, "needs cache=lru");
    refused("kv-fifo", periodic, "trim=on-insert");
    refused("kv-lru", layout, "accounted bytes are the object's");
    refused("kv-lru", autotune, "kv_cache_limit_objects");
    /* a pin has no place in an exact cache: refused, not obeyed */
    {
        static const char *none0[] = { NULL };
        rs_config *c = preset_config("kv-lru", none0);
        model m;
        rs_err err = { 0 };
        rs_rec get = { .t_ns = 1, .key = 7, .size_bytes = 100, .op = RS_OP_GET };
        rs_rec pin = { .t_ns = 2, .key = 7, .size_bytes = 100, .op = RS_OP_PIN };
        CHECK(model_open(&m, c, &err) == 0);
        CHECK(m.c.daemon->op(m.state, &get, NULL, &err) == 0);
        int rc = m.c.daemon->op(m.state, &pin, NULL, &err);
        CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, "exact=none"), "PIN: rc %d '%s'", rc, err.msg);
        model_close(&m);
        rs_config_free(c);
    }
    /* and the presets as written are what they say */
    static const char *none[] = { NULL };
    rs_config *cfg = preset_config("kv-lru", none);
    CHECK(!strcmp(rs_config_string(cfg, "exact"), "lru"));
    rs_config_free(cfg);
    cfg = preset_config("kv-fifo", none);
    CHECK(!strcmp(rs_config_string(cfg, "exact"), "fifo"));
    rs_config_free(cfg);
}

/* A count limit under the periodic trim: each pass leaves at most the
 * limit, a pass is due only when the count (not the 0 byte limit) is over,
 * and kv_cache_limit = 0 beside it bounds nothing (the cache is not
 * emptied). */
static void test_count_periodic(void)
{
    static rs_rec recs[RECORDS];
    static const char *sets[] = { "trim=periodic", "trim_interval=5us", "kv_cache_limit=0",
                                  "kv_cache_limit_objects=50", "exact=none", NULL };
    rs_config *cfg = preset_config("kv-lru", sets);
    model m;
    rs_err err;
    uint64_t passes = 0, bad_after = 0, low_after = 0, most = 0;

    make_trace(5, 200000, recs);
    CHECK_MSG(model_open(&m, cfg, &err) == 0, "%s", err.msg);
    for (int i = 0; i < RECORDS && m.state; i++) {
        rs_daemon_stats st;
        while (rs_evq_next_ns(&m.eng.q) <= recs[i].t_ns) {
            rs_event ev;
            CHECK(rs_evq_pop(&m.eng.q, &ev, &err) == 0);
            m.eng.now_ns = ev.t_ns;
            ev.fn(ev.ctx, ev.t_ns);
            m.c.daemon->stats(m.state, &st);
            passes++;
            bad_after += st.items_count > 50;
            low_after += i > RECORDS / 2 && st.items_count < 45;
        }
        m.eng.now_ns = recs[i].t_ns;
        CHECK(m.c.daemon->op(m.state, &recs[i], NULL, &err) == 0);
        m.c.daemon->stats(m.state, &st);
        if (st.items_count > most)
            most = st.items_count;
    }
    rs_daemon_stats st;
    m.c.daemon->stats(m.state, &st);
    CHECK_MSG(passes > 1000 && st.trim.trims_count > 100, "passes %llu trims %llu",
              (unsigned long long)passes, (unsigned long long)st.trim.trims_count);
    CHECK_MSG(bad_after == 0, "%llu passes left more than 50 objects", (unsigned long long)bad_after);
    CHECK_MSG(low_after == 0, "%llu passes left the cache under 45 objects", (unsigned long long)low_after);
    CHECK_MSG(most > 50 && most <= 56, "at most %llu objects between passes of 5 records",
              (unsigned long long)most);
    model_close(&m);
    rs_config_free(cfg);
}

int main(void)
{
    test_sequences();
    test_count_periodic();
    test_run_metrics();
    test_exact_checked();
    return check_done();
}
