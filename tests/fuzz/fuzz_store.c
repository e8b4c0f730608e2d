/*
 * fuzz_store.c — libFuzzer target over the store's readers.
 *
 * The input bytes are an SQLite database image (the seeds are small real
 * rssim databases: a replay, a sweep, a plan; scripts/fuzz), held in memory
 * (rs_store_open_image; one input in 32, by a hash of its bytes, written as a file and opened with
 * rs_store_open_ro), and read the way the commands that take a database
 * read it: opened read-only (`runs`, `report`, `plot`), every run listed with
 * metrics and params (rs_query_runs, `runs list`), each run's row, params,
 * metrics, sample span and samples (`runs show`, `runs export`, `plot`),
 * its sweep (`report`), the plans and their evaluations, two runs' samples
 * joined (`compare`), and the image merged into a fresh database
 * (rs_store_merge_image, or rs_store_merge of the file, `db merge`).  Any outcome but success or a clean failure
 * (RS_EINPUT: not an rssim database or a malformed one; RS_EDB: another
 * schema version, or SQLite refusing; RS_ENOTFOUND: a row that is not
 * there) with a message is a finding, as is a crash, a leak or UB.
 * Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim/query.h"
#include "sim/store.h"

enum { MAX_RUNS = 64 };

typedef struct seen {
    int64_t ids[MAX_RUNS];
    int64_t sweeps[MAX_RUNS];
    size_t n;
    uint64_t rows;
} seen;

static void clean(int rc, const rs_err *err)
{
    if (rc == 0)
        return;
    if (rc != RS_EINPUT && rc != RS_EDB && rc != RS_ENOTFOUND)
        __builtin_trap(); /* not a clean failure */
    if (!err->msg[0])
        __builtin_trap(); /* a failure that says nothing */
}

static int on_run(void *ctx, const rs_query_run *run, const double *metrics,
                  const char *const *params, rs_err *err)
{
    seen *s = ctx;
    (void)metrics;
    (void)params;
    (void)err;
    if (s->n < MAX_RUNS) {
        s->ids[s->n] = run->id;
        s->sweeps[s->n] = run->has_sweep_id ? run->sweep_id : 0;
        s->n++;
    }
    return 0;
}

static int on_sample(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    (void)run_id;
    (void)smp;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_pair(void *ctx, const rs_sample *a, const rs_sample *b, rs_err *err)
{
    (void)a;
    (void)b;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_metric(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    (void)run_id;
    (void)value;
    (void)err;
    if (!name)
        __builtin_trap();
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    (void)value;
    (void)err;
    if (!key)
        __builtin_trap();
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_eval(void *ctx, int64_t run_id, uint64_t seed, int64_t limit_bytes, int reused,
                   uint32_t sample_k, rs_err *err)
{
    (void)sample_k;
    (void)run_id;
    (void)seed;
    (void)limit_bytes;
    (void)reused;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

/* Read the store as the readers do; data != NULL: the image in memory
 * (rs_store_open_image), else the file at path (rs_store_open_ro). */
static void read_all(const char *path, const uint8_t *data, size_t size)
{
    static const char *const metric_names[] = { "rss_steady_bytes", "overshoot_p99" };
    static const char *const param_keys[] = { "alloc", "kv_cache_limit" };
    static const char *const cols[] = { "t_ns", "rss_bytes", "x", "overshoot" };
    rs_query_runs_filter f = { .metrics = metric_names, .nmetrics = 2, .params = param_keys,
                               .nparams = 2 };
    rs_store *st;
    rs_err err = { 0 };
    seen s = { 0 };
    int rc;

    rc = data ? rs_store_open_image(&st, path, data, size, 0, &err)
              : rs_store_open_ro(&st, path, &err);
    clean(rc, &err);
    if (rc)
        return;
    clean(rs_query_runs(st, &f, on_run, &s, &err), &err);
    for (size_t i = 0; i < s.n; i++) {
        rs_query_run run;
        rs_query_scope one = { .run_id = s.ids[i] };
        int64_t count, first, last;
        memset(&err, 0, sizeof err);
        if (!(rc = rs_query_run_get(st, s.ids[i], &run, &err)))
            rs_query_run_release(&run);
        clean(rc, &err);
        clean(rs_query_params(st, s.ids[i], on_param, &s, &err), &err);
        clean(rs_query_metrics(st, &one, on_metric, &s, &err), &err);
        clean(rs_query_samples_span(st, s.ids[i], &count, &first, &last, &err), &err);
        clean(rs_query_samples(st, &one, NULL, 0, on_sample, &s, &err), &err);
        clean(rs_query_samples(st, &one, cols, 4, on_sample, &s, &err), &err);
        if (s.sweeps[i]) {
            rs_query_sweep sw;
            rs_query_scope sweep = { .sweep_id = s.sweeps[i] };
            rs_query_runs_filter fs = f;
            fs.sweep_id = s.sweeps[i];
            if (!(rc = rs_query_sweep_get(st, s.sweeps[i], &sw, &err)))
                rs_query_sweep_release(&sw);
            clean(rc, &err);
            clean(rs_query_metrics(st, &sweep, on_metric, &s, &err), &err);
            clean(rs_query_runs(st, &fs, on_run, &s, &err), &err);
        }
        if (i > 0)
            clean(rs_query_samples_join(st, s.ids[i - 1], s.ids[i], cols, 4, on_pair, &s, &err),
                  &err);
    }
    if (s.n)
        clean(rs_query_params_varying(st, s.ids, s.n, on_param, &s, &err), &err);
    int has = 0;
    clean(rs_query_has_plans(st, &has, &err), &err);
    for (int64_t id = 1; has && id <= 3; id++) {
        rs_query_plan plan;
        if (!(rc = rs_query_plan_get(st, id, &plan, &err)))
            rs_query_plan_release(&plan);
        clean(rc, &err);
        clean(rs_query_plan_evals(st, id, on_eval, &s, &err), &err);
    }
    rs_store_close(st);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* SQLite's memory from an allocator of this target (SQLITE_CONFIG_MALLOC,
 * set before SQLite starts) instead of ASan's malloc: the system's SQLite is
 * built without lookaside, so every parser node and page of every query was
 * an ASan malloc (a stack trace saved, 4 KiB filled, and memory the
 * quarantine had not recycled: most of an input's time went to faulting in
 * fresh pages).  Blocks of powers of two from an arena that is never given
 * back, reused first in, first out once a class has QUARANTINE free blocks;
 * what is past a block's requested bytes, its header, a free block and the
 * arena past the newest block stay poisoned (ASan's manual poisoning), so a
 * read or write of the store's code past a column's value, before it or into
 * a freed statement's memory is still caught — only a use after at least
 * QUARANTINE frees of that size is not (checked by hand: a read at byte 16
 * of a 16-byte block, the newest, at byte -1, after a free, at byte 100 of
 * a 100-byte and at 2000000 of a 2000000-byte block each stop the target;
 * SQLite's memory statistics are off, so it asks for its own sizes, not
 * ones rounded up to 8).  SQLite calls it from one thread (the target has
 * no other). */
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

enum { MIN_SHIFT = 4, MAX_SHIFT = 24, HDR = 16, QUARANTINE = 64 };
#define ARENA_BYTES ((size_t)1 << 34) /* reserved, not committed */

typedef struct blk {
    struct blk *next; /* while free */
    uint32_t shift;
    uint32_t size; /* requested */
} blk;

static unsigned char *arena, *arena_top, *poisoned_top; /* [arena_top, poisoned_top): poisoned */
static struct {
    blk *head, *tail;
    size_t n;
} fifo[MAX_SHIFT + 1];

/* A block's header stays poisoned for its whole life (a read of the store's
 * code just before a value is an error), and only these read and write it:
 * they are not instrumented by ASan, so no poison and unpoison of 16 bytes
 * around every access (each a walk of the shadow), and not by the coverage
 * either (the allocator's branches are no feedback on the store's; the same
 * for the functions below). */
#define HARNESS __attribute__((no_sanitize("address", "coverage")))

HARNESS static uint32_t hdr_shift(const blk *b) { return b->shift; }
HARNESS static uint32_t hdr_size(const blk *b) { return b->size; }
HARNESS static blk *hdr_next(const blk *b) { return b->next; }
HARNESS static void hdr_set(blk *b, blk *next, uint32_t shift, uint32_t size)
{
    b->next = next;
    b->shift = shift;
    b->size = size;
}

HARNESS static void hdr_link(blk *b, blk *next) { b->next = next; }

__attribute__((no_sanitize("coverage"))) static void *mem_malloc(int n)
{
    if (n <= 0)
        return NULL;
    size_t need = (size_t)n + HDR;
    uint32_t shift = need <= ((size_t)1 << MIN_SHIFT) ? MIN_SHIFT
                                                       : 64 - (uint32_t)__builtin_clzll(need - 1);
    if (shift > MAX_SHIFT)
        return NULL; /* SQLite: out of memory (no input of at most 200 KB asks this much) */
    blk *b;
    if (fifo[shift].n > QUARANTINE) {
        b = fifo[shift].head; /* poisoned whole since its free */
        fifo[shift].head = hdr_next(b);
        fifo[shift].n--;
    } else {
        size_t bytes = (size_t)1 << shift;
        if ((size_t)(arena + ARENA_BYTES - arena_top) < bytes)
            return NULL;
        b = (blk *)arena_top;
        arena_top += bytes;
        /* poisoned ahead of the top, a MiB at a time: a new block is
         * poisoned already, and so is the header after the last one (a read
         * past the newest block's end is caught too) */
        if (poisoned_top < arena_top + HDR) {
            size_t ahead = (size_t)(arena_top + HDR - poisoned_top) + ((size_t)1 << 20);
            if (ahead > (size_t)(arena + ARENA_BYTES - poisoned_top))
                ahead = (size_t)(arena + ARENA_BYTES - poisoned_top);
            ASAN_POISON_MEMORY_REGION(poisoned_top, ahead);
            poisoned_top += ahead;
        }
    }
    hdr_set(b, NULL, shift, (uint32_t)n);
    unsigned char *p = (unsigned char *)b + HDR;
    ASAN_UNPOISON_MEMORY_REGION(p, (size_t)n);
    return p;
}

__attribute__((no_sanitize("coverage"))) static void mem_free(void *p)
{
    if (!p)
        return;
    blk *b = (blk *)((unsigned char *)p - HDR);
    uint32_t shift = hdr_shift(b), size = hdr_size(b);
    memset(p, 0xfd, size); /* what is read of it after the reuse is junk, not stale */
    hdr_link(b, NULL);
    if (fifo[shift].tail)
        hdr_link(fifo[shift].tail, b);
    else
        fifo[shift].head = b;
    fifo[shift].tail = b;
    fifo[shift].n++;
    ASAN_POISON_MEMORY_REGION(p, size); /* the rest is poisoned since malloc */
}

__attribute__((no_sanitize("coverage"))) static int mem_size(void *p)
{
    return p ? (int)hdr_size((blk *)((unsigned char *)p - HDR)) : 0;
}

__attribute__((no_sanitize("coverage"))) static void *mem_realloc(void *p, int n)
{
    int old = mem_size(p);
    void *q = mem_malloc(n);
    if (q && p)
        memcpy(q, p, (size_t)(old < n ? old : n));
    if (q)
        mem_free(p);
    return q;
}

static int mem_roundup(int n)
{
    return (n + 7) & ~7;
}

static int mem_init(void *ctx)
{
    (void)ctx;
    return 0;
}

static void mem_shutdown(void *ctx)
{
    (void)ctx;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const sqlite3_mem_methods methods = { mem_malloc, mem_free, mem_realloc, mem_size,
                                                 mem_roundup, mem_init, mem_shutdown, NULL };
    (void)argc;
    (void)argv;
    arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    /* no memory statistics: nothing of rssim reads them (sqlite3_memory_used,
     * a heap limit), and keeping them took SQLite's memory mutex and a
     * mem_size per malloc and per free */
    if (arena == MAP_FAILED || sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK)
        __builtin_trap();
    arena_top = poisoned_top = arena;
    return 0;
}

/* The input's route: FNV-1a over its bytes, 8 at a time, folded.  Not its size (it
 * was size % 32): a database is whole pages (4 KiB, a multiple of 32), so
 * every seed and most of what grew from one, which keep their size, went
 * through the files.  Every byte counts, so a mutant of an input of either
 * route takes the files 1 time in 32.  Kept out of the coverage
 * instrumentation: a compare callback per word of an 86 KB input is
 * feedback on nothing of the store's. */
__attribute__((no_sanitize("coverage"))) static uint64_t route(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u ^ size, w;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        memcpy(&w, data + i, 8);
        h = (h ^ w) * 0x100000001b3u;
        h ^= h >> 32; /* the high bits into the low: the route is h % 32 */
    }
    for (; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    return h ^ h >> 29;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void *empty; /* a new database's image, made once: the merge's destination */
    static size_t empty_size;
    char in[64], out[64], side[80];
    rs_store *st;
    rs_err err = { 0 };
    uint64_t copied = 0;

    if (!empty) {
        if (rs_store_open_image(&st, "merged", NULL, 0, 1, &err) ||
            rs_store_image(st, &empty, &empty_size, &err) || !empty)
            __builtin_trap();
        rs_store_close(st);
    }
    /* 31 inputs in 32 are read and merged in memory (rs_store_open_image,
     * rs_store_merge_image: the same readers and merge, without a file
     * written, synced and locked per input, and into a copy of a new
     * database's image instead of a file created with the schema); the
     * 32nd (by a hash of every byte; 3 times an image's cost) goes through
     * files as `runs`, `report` and `db merge` of a file do: rs_store_open_ro
     * (its WAL, -shm and immutable fallbacks), rs_store_open and
     * rs_store_merge */
    if (route(data, size) % 32 != 0) {
        read_all("fuzz-input", data, size);
        if (rs_store_open_image(&st, "merged", empty, empty_size, 1, &err))
            __builtin_trap();
        clean(rs_store_merge_image(st, "fuzz-input", data, size, &copied, &err), &err);
        rs_store_close(st);
        return 0;
    }
    /* on tmpfs when there is one: SQLite syncs every commit */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(in, sizeof in, "%s/rssim-fuzz-store-%ld.db", dir, (long)getpid());
    snprintf(out, sizeof out, "%s/rssim-fuzz-store-%ld-merged.db", dir, (long)getpid());
    FILE *fp = fopen(in, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        __builtin_trap();
    read_all(in, NULL, 0);
    /* db merge: the file as the source of a merge into a new database */
    unlink(out);
    if (rs_store_open(&st, out, &err))
        __builtin_trap();
    clean(rs_store_merge(st, in, &copied, &err), &err);
    rs_store_close(st);
    for (int k = 0; k < 2; k++) {
        const char *paths[2] = { in, out };
        unlink(paths[k]);
        snprintf(side, sizeof side, "%s-wal", paths[k]);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", paths[k]);
        unlink(side);
        snprintf(side, sizeof side, "%s-journal", paths[k]);
        unlink(side);
    }
    return 0;
}
