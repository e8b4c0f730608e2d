/*
 * bench_lru_floor.c — the floor scripts/bench measures rssim against: a bare
 * exact LRU by bytes (one open-addressing hash table and one doubly linked
 * list in arrays), written for speed and nothing else.  It is a fixed
 * reference, not a model: no allocator, no layout, no sampling, no store.
 *
 *   bench_lru_floor TRACE CAPACITY_BYTES
 *   bench_lru_floor TRACE --oracle OUT   write TRACE's GETs as libCacheSim
 *                                        oracleGeneral records (for cachesim)
 *
 * The kv trace is read into memory first through rssim's reader (not
 * timed); then the loop over its requests is timed.  Semantics (libCacheSim
 * LRU, as rssim's kv-lru preset): GET of a cached key is a hit and moves it
 * to the head; a GET miss inserts it, evicting from the tail until it fits;
 * an object larger than the capacity is not admitted; SET inserts or
 * replaces; DEL removes.  Prints requests (GETs), misses, and the loop's CPU
 * time per record (CPU time, so that a busy machine does not inflate it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../traces/trace.h"

typedef struct { uint64_t key; uint32_t size, prev, next; } node;
enum { NIL = UINT32_MAX };

static node *nodes;
static uint32_t *table, mask, head = NIL, tail = NIL, nfree_top;
static uint32_t *free_ids;
static uint64_t used, cap;

static uint32_t *slot_of(uint64_t key) /* the slot holding key, or the empty slot for it */
{
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (table[i] != NIL && nodes[table[i]].key != key)
        i = (i + 1) & mask;
    return &table[i];
}

static void unlink_node(uint32_t n)
{
    node *x = &nodes[n];
    if (x->prev != NIL) nodes[x->prev].next = x->next; else head = x->next;
    if (x->next != NIL) nodes[x->next].prev = x->prev; else tail = x->prev;
}

static void push_head(uint32_t n)
{
    nodes[n].prev = NIL;
    nodes[n].next = head;
    if (head != NIL) nodes[head].prev = n; else tail = n;
    head = n;
}

static void remove_key(uint32_t *s) /* backward-shift delete of slot s */
{
    uint32_t n = *s, i = (uint32_t)(s - table);
    unlink_node(n);
    used -= nodes[n].size;
    free_ids[nfree_top++] = n;
    for (uint32_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (table[j] == NIL)
            break;
        uint32_t h = (uint32_t)((nodes[table[j]].key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
        if (((j - h) & mask) >= ((j - i) & mask)) { /* j's home is not in (i, j] */
            table[i] = table[j];
            i = j;
        }
    }
    table[i] = NIL;
}

static void insert(uint32_t *s, uint64_t key, uint64_t size)
{
    if (size > cap)
        return; /* never admitted */
    while (used + size > cap)
        remove_key(slot_of(nodes[tail].key));
    s = slot_of(key); /* the evictions may have moved its slot */
    uint32_t n = free_ids[--nfree_top];
    nodes[n].key = key;
    nodes[n].size = (uint32_t)size;
    *s = n;
    push_head(n);
    used += size;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[2], "--oracle") == 0)) {
        fprintf(stderr, "usage: bench_lru_floor TRACE CAPACITY_BYTES | TRACE --oracle OUT\n");
        return 2;
    }
    cap = strtoull(argv[2], NULL, 10);
    rs_err err = { 0 };
    rs_trace *tr = NULL;
    rs_rec r, *recs = NULL;
    size_t n = 0, ncap = 0;
    if (rs_trace_open(&tr, argv[1], &err)) {
        fprintf(stderr, "bench_lru_floor: %s\n", err.msg);
        return 2;
    }
    int rc;
    while ((rc = rs_trace_next(tr, &r, &err)) == 1) {
        if (n == ncap && !(recs = realloc(recs, (ncap = ncap ? 2 * ncap : 1 << 20) * sizeof *recs)))
            return 1;
        recs[n++] = r;
    }
    rs_trace_close(tr);
    if (rc < 0) {
        fprintf(stderr, "bench_lru_floor: %s\n", err.msg);
        return 2;
    }
    if (argc == 4) { /* oracleGeneral: u32 time (s), u64 id, u32 size, i64 next (-1: unknown) */
        FILE *f = fopen(argv[3], "wb");
        if (!f)
            return 1;
        for (size_t i = 0; i < n; i++) {
            if (recs[i].op != RS_OP_GET)
                continue;
            unsigned char o[24];
            uint32_t t = (uint32_t)(recs[i].t_ns / 1000000000u), sz = (uint32_t)recs[i].size_bytes;
            uint64_t id = recs[i].key;
            int64_t next = -1;
            memcpy(o, &t, 4);
            memcpy(o + 4, &id, 8);
            memcpy(o + 12, &sz, 4);
            memcpy(o + 16, &next, 8);
            if (fwrite(o, 1, sizeof o, f) != sizeof o)
                return 1;
        }
        return fclose(f) ? 1 : 0;
    }
    /* Sized for the distinct keys (counted first, not timed), so the
     * table and the nodes are as small as the cache's working set allows. */
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t distinct = 0;
    if (!keys)
        return 1;
    for (size_t i = 0; i < n; i++)
        keys[i] = recs[i].key;
    qsort(keys, n, sizeof *keys, cmp_u64);
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || keys[i] != keys[i - 1];
    free(keys);
    uint32_t slots = 1;
    while (slots < 2 * distinct + 2) /* at most one node per distinct key */
        slots <<= 1;
    mask = slots - 1;
    nodes = malloc((distinct + 1) * sizeof *nodes);
    free_ids = malloc((distinct + 1) * sizeof *free_ids);
    table = malloc((size_t)slots * sizeof *table);
    if (!nodes || !free_ids || !table)
        return 1;
    memset(table, 0xff, (size_t)slots * sizeof *table);
    for (size_t i = 0; i <= distinct; i++)
        free_ids[nfree_top++] = (uint32_t)(distinct - i);

    struct timespec t0, t1;
    uint64_t gets = 0, misses = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0); /* CPU time: a shared machine */
    for (size_t i = 0; i < n; i++) {
        uint32_t *s = slot_of(recs[i].key);
        switch (recs[i].op) {
        case RS_OP_GET:
            gets++;
            if (*s != NIL) {
                unlink_node(*s);
                push_head(*s);
            } else {
                misses++;
                insert(s, recs[i].key, recs[i].size_bytes);
            }
            break;
        case RS_OP_SET:
            if (*s != NIL)
                remove_key(s);
            insert(slot_of(recs[i].key), recs[i].key, recs[i].size_bytes);
            break;
        case RS_OP_DEL:
            if (*s != NIL)
                remove_key(s);
            break;
        default: break;
        }
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("requests %" PRIu64 " misses %" PRIu64 " miss_ratio %.6f records %zu ns_per_record %.2f\n",
           gets, misses, gets ? (double)misses / (double)gets : 0.0, n, ns / (double)n);
    free(recs);
    free(nodes);
    free(free_ids);
    free(table);
    return 0;
}
