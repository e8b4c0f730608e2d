/*
 * rssim_real.c — rssim-real: the ground-truth replayer (docs/validation.md).
 *
 *   rssim-real TRACE [--alloc glibc|jemalloc|tcmalloc] [--db PATH]
 *              [--sample-interval 100ms] [--label L] [--threads N]
 *
 * It replays an allocation trace (daemon=alloc: MALLOC, FREE, RELEASE) with
 * the REAL allocator and measures what the simulator predicts: at the same
 * virtual sample times as rssim's sampler it reads the process RSS and the
 * allocator's own statistics, then stores one run of kind "measured".
 *
 * How a measurement is kept honest:
 *   - the allocator: glibc is the one linked in; jemalloc and tcmalloc are
 *     Debian's libjemalloc.so.2 / libtcmalloc_minimal.so.4, put in front by
 *     re-executing this program with LD_PRELOAD.  Before replaying it checks
 *     which library `malloc` really resolves to and refuses to measure
 *     anything else (an ASan build, a foreign LD_PRELOAD).
 *   - the harness's heap footprint: the trace is read and checked in a first
 *     pass that copies its records to an unlinked temporary file; the replay
 *     reads that file with read(2) into a static buffer, keeps handle →
 *     pointer in an mmap'ed table and the samples in an mmap'ed buffer
 *     (grown by mremap), so nothing but the trace's own MALLOCs touches the
 *     heap during the replay.  The store (SQLite) is opened only afterwards.
 *   - a cold allocator: pass 1 runs, then the program re-executes itself
 *     (with LD_PRELOAD for jemalloc and tcmalloc) and hands the copy over
 *     (RSSIM_REAL_PASS1), so the process that replays has allocated nothing
 *     but its option parsing when the replay starts — the allocator is
 *     where a freshly started program's is, as the model's is.  The sha256
 *     of the trace is computed after the replay.
 *   - the baseline: the worker threads are started, the table and sample
 *     buffer are touched, the allocator's release call is made, and then
 *     RSS is read once: resident_bytes = rss − baseline (clamped at 0),
 *     base_bytes = baseline, so rss = resident + base as in the simulator.
 *     What the allocator holds at that moment (allocated, active, mapped,
 *     cached, metadata) is stored as baseline_*_bytes metrics.
 *   - touching: every MALLOC is followed by memset of all its bytes (the
 *     simulator assumes an application touches what it allocates).
 *   - threads: records of trace thread t run on worker t mod N, each a real
 *     pthread with its own thread cache.  Records are handed over one run
 *     of consecutive same-thread records at a time and the main thread waits
 *     for each run to finish, so the global order is exactly the trace's.
 *     Worker 0 is the main thread itself (trace thread 0 is a program's
 *     main thread, which has allocated before the trace starts, as the
 *     models assume); the others are pthreads started before the baseline.
 *   - virtual time: samples at 0, interval, 2·interval, … ≤ end and at the
 *     end (1 ns after the last record's time, so the last sample sees every
 *     record), each taken before the records of the same or a later time —
 *     exactly rssim's engine (sim/engine.c) with run_tail = 0.
 *
 * Exit status: 0 done, 1 environment/IO/database failure, 2 bad input or
 * usage.  Bad input is found in the first pass, before anything is stored.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "models/alloc/alloc.h"
#include "sim/base/config.h"
#include "sim/base/err.h"
#include "sim/base/result.h"
#include "sim/registry.h"
#include "sim/store.h"
#include "traces/format.h" /* rs_trace.line: FILE:LINE of semantic errors */
#include "traces/trace.h"
#include "../sim/base/hash.h"
#include "rssim_git.h" /* RSSIM_GIT, generated in the build folder */

#define PROG "rssim-real"
#define MAX_WORKERS 256
#define CHUNK_RECS 4096        /* records per read(2) of the replay file */
#define STEADY_FROM 0.5        /* as rssim's default steady_from */
#define TOUCH_BYTE 0x5a
#define MALLCTL_ALL 4096u      /* MALLCTL_ARENAS_ALL in jemalloc 5.x */
#define PASS1_ENV "RSSIM_REAL_PASS1" /* "fd records end_ns max_live max_thread" */

/* ---- which allocator ---------------------------------------------------- */

/* The allocator is a model from the registry with a real library
 * (rs_alloc_ops.real): its soname, package, the tag `malloc` must resolve
 * into and the API its statistics are read with.  Below, the functions of
 * each API, resolved once before the replay. */
typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef int (*getprop_fn)(const char *, size_t *);
typedef void (*release_fn)(void);

/* The active allocator's entry points, resolved once before the replay. */
static struct {
    rs_alloc_real_api api;
    mallctl_fn mallctl;
    getprop_fn getprop;
    release_fn tc_release;
} al;

static void al_release(void)
{
    switch (al.api) {
    case RS_ALLOC_API_MALLINFO2: malloc_trim(0); break;
    case RS_ALLOC_API_MALLCTL: {
        char cmd[32];
        snprintf(cmd, sizeof cmd, "arena.%u.purge", MALLCTL_ALL);
        al.mallctl(cmd, NULL, NULL, NULL, 0);
        break;
    }
    case RS_ALLOC_API_MALLOC_EXTENSION: al.tc_release(); break;
    }
}

static uint64_t je_get(const char *name)
{
    size_t v = 0, len = sizeof v;
    return al.mallctl(name, &v, &len, NULL, 0) == 0 ? (uint64_t)v : 0;
}

static uint64_t tc_get(const char *name)
{
    size_t v = 0;
    return al.getprop(name, &v) ? (uint64_t)v : 0;
}

/* Fill the allocator columns of *s from the allocator's own statistics. */
static void al_stats(rs_sample *s, uint64_t page_bytes)
{
    switch (al.api) {
    case RS_ALLOC_API_MALLINFO2: {
        struct mallinfo2 mi = mallinfo2();
        s->allocated_bytes = mi.uordblks + mi.hblkhd; /* mmapped chunks are live too */
        s->mapped_bytes = mi.arena + mi.hblkhd;
        s->dirty_bytes = mi.fordblks;
        break;
    }
    case RS_ALLOC_API_MALLCTL: {
        uint64_t ep = 1;
        size_t len = sizeof ep;
        al.mallctl("epoch", &ep, &len, &ep, len);
        s->allocated_bytes = je_get("stats.allocated");
        s->active_bytes = je_get("stats.active");
        s->mapped_bytes = je_get("stats.mapped");
        s->metadata_bytes = je_get("stats.metadata");
        s->cached_bytes = je_get("stats.arenas.4096.tcache_bytes");
        s->thread_cached_bytes = s->cached_bytes;
        s->unmapped_bytes = je_get("stats.retained");
        s->heap_bytes = s->mapped_bytes + s->unmapped_bytes;
        s->dirty_bytes = je_get("stats.arenas.4096.pdirty") * page_bytes;
        break;
    }
    case RS_ALLOC_API_MALLOC_EXTENSION: {
        uint64_t heap = tc_get("generic.heap_size"), unmapped = tc_get("tcmalloc.pageheap_unmapped_bytes");
        uint64_t pfree = tc_get("tcmalloc.pageheap_free_bytes");
        s->allocated_bytes = tc_get("generic.current_allocated_bytes");
        s->mapped_bytes = heap > unmapped ? heap - unmapped : 0;
        s->active_bytes = s->mapped_bytes > pfree ? s->mapped_bytes - pfree : 0;
        s->thread_cached_bytes = tc_get("tcmalloc.thread_cache_free_bytes");
        s->central_cached_bytes = tc_get("tcmalloc.central_cache_free_bytes");
        s->transfer_cached_bytes = tc_get("tcmalloc.transfer_cache_free_bytes");
        s->pageheap_free_bytes = pfree;
        s->cached_bytes = s->central_cached_bytes + s->transfer_cached_bytes + s->thread_cached_bytes;
        s->heap_bytes = heap;
        s->unmapped_bytes = unmapped;
        s->dirty_bytes = pfree;
        break;
    }
    }
}

/* Which library does `malloc` come from?  0 when it is ops' real one. */
typedef void (*getstats_fn)(char *, int);
typedef void (*stats_print_fn)(void (*)(void *, const char *), void *, const char *);

static void write_cb(void *f, const char *s)
{
    fputs(s, (FILE *)f);
}

/* Write the allocator's own text report (tcmalloc MallocExtension_GetStats,
 * jemalloc malloc_stats_print, glibc malloc_info) to path.  Called after the
 * replay: the report allocates. */
static int al_report(const char *path, rs_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", path, strerror(errno));
    switch (al.api) {
    case RS_ALLOC_API_MALLINFO2: malloc_info(0, f); break;
    case RS_ALLOC_API_MALLCTL: {
        stats_print_fn p = (stats_print_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "malloc_stats_print");
        if (!p) {
            fclose(f);
            return rs_fail(err, RS_EINTERNAL, "jemalloc is active but 'malloc_stats_print' is missing");
        }
        p(write_cb, f, NULL);
        break;
    }
    case RS_ALLOC_API_MALLOC_EXTENSION: {
        static char buf[1 << 20];
        getstats_fn g = (getstats_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "MallocExtension_GetStats");
        if (!g) {
            fclose(f);
            return rs_fail(err, RS_EINTERNAL, "tcmalloc is active but 'MallocExtension_GetStats' is missing");
        }
        g(buf, (int)sizeof buf);
        fputs(buf, f);
        break;
    }
    }
    if (fclose(f) != 0)
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", path, strerror(errno));
    return 0;
}

static int al_check_active(const rs_alloc_ops *ops, rs_err *err)
{
    Dl_info info = { 0 };
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    const char *lib = m && dladdr(m, &info) && info.dli_fname ? info.dli_fname : "?";

    if (!strstr(lib, ops->real->lib_tag))
        return rs_fail(err, RS_EINTERNAL,
                       "the active allocator is not %s: malloc comes from '%s'%s", ops->name,
                       lib, strstr(lib, "asan") ? " (AddressSanitizer build: measure with a normal build)" : "");
    al.api = ops->real->api;
    switch (al.api) {
    case RS_ALLOC_API_MALLINFO2: break;
    case RS_ALLOC_API_MALLCTL:
        al.mallctl = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
        if (!al.mallctl)
            return rs_fail(err, RS_EINTERNAL, "%s is active but 'mallctl' is missing", ops->name);
        break;
    case RS_ALLOC_API_MALLOC_EXTENSION:
        al.getprop = (getprop_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty");
        al.tc_release = (release_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory");
        if (!al.getprop || !al.tc_release)
            return rs_fail(err, RS_EINTERNAL, "%s is active but its MallocExtension C API is missing",
                           ops->name);
        break;
    }
    return 0;
}

/* Re-execute this program — with the allocator put in front by LD_PRELOAD
 * for jemalloc and tcmalloc — handing it pass 1's copy of the trace
 * (PASS1_ENV: its fd and what pass 1 learnt), so that the process that
 * replays starts with a cold allocator: nothing but its option parsing has
 * allocated before the baseline.  Returns only on failure. */
static int al_reexec(const rs_alloc_ops *ops, char **argv, const char *pass1_env, rs_err *err)
{
    const rs_alloc_real *a = ops->real;

    if (setenv(PASS1_ENV, pass1_env, 1))
        return rs_fail(err, RS_EINTERNAL, "cannot set %s: %s", PASS1_ENV, strerror(errno));
    if (!a->soname) { /* glibc: the same program, started afresh */
        execv("/proc/self/exe", argv);
        return rs_fail(err, RS_EINTERNAL, "cannot re-execute '/proc/self/exe': %s", strerror(errno));
    }
#if defined(__SANITIZE_ADDRESS__)
    return rs_fail(err, RS_EINTERNAL,
                   "this rssim-real is an AddressSanitizer build, which cannot run with %s preloaded; "
                   "measure with a normal build", ops->name);
#endif
    /* Probe in a child, so that the library's constructors never run here. */
    pid_t pid = fork();
    if (pid < 0)
        return rs_fail(err, RS_EINTERNAL, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        /* A library with initial-exec TLS (jemalloc) may refuse dlopen yet
         * preload fine: only "no such file" means it is missing. */
        const char *e = dlopen(a->soname, RTLD_LAZY | RTLD_LOCAL) ? NULL : dlerror();
        _exit(e && strstr(e, "No such file") ? 3 : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        return rs_fail(err, RS_EINTERNAL, "cannot load %s for --alloc %s (Debian: apt-get install %s)",
                       a->soname, ops->name, a->package);
    const char *old = getenv("LD_PRELOAD");
    char pre[4096];
    snprintf(pre, sizeof pre, "%s%s%s", a->soname, old && *old ? ":" : "", old ? old : "");
    if (setenv("LD_PRELOAD", pre, 1))
        return rs_fail(err, RS_EINTERNAL, "cannot set LD_PRELOAD: %s", strerror(errno));
    execv("/proc/self/exe", argv);
    return rs_fail(err, RS_EINTERNAL, "cannot re-execute '/proc/self/exe' with %s: %s", a->soname,
                   strerror(errno));
}

/* ---- mmap'ed memory ------------------------------------------------------ */

static void *map_bytes(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* ---- handle table: open addressing, linear probing, backward-shift delete */

typedef struct slot {
    uint64_t handle;
    void *ptr;           /* NULL = empty slot */
    uint64_t size_bytes; /* as allocated */
} slot;

typedef struct htable {
    slot *slots; /* mmap'ed */
    uint64_t mask, live;
} htable;

static inline uint64_t ht_find(const htable *t, uint64_t handle)
{
    uint64_t i = rs_hash64(handle) & t->mask;
    while (t->slots[i].ptr && t->slots[i].handle != handle)
        i = (i + 1) & t->mask;
    return i;
}

static void ht_release(htable *t)
{
    if (t->slots)
        munmap(t->slots, (t->mask + 1) * sizeof(slot));
    *t = (htable){ 0 };
}

/* (Re)size to hold at least want live handles at load ≤ 1/2, rehashing. */
static int ht_reserve(htable *t, uint64_t want, rs_err *err)
{
    uint64_t n = 1024;
    while (n < 2 * want)
        n *= 2;
    if (t->slots && n <= t->mask + 1)
        return 0;
    slot *s = map_bytes(n * sizeof(slot));
    if (!s)
        return rs_fail(err, RS_ENOMEM, "cannot map a table of %" PRIu64 " handles", n);
    htable nt = { .slots = s, .mask = n - 1, .live = t->live };
    for (uint64_t i = 0; t->slots && i <= t->mask; i++)
        if (t->slots[i].ptr)
            nt.slots[ht_find(&nt, t->slots[i].handle)] = t->slots[i];
    ht_release(t);
    *t = nt;
    return 0;
}

static void ht_remove(htable *t, uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].ptr)
            break;
        uint64_t home = rs_hash64(t->slots[j].handle) & t->mask;
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].ptr = NULL;
    t->live--;
}

/* ---- pass 1: read, check, copy the records ------------------------------ */

static rs_rec chunk[CHUNK_RECS]; /* static: pass 1's write buffer, the replay's read buffer */

typedef struct trace_info {
    uint64_t records, end_ns, max_live;
    unsigned max_thread;
} trace_info;

static int write_all(int fd, const void *p, size_t n, rs_err *err)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return rs_fail(err, RS_EIO, "cannot write the replay copy of the trace: %s", strerror(errno));
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* "PATH:LINE: [record N: ]" of the record just read. */
static void where(const rs_trace *tr, const char *path, uint64_t recno, char *buf, size_t cap)
{
    uint64_t line = tr->line - 1;
    if (rs_trace_numbered_records(tr))
        snprintf(buf, cap, "%s:%" PRIu64 ": record %" PRIu64 ": ", path, line, recno);
    else
        snprintf(buf, cap, "%s:%" PRIu64 ": ", path, line);
}

static int pass1(const char *path, int fd, trace_info *r_info, rs_err *err)
{
    rs_trace *tr = NULL;
    htable t = { 0 };
    trace_info info = { 0 };
    size_t nbuf = 0;
    char at[1200];
    rs_rec rec;
    int rc;

    if ((rc = rs_trace_open(&tr, path, err)))
        return rc;
    if (strcmp(rs_trace_daemon(tr), "alloc") != 0) {
        rc = rs_fail(err, RS_EINPUT, "%s:1: trace is for daemon '%s', but rssim-real replays 'alloc' traces",
                     path, rs_trace_daemon(tr));
        goto out;
    }
    if ((rc = ht_reserve(&t, 1024, err)))
        goto out;
    while ((rc = rs_trace_next(tr, &rec, err)) == 1) {
        info.records++;
        uint64_t i;
        switch (rec.op) {
        case RS_OP_MALLOC:
            if ((rc = ht_reserve(&t, t.live + 1, err)))
                goto out;
            i = ht_find(&t, rec.key);
            if (t.slots[i].ptr) {
                where(tr, path, info.records, at, sizeof at);
                rc = rs_fail(err, RS_EINPUT, "%sMALLOC of handle %" PRIu64 ": handle already live", at, rec.key);
                goto out;
            }
            t.slots[i] = (slot){ .handle = rec.key, .ptr = &t, .size_bytes = rec.size_bytes };
            if (++t.live > info.max_live)
                info.max_live = t.live;
            break;
        case RS_OP_FREE:
            i = ht_find(&t, rec.key);
            if (!t.slots[i].ptr) {
                where(tr, path, info.records, at, sizeof at);
                rc = rs_fail(err, RS_EINPUT, "%sFREE of handle %" PRIu64 ": no such live handle", at, rec.key);
                goto out;
            }
            if (t.slots[i].size_bytes != rec.size_bytes) {
                where(tr, path, info.records, at, sizeof at);
                rc = rs_fail(err, RS_EINPUT,
                             "%sFREE of handle %" PRIu64 ": size_bytes %" PRIu64 ", but it was allocated with %" PRIu64,
                             at, rec.key, rec.size_bytes, t.slots[i].size_bytes);
                goto out;
            }
            ht_remove(&t, i);
            break;
        case RS_OP_RELEASE:
            break;
        default:
            where(tr, path, info.records, at, sizeof at);
            rc = rs_fail(err, RS_EINPUT, "%sop %u cannot be replayed", at, rec.op);
            goto out;
        }
        if (rec.thread > info.max_thread)
            info.max_thread = rec.thread;
        info.end_ns = rec.t_ns + 1; /* the end is just after the last record */
        chunk[nbuf++] = rec;
        if (nbuf == CHUNK_RECS) {
            if ((rc = write_all(fd, chunk, sizeof chunk, err)))
                goto out;
            nbuf = 0;
        }
    }
    if (rc == 0 && nbuf)
        rc = write_all(fd, chunk, nbuf * sizeof(rs_rec), err);
out:
    ht_release(&t);
    rs_trace_close(tr);
    if (rc == 0)
        *r_info = info;
    return rc;
}

/* ---- the replay ---------------------------------------------------------- */

static htable table; /* handle → real pointer; touched by one thread at a time */

typedef struct job_fail {
    uint64_t index;      /* 1-based record number that failed */
    uint64_t size_bytes; /* the malloc that returned NULL */
} job_fail;

/* Execute n records on the calling thread.  0, or 1 with *r_fail. */
static int exec_recs(const rs_rec *r, size_t n, uint64_t first_index, job_fail *r_fail)
{
    for (size_t k = 0; k < n; k++) {
        uint64_t i;
        switch (r[k].op) {
        case RS_OP_MALLOC: {
            void *p = malloc(r[k].size_bytes);
            if (!p) {
                *r_fail = (job_fail){ .index = first_index + k, .size_bytes = r[k].size_bytes };
                return 1;
            }
            memset(p, TOUCH_BYTE, r[k].size_bytes);
            i = ht_find(&table, r[k].key);
            table.slots[i] = (slot){ .handle = r[k].key, .ptr = p, .size_bytes = r[k].size_bytes };
            table.live++;
            break;
        }
        case RS_OP_FREE:
            i = ht_find(&table, r[k].key);
            free(table.slots[i].ptr);
            ht_remove(&table, i);
            break;
        case RS_OP_RELEASE:
            al_release();
            break;
        }
    }
    return 0;
}

/* Wait until *a != old: spin briefly, then sleep on the futex. */
static void wait_change(_Atomic uint32_t *a, uint32_t old)
{
    for (int spin = 0; spin < 2000; spin++)
        if (atomic_load_explicit(a, memory_order_acquire) != old)
            return;
    while (atomic_load_explicit(a, memory_order_acquire) == old)
        syscall(SYS_futex, (uint32_t *)a, FUTEX_WAIT_PRIVATE, old, NULL, NULL, 0);
}

static void wake(_Atomic uint32_t *a)
{
    syscall(SYS_futex, (uint32_t *)a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

typedef struct worker {
    pthread_t thread;
    _Atomic uint32_t go;   /* bumped by the main thread for each job */
    _Atomic uint32_t done; /* set to go's value when the job is finished */
    const rs_rec *recs;    /* the job: records [recs, recs + n) */
    size_t n;
    uint64_t first_index;
    int quit, failed;
    job_fail fail;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    uint32_t seen = 0;
    for (;;) {
        wait_change(&w->go, seen);
        seen = atomic_load_explicit(&w->go, memory_order_acquire);
        if (w->quit)
            break;
        if (!w->failed)
            w->failed = exec_recs(w->recs, w->n, w->first_index, &w->fail);
        atomic_store_explicit(&w->done, seen, memory_order_release);
        wake(&w->done);
    }
    return NULL;
}

/* Hand a job to w and wait for it. */
static void worker_run(worker *w, const rs_rec *recs, size_t n, uint64_t first_index)
{
    w->recs = recs;
    w->n = n;
    w->first_index = first_index;
    uint32_t go = atomic_load_explicit(&w->go, memory_order_relaxed) + 1;
    atomic_store_explicit(&w->go, go, memory_order_release);
    wake(&w->go);
    uint32_t d;
    while ((d = atomic_load_explicit(&w->done, memory_order_acquire)) != go)
        wait_change(&w->done, d);
}

static uint64_t page_bytes;

/* Resident bytes of this process, from /proc/self/statm (no stdio, no heap). */
static uint64_t rss_now(void)
{
    char buf[256];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = buf;
    while (*p && *p != ' ')
        p++;
    uint64_t pages = 0;
    for (p++; *p >= '0' && *p <= '9'; p++)
        pages = pages * 10 + (uint64_t)(*p - '0');
    return pages * page_bytes;
}

typedef struct sample_buf {
    rs_sample *s; /* mmap'ed */
    size_t n, cap;
} sample_buf;

static int samples_reserve(sample_buf *b, size_t want, rs_err *err)
{
    if (want <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    void *p = b->s ? mremap(b->s, b->cap * sizeof(rs_sample), cap * sizeof(rs_sample), MREMAP_MAYMOVE)
                   : mmap(NULL, cap * sizeof(rs_sample), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return rs_fail(err, RS_ENOMEM, "cannot map room for %zu samples", cap);
    b->s = p;
    b->cap = cap;
    return 0;
}

/* What the replay itself tracks, independent of the allocator. */
typedef struct replay_state {
    uint64_t baseline_rss, requested, live, releases;
    rs_sample at_baseline; /* the allocator's own statistics at the baseline */
} replay_state;

static int take_sample(sample_buf *b, const replay_state *st, uint64_t t_ns, rs_err *err)
{
    int rc = samples_reserve(b, b->n + 1, err);
    if (rc)
        return rc;
    rs_sample *s = &b->s[b->n++];
    *s = (rs_sample){ .t_ns = t_ns };
    al_stats(s, page_bytes);
    uint64_t rss = rss_now();
    s->rss_bytes = rss;
    s->base_bytes = st->baseline_rss;
    s->resident_bytes = rss > st->baseline_rss ? rss - st->baseline_rss : 0;
    s->requested_bytes = st->requested;
    s->accounted_bytes = st->requested; /* as rssim's alloc daemon: every allocation counts */
    s->items_count = st->live;
    s->trims_count = st->releases;
    s->x = rss ? 1.0 - (double)s->accounted_bytes / (double)rss : 0.0;
    return 0;
}

typedef struct replay_opts {
    uint64_t interval_ns;
    unsigned workers;
} replay_opts;

static int replay(int fd, const trace_info *info, const replay_opts *o, sample_buf *b,
                  replay_state *st, rs_err *err)
{
    static worker workers[MAX_WORKERS];
    unsigned nw = o->workers;
    int rc = 0, started = 0;

    if ((rc = ht_reserve(&table, info->max_live, err)) ||
        (rc = samples_reserve(b, (size_t)(info->end_ns / o->interval_ns) + 2, err)))
        return rc;
    memset(table.slots, 0, (table.mask + 1) * sizeof(slot));   /* touch: part of the baseline */
    memset(b->s, 0, b->cap * sizeof(rs_sample));
    if (lseek(fd, 0, SEEK_SET) < 0)
        return rs_fail(err, RS_EIO, "cannot rewind the replay copy of the trace: %s", strerror(errno));
    /* worker 0 is the main thread (trace thread 0 is the program's main
     * thread, which has allocated before: the models start it so); the
     * others are pthreads */
    if (nw > 1) {
        for (unsigned w = 1; w < nw; w++) {
            int e = pthread_create(&workers[w].thread, NULL, worker_main, &workers[w]);
            if (e) {
                rc = rs_fail(err, RS_EINTERNAL, "cannot start worker thread %u: %s", w, strerror(e));
                goto out;
            }
            started = (int)w; /* workers 1..started run */
        }
    }
    /* no release here: the process has freed nothing of its own yet, and a
     * release would only return the library's start-up free pages, which a
     * program never sees returned (tcmalloc: the first 1 MiB growth) */
    st->baseline_rss = rss_now();
    al_stats(&st->at_baseline, page_bytes);

    uint64_t next_ns = 0, last_sample_ns = UINT64_MAX, index = 0;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = rs_fail(err, RS_EIO, "cannot read the replay copy of the trace: %s", strerror(errno));
            goto out;
        }
        if (got == 0)
            break;
        if (got % (ssize_t)sizeof(rs_rec)) {
            rc = rs_fail(err, RS_EIO, "short read of the replay copy of the trace");
            goto out;
        }
        size_t n = (size_t)got / sizeof(rs_rec);
        for (size_t i = 0; i < n;) {
            const rs_rec *r = &chunk[i];
            while (next_ns <= r->t_ns) {
                if ((rc = take_sample(b, st, next_ns, err)))
                    goto out;
                last_sample_ns = next_ns;
                next_ns += o->interval_ns;
            }
            unsigned wk = r->thread % nw;
            size_t j = i;
            for (; j < n && chunk[j].thread % nw == wk && chunk[j].t_ns < next_ns; j++) {
                if (chunk[j].op == RS_OP_MALLOC) {
                    st->requested += chunk[j].size_bytes;
                    st->live++;
                } else if (chunk[j].op == RS_OP_FREE) {
                    st->requested -= chunk[j].size_bytes;
                    st->live--;
                } else {
                    st->releases++;
                }
            }
            job_fail f = { 0 };
            int failed;
            if (wk == 0) {
                failed = exec_recs(r, j - i, index + 1, &f);
            } else {
                worker_run(&workers[wk], r, j - i, index + 1);
                failed = workers[wk].failed;
                f = workers[wk].fail;
            }
            if (failed) {
                rc = rs_fail(err, RS_ENOMEM, "malloc(%" PRIu64 ") of record %" PRIu64 " returned NULL",
                             f.size_bytes, f.index);
                goto out;
            }
            index += j - i;
            i = j;
        }
    }
    while (next_ns <= info->end_ns) {
        if ((rc = take_sample(b, st, next_ns, err)))
            goto out;
        last_sample_ns = next_ns;
        next_ns += o->interval_ns;
    }
    if (last_sample_ns != info->end_ns)
        rc = take_sample(b, st, info->end_ns, err);
out:
    for (int w = 1; w <= started; w++) {
        workers[w].quit = 1;
        atomic_fetch_add_explicit(&workers[w].go, 1, memory_order_release);
        wake(&workers[w].go);
        pthread_join(workers[w].thread, NULL);
    }
    return rc;
}

/* ---- results and the store ----------------------------------------------- */

static int mkdir_parent(const char *path, rs_err *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(dir, 0777) && errno != EEXIST)
            return rs_fail(err, RS_EIO, "cannot create folder '%s': %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0777) && errno != EEXIST)
        return rs_fail(err, RS_EIO, "cannot create folder '%s': %s", dir, strerror(errno));
    return 0;
}

static int make_result(const sample_buf *b, const trace_info *info, const replay_state *rst,
                       uint64_t wall_ns, rs_result *res, rs_err *err)
{
    uint64_t baseline = rst->baseline_rss;
    const rs_sample *b0 = &rst->at_baseline;
    uint64_t from_ns = (uint64_t)((double)info->end_ns * STEADY_FROM);
    double rss_sum = 0, res_sum = 0, rss_peak = 0, res_peak = 0;
    size_t n = 0;
    int rc = 0;

    for (size_t i = 0; i < b->n && !rc; i++) {
        const rs_sample *s = &b->s[i];
        rc = rs_result_add_sample(res, s, err);
        if ((double)s->rss_bytes > rss_peak)
            rss_peak = (double)s->rss_bytes;
        if ((double)s->resident_bytes > res_peak)
            res_peak = (double)s->resident_bytes;
        if (s->t_ns >= from_ns) {
            rss_sum += (double)s->rss_bytes;
            res_sum += (double)s->resident_bytes;
            n++;
        }
    }
    const struct { const char *name; double value; } m[] = {
        { "rss_steady_bytes", n ? rss_sum / (double)n : 0 },
        { "rss_peak_bytes", rss_peak },
        { "resident_steady_bytes", n ? res_sum / (double)n : 0 },
        { "resident_peak_bytes", res_peak },
        { "baseline_rss_bytes", (double)baseline },
        /* what the allocator held when the baseline was taken */
        { "baseline_allocated_bytes", (double)b0->allocated_bytes },
        { "baseline_active_bytes", (double)b0->active_bytes },
        { "baseline_mapped_bytes", (double)b0->mapped_bytes },
        { "baseline_cached_bytes", (double)b0->cached_bytes },
        { "baseline_metadata_bytes", (double)b0->metadata_bytes },
        { "events_count", (double)info->records },
        { "sim_end_ns", (double)info->end_ns },
        { "steady_from_ns", (double)from_ns },
        { "wall_ns", (double)wall_ns },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0] && !rc; i++)
        rc = rs_result_set_metric(res, m[i].name, m[i].value, err);
    return rc;
}

/* The params of a measured run, checked with the config machinery. */
static const rs_param real_params[] = {
    { .key = "alloc", .type = RS_PT_STRING, .def = "glibc", .doc = "the allocator model whose real library replays the trace" },
    { .key = "sample_interval", .type = RS_PT_DURATION, .def = "100ms", .doc = "virtual time between samples" },
    { .key = "threads", .type = RS_PT_INT, .def = "1", .doc = "worker threads (trace thread t runs on t mod N)" },
    { .key = "label", .type = RS_PT_STRING, .def = "", .doc = "free text" },
    { .key = NULL },
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " TRACE [--alloc glibc|jemalloc|tcmalloc] [--db PATH]\n"
            "                  [--sample-interval 100ms] [--label TEXT] [--threads N]\n\n"
            "Replay an allocation trace (daemon=alloc) with the real allocator, touching\n"
            "every allocated byte, and store RSS and the allocator's statistics at rssim's\n"
            "sample times as a run of kind 'measured'.  jemalloc and tcmalloc are Debian's\n"
            "libjemalloc.so.2 (libjemalloc2) and libtcmalloc_minimal.so.4\n"
            "(libtcmalloc-minimal4), preloaded by re-executing this program.\n\n"
            "  -a, --alloc A            the allocator (default glibc)\n"
            "      --db PATH            SQLite database (default out/rssim.db)\n"
            "  -i, --sample-interval D  virtual time between samples (default 100ms)\n"
            "  -l, --label TEXT         free text stored with the run\n"
            "  -t, --threads N          worker threads; trace thread t runs on t mod N\n"
            "                           (default: the trace's highest thread + 1, at most %d)\n"
            "      --alloc-report PATH  after the replay, write the allocator's own report\n"
            "                           there (tcmalloc GetStats, jemalloc malloc_stats_print,\n"
            "                           glibc malloc_info)\n"
            "  -h, --help               this help\n"
            "      --version            the version and the git commit it was built from\n",
            MAX_WORKERS);
}

static int report(const rs_err *err)
{
    fprintf(stderr, PROG ": %s\n", err->msg);
    return err->code == RS_EINPUT ? 2 : 1;
}

/* The measured run's config from the options (threads and label may be
 * NULL), validated: the first process checks the options with it before
 * pass 1, the replaying one builds it only after its replay. */
static int make_config(rs_config **r_cfg, const char *alloc, const char *interval,
                       const char *threads, const char *label, rs_err *err)
{
    int rc;
    if ((rc = rs_config_new_with(r_cfg, real_params, err)) ||
        (rc = rs_config_set(*r_cfg, "alloc", alloc, err)) ||
        (rc = rs_config_set(*r_cfg, "sample_interval", interval, err)) ||
        (threads && (rc = rs_config_set(*r_cfg, "threads", threads, err))) ||
        (label && (rc = rs_config_set(*r_cfg, "label", label, err))))
        return rc;
    return rs_config_validate(*r_cfg, err);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see " PROG " --help)\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "alloc", required_argument, NULL, 'a' },  { "db", required_argument, NULL, 'd' },
        { "sample-interval", required_argument, NULL, 'i' },
        { "label", required_argument, NULL, 'l' },  { "threads", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },         { "version", no_argument, NULL, 'V' },
        { "alloc-report", required_argument, NULL, 'R' },
        { NULL, 0, NULL, 0 },
    };
    const char *alloc_name = "glibc", *db = "out/rssim.db", *interval = "100ms", *label = NULL;
    const char *alloc_report = NULL;
    long threads = 0;
    int c;

    while ((c = getopt_long(argc, argv, "a:i:l:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': alloc_name = optarg; break;
        case 'd': db = optarg; break;
        case 'i': interval = optarg; break;
        case 'l': label = optarg; break;
        case 'R': alloc_report = optarg; break;
        case 't': {
            char *end;
            errno = 0;
            threads = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || threads < 1 || threads > MAX_WORKERS)
                return usage_error("bad value '%s' for --threads: expected 1..%d", optarg, MAX_WORKERS);
            break;
        }
        case 'h': usage(stdout); return 0;
        case 'V': printf(PROG " %s (git %s)\n", RSSIM_VERSION, RSSIM_GIT); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1)
        return usage_error("expected exactly one TRACE");
    const char *trace = argv[optind];
    const rs_alloc_ops *aops = rs_registry_find(&rs_reg_alloc, alloc_name);
    if (!aops || !aops->real) {
        char known[256];
        size_t n = 0;
        known[0] = '\0';
        for (size_t i = 0; i < rs_reg_alloc.count && n < sizeof known; i++) {
            const rs_alloc_ops *a = rs_reg_alloc.entries[i];
            if (a->real)
                n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", a->name);
        }
        return usage_error("unknown allocator '%s' (known: %s)", alloc_name, known);
    }

    rs_err err = { 0 };
    rs_config *cfg = NULL;
    rs_store *st = NULL;
    rs_result res;
    sample_buf samples = { 0 };
    replay_state rst = { 0 };
    trace_info info;
    char tmp[4096], sha[65], num[32];
    int fd = -1, rc;

    rs_result_init(&res);
    page_bytes = (uint64_t)sysconf(_SC_PAGESIZE);
    /* The replaying process allocates nothing before its baseline: it
     * parses the interval without the config machinery (which allocates;
     * the first process checked the value with it) and builds its config
     * after the replay. */
    replay_opts o = { 0 };
    if (rs_parse_duration(interval, &o.interval_ns) != 0 || !o.interval_ns) {
        rc = rs_fail(&err, RS_EINPUT, "bad value '%s' for --sample-interval: must be > 0", interval);
        goto out;
    }
    const char *handed = getenv(PASS1_ENV);
    if (!handed) {
        if ((rc = make_config(&cfg, alloc_name, interval, NULL, label, &err)))
            goto out;
        /* Pass 1: check the trace and copy its records to an unlinked file,
         * then replay it in a fresh process (al_reexec). */
        struct stat sb;
        char env[160];
        if (stat(trace, &sb) != 0) {
            rc = rs_fail(&err, errno == ENOENT ? RS_EINPUT : RS_EIO, "cannot open '%s': %s", trace,
                         strerror(errno));
            goto out;
        }
        const char *tmpdir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/rssim-real.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
        if ((fd = mkstemp(tmp)) < 0) {
            rc = rs_fail(&err, RS_EIO, "cannot create a temporary file in '%s': %s",
                         tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
            goto out;
        }
        unlink(tmp);
        if ((rc = pass1(trace, fd, &info, &err)))
            goto out;
        snprintf(env, sizeof env, "%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %u", fd, info.records,
                 info.end_ns, info.max_live, info.max_thread);
        fflush(NULL);
        rc = al_reexec(aops, argv, env, &err);
        goto out; /* al_reexec returns only on failure */
    }
    /* The re-executed process: pass 1's copy and what it learnt. */
    int n = -1;
    if (sscanf(handed, "%d %" SCNu64 " %" SCNu64 " %" SCNu64 " %u%n", &fd, &info.records,
               &info.end_ns, &info.max_live, &info.max_thread, &n) != 5 || handed[n] != '\0' ||
        fd < 0) {
        fd = -1;
        rc = rs_fail(&err, RS_EINTERNAL, "%s='%s' is not what rssim-real hands itself", PASS1_ENV,
                     handed);
        goto out;
    }
    struct stat cb;
    if (fstat(fd, &cb) != 0 || !S_ISREG(cb.st_mode) ||
        (uint64_t)cb.st_size != info.records * sizeof(rs_rec)) {
        rc = rs_fail(&err, RS_EINTERNAL, "%s names no copy of the trace (fd %d)", PASS1_ENV, fd);
        goto out;
    }
    unsetenv(PASS1_ENV);
    if ((rc = al_check_active(aops, &err)))
        goto out;
    o.workers = threads ? (unsigned)threads
                        : (info.max_thread + 1 < MAX_WORKERS ? info.max_thread + 1 : MAX_WORKERS);

    uint64_t t0 = now_ns();
    if ((rc = replay(fd, &info, &o, &samples, &rst, &err)))
        goto out;
    uint64_t wall = now_ns() - t0;
    if (alloc_report && (rc = al_report(alloc_report, &err)))
        goto out;

    snprintf(num, sizeof num, "%u", o.workers);
    if ((rc = make_config(&cfg, alloc_name, interval, num, label, &err)))
        goto out;

    /* Only now may the harness use the heap: results and the store. */
    int64_t run_id;
    rs_run_meta meta = { .kind = "measured", .trace_path = trace, .trace_sha256 = sha,
                         .preset = alloc_name, .seed = 0, .label = label, .sweep_id = 0,
                         .point_index = -1 };
    if ((rc = rs_file_sha256(trace, sha, &err)) ||
        (rc = make_result(&samples, &info, &rst, wall, &res, &err)) ||
        (rc = mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_run_begin(st, &meta, cfg, &run_id, &err)) ||
        (rc = rs_store_run_finish(st, run_id, &res, info.records, wall, &err)))
        goto out;
    double v_steady = 0, v_peak = 0, v_res = 0;
    rs_result_metric(&res, "rss_steady_bytes", &v_steady);
    rs_result_metric(&res, "rss_peak_bytes", &v_peak);
    rs_result_metric(&res, "resident_steady_bytes", &v_res);
    printf("run %lld done (measured, %s, %u thread%s): %" PRIu64 " records, %zu samples in %.3f s, database %s\n",
           (long long)run_id, alloc_name, o.workers, o.workers == 1 ? "" : "s", info.records,
           samples.n, (double)wall / 1e9, db);
    printf("  baseline rss      %10.1f MiB   allocator then: allocated %.1f KiB, mapped %.1f KiB, "
           "cached %.1f KiB\n", (double)rst.baseline_rss / 1048576.0,
           (double)rst.at_baseline.allocated_bytes / 1024.0,
           (double)rst.at_baseline.mapped_bytes / 1024.0,
           (double)rst.at_baseline.cached_bytes / 1024.0);
    printf("  rss steady        %10.1f MiB   peak %.1f MiB\n", v_steady / 1048576.0, v_peak / 1048576.0);
    printf("  resident steady   %10.1f MiB\n", v_res / 1048576.0);
out:
    if (fd >= 0)
        close(fd);
    rs_result_release(&res);
    rs_config_free(cfg);
    rs_store_close(st);
    return rc ? report(&err) : 0;
}
