/*
 * test_tcmalloc_real.c — the tcmalloc model's derived tables and rules
 * checked against the installed library (Debian libgoogle-perftools-dev
 * 2.10, libtcmalloc_minimal; wired by tests/tcmalloc.cmake, which links it
 * and defines RS_HAVE_TCMALLOC; without it the test exits 77 = skipped).
 *
 * Checked: the 85 classes = the distinct tc_nallocx(n, 0) for n in
 * 1..262144; the model's usable size = tc_nallocx for every n in 1..300000;
 * pages per span of every class, observed as the step by which the page
 * heap's in-use bytes (generic.heap_size - pageheap_free - pageheap_unmapped)
 * grow when a class needs a new span; the thread cache's LIFO reuse; the
 * default tcmalloc.max_total_thread_cache_bytes; the start-up metadata (the
 * page-map leaf exists before the first allocation, model and library).
 * The library's metadata at
 * this point is printed next to the model's estimate.  Allocations use
 * tc_malloc/tc_free so that the test also works when a sanitizer interposes
 * malloc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "models/alloc/tcmalloc.h"

#ifndef RS_HAVE_TCMALLOC
int main(void)
{
    printf("libtcmalloc_minimal not found at configure time: skipped\n");
    return 77;
}
#else
#include <gperftools/malloc_extension_c.h>
#include <gperftools/nallocx.h>
#include <gperftools/tcmalloc.h>

static size_t prop(const char *name)
{
    size_t v = 0;
    CHECK_MSG(MallocExtension_GetNumericProperty(name, &v) == 1, "property %s", name);
    return v;
}

static size_t pageheap_in_use(void)
{
    return prop("generic.heap_size") - prop("tcmalloc.pageheap_free_bytes") -
           prop("tcmalloc.pageheap_unmapped_bytes");
}

static void test_classes(void)
{
    rs_tc_class c[RS_TC_CLASS_MAX];
    unsigned n = rs_tc_classes(c), distinct = 0, bad = 0;
    size_t prev = 0;
    for (size_t s = 1; s <= 262144; s++) {
        size_t v = tc_nallocx(s, 0);
        if (v != prev) {
            distinct++;
            if (distinct > n || c[distinct].size_bytes != v) {
                if (bad++ < 5)
                    fprintf(stderr, "class %u: library %zu, model %u\n", distinct, v,
                            distinct <= n ? c[distinct].size_bytes : 0);
            }
            prev = v;
        }
    }
    CHECK_EQ_U64(distinct, 85);
    CHECK_EQ_U64(distinct, n);
    CHECK_EQ_U64(bad, 0);
}

static void test_usable(void)
{
    void *st = NULL;
    rs_err err = {0};
    CHECK(rs_alloc_tcmalloc.create(NULL, &st, &err) == 0);
    unsigned bad = 0;
    for (size_t s = 1; s <= 300000; s++) {
        uint64_t m = rs_alloc_tcmalloc.usable_size(st, s);
        if (m != tc_nallocx(s, 0) && bad++ < 5)
            fprintf(stderr, "tc_nallocx(%zu) = %zu, model %llu\n", s, tc_nallocx(s, 0),
                    (unsigned long long)m);
    }
    CHECK_EQ_U64(bad, 0);
    /* a real allocation's size agrees too */
    unsigned bad_size = 0;
    for (size_t s = 1; s <= 70000; s += 1 + s / 16) {
        void *p = tc_malloc(s);
        bad_size += !p || tc_malloc_size(p) != rs_alloc_tcmalloc.usable_size(st, s);
        tc_free(p);
    }
    CHECK_EQ_U64(bad_size, 0);
    rs_alloc_tcmalloc.destroy(st);
}

/* Pages per span: each time a class takes a new span from the page heap,
 * the heap's in-use bytes grow by exactly that span. */
static void test_pages_per_span(void)
{
    rs_tc_class c[RS_TC_CLASS_MAX];
    unsigned n = rs_tc_classes(c), bad = 0, unobserved = 0;
    enum { CAP = 8192 };
    static void *held[CAP];
    for (unsigned cl = 1; cl <= n; cl++) {
        unsigned k = 0, steps = 0;
        size_t before = pageheap_in_use();
        while (k < CAP && steps < 2 && k < 4 * c[cl].objects + 64) {
            held[k++] = tc_malloc(c[cl].size_bytes);
            size_t after = pageheap_in_use();
            if (after != before) {
                steps++;
                if (after - before != (size_t)c[cl].pages * 8192 && bad++ < 5)
                    fprintf(stderr, "class %u (%u B): span of %zu bytes, model %u pages\n", cl,
                            c[cl].size_bytes, after - before, c[cl].pages);
            }
            before = after;
        }
        unobserved += steps == 0;
        while (k)
            tc_free(held[--k]);
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(unobserved, 0);
}

static void test_thread_cache_lifo(void)
{
    void *p = tc_malloc(64), *q = tc_malloc(64);
    tc_free(p);
    tc_free(q);
    void *r = tc_malloc(64), *s = tc_malloc(64);
    CHECK(r == q);
    CHECK(s == p);
    tc_free(r);
    tc_free(s);
}

static size_t lib_metadata(void)
{
    return prop("generic.total_physical_bytes") - prop("generic.heap_size") +
           prop("tcmalloc.pageheap_unmapped_bytes");
}

/* Start-up state (tcmalloc.cc TCMallocGuard runs tc_free(tc_malloc(1)) at
 * load): before this program's first allocation the library has a heap and
 * the 2 MiB page-map leaf covering it; growing the heap by 4 MiB of 1 KiB
 * objects then adds far less than a leaf of metadata.  The model starts
 * with the leaf too (its metadata does not grow by 2 MiB on the first
 * malloc).  start_heap and start_meta are read first thing in main. */
static size_t start_heap, start_meta;

static void test_startup_metadata(void)
{
    CHECK(start_heap >= 128 * 8192);
    CHECK(start_meta >= 2u << 20);
    size_t heap0 = prop("generic.heap_size"), meta0 = lib_metadata();
    enum { N = 4096 };
    static void *held[N];
    void *st = NULL;
    rs_err err = {0};
    CHECK(rs_alloc_tcmalloc.create(NULL, &st, &err) == 0);
    rs_alloc_stats m0, m1;
    rs_alloc_tcmalloc.stats(st, &m0);
    rs_addr *a = calloc(N, sizeof *a);
    CHECK(a != NULL);
    for (unsigned i = 0; i < N; i++) {
        held[i] = tc_malloc(1024);
        a[i] = rs_alloc_tcmalloc.alloc(st, 1024, 0, 0);
    }
    rs_alloc_tcmalloc.stats(st, &m1);
    size_t lib_growth = lib_metadata() - meta0;
    printf("metadata growth over 4 MiB of 1 KiB objects: library %zu B, model %llu B\n", lib_growth,
           (unsigned long long)(m1.metadata_bytes - m0.metadata_bytes));
    CHECK(prop("generic.heap_size") > heap0);
    CHECK(lib_growth < (1u << 20));
    CHECK(m1.metadata_bytes - m0.metadata_bytes < (1u << 20));
    for (unsigned i = 0; i < N; i++) {
        tc_free(held[i]);
        rs_alloc_tcmalloc.free(st, a[i], 1024, 0, 0);
    }
    free(a);
    rs_alloc_tcmalloc.destroy(st);
}

static void test_defaults(void)
{
    if (!getenv("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES"))
        CHECK_EQ_U64(prop("tcmalloc.max_total_thread_cache_bytes"), 32u << 20);
    void *st = NULL;
    rs_err err = {0};
    CHECK(rs_alloc_tcmalloc.create(NULL, &st, &err) == 0);
    rs_addr a = rs_alloc_tcmalloc.alloc(st, 64, 0, 0);
    rs_tc_stats m;
    rs_tc_stats_get(st, &m);
    size_t lib_meta = prop("generic.total_physical_bytes") - prop("generic.heap_size") +
                      prop("tcmalloc.pageheap_unmapped_bytes");
    printf("metadata: library %.2f MB (tcmalloc's metadata_bytes, excluding its static "
           "arrays), model estimate %.2f MB (including them)\n", lib_meta / 1e6, m.metadata / 1e6);
    CHECK(lib_meta > 0);
    rs_alloc_tcmalloc.free(st, a, 64, 0, 0);
    rs_alloc_tcmalloc.destroy(st);
}

int main(void)
{
    start_heap = prop("generic.heap_size");
    start_meta = lib_metadata();
    test_classes();
    test_usable();
    test_thread_cache_lifo();
    test_pages_per_span();
    test_defaults();
    test_startup_metadata();
    return check_done();
}
#endif
