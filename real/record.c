/*
 * record.c — librssim-record.so: record the heap of any program as an rssim
 * allocation trace (daemon=alloc; docs/trace-format.md, docs/validation.md).
 *
 *   RSSIM_RECORD=out.bin LD_PRELOAD=/path/librssim-record.so  program args...
 *
 * It interposes malloc, calloc, realloc, reallocarray, free,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc, calls the
 * next definition (dlsym(RTLD_NEXT); dlsym's own early calloc is served
 * from a static bootstrap buffer) and appends one record per event:
 *   MALLOC key=handle size_bytes=requested bytes (malloc(0) is recorded as 1:
 *          the format needs size > 0) thread=dense thread index
 *   FREE   key=handle size_bytes=its MALLOC's size
 *   realloc(p, n) = FREE p + MALLOC new; realloc(NULL, n) = MALLOC;
 *   realloc(p, 0) = FREE.  Alignment requests are recorded as plain sizes.
 * Handles count up from 1 and are never reused.  t_ns is CLOCK_MONOTONIC
 * since the library started, taken under the one global lock that also
 * orders the records, so time never goes backwards.  thread is a small
 * dense index given to each thread at its first recorded call (mod 65536).
 *
 * Nothing here uses the heap it records or stdio: the pointer → (handle,
 * size) table is open addressing in mmap'ed memory, records go into an
 * mmap'ed 1 MiB buffer written with write(2) when full and at exit (a
 * destructor).  A thread-local guard passes calls made from inside a hook
 * (dlsym, setenv, pthread_atfork) straight to the allocator, unrecorded.
 * FREE is recorded before the memory is really freed, MALLOC after it is
 * really allocated, so an address reused by another thread always appears
 * after its FREE.  A pointer freed inside libc without passing through here
 * (so never seen) is detected when the address comes back from malloc: a
 * FREE of the stale handle is recorded first.  Frees of pointers never
 * recorded (allocated before the library started) are passed on silently.
 *
 * Output: RSSIM_RECORD=PATH (nothing is recorded without it); text when the
 * path ends in ".tsv", else binary.  The header is written when recording
 * starts; the file is complete after the program exits normally (exit(3)
 * or return from main); _exit(2), a crash or a kill lose the last unflushed
 * records, never a record's half.
 *
 * Processes: only the process that started recording records.  It exports
 * RSSIM_RECORD_ROOT=<its pid>; a forked child stops recording (its copy of
 * the buffer is dropped, its copy of the file descriptor closed), and a
 * program exec'd by any other process sees a foreign root pid and records
 * nothing.  An exec in the recording process itself (same pid) starts the
 * file again from its header: records of the image before exec are lost.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "traces/trace.h"

#define EXPORT __attribute__((visibility("default")))
#define OUT_BYTES ((size_t)1 << 20)
#define LINE_MAX_BYTES 128 /* longest text record line */
#define BOOT_BYTES ((size_t)64 << 10)

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

static _Atomic int init_state;        /* 0 not started, 1 in progress, 2 done */
static _Atomic int recording;         /* records are being written */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* everything below */
static int out_fd = -1, out_text, out_failed;
static unsigned char *out_buf;        /* mmap'ed OUT_BYTES */
static size_t out_len;
static uint64_t start_ns, last_ns, next_handle;
static _Atomic unsigned next_thread;

static __thread int in_hook __attribute__((tls_model("initial-exec")));
static __thread unsigned thread_plus1 __attribute__((tls_model("initial-exec")));

/* ---- bootstrap heap for dlsym's calls before real_* exist ---------------- */

static _Alignas(16) unsigned char boot[BOOT_BYTES];
static size_t boot_used;

static void *boot_alloc(size_t n)
{
    size_t need = 16 + ((n + 15) & ~(size_t)15);
    if (n > BOOT_BYTES || boot_used + need > BOOT_BYTES) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned char *p = boot + boot_used;
    memcpy(p, &n, sizeof n);
    boot_used += need;
    return p + 16;
}

static int is_boot(const void *p)
{
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + BOOT_BYTES;
}

/* ---- pointer table: open addressing, linear probing ----------------------- */

typedef struct pslot {
    uintptr_t ptr; /* 0 = empty */
    uint64_t handle;
    uint64_t size_bytes;
} pslot;

static pslot *tab;
static uint64_t tab_mask, tab_live;

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static inline uint64_t tab_find(uintptr_t p)
{
    uint64_t i = mix(p) & tab_mask;
    while (tab[i].ptr && tab[i].ptr != p)
        i = (i + 1) & tab_mask;
    return i;
}

static int tab_grow(void)
{
    uint64_t n = tab ? 2 * (tab_mask + 1) : (uint64_t)1 << 16;
    pslot *old = tab;
    uint64_t oldn = old ? tab_mask + 1 : 0;
    void *m = mmap(NULL, n * sizeof(pslot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    tab = m;
    tab_mask = n - 1;
    for (uint64_t i = 0; i < oldn; i++)
        if (old[i].ptr)
            tab[tab_find(old[i].ptr)] = old[i];
    if (old)
        munmap(old, oldn * sizeof(pslot));
    return 0;
}

static void tab_remove(uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        j = (j + 1) & tab_mask;
        if (!tab[j].ptr)
            break;
        uint64_t home = mix(tab[j].ptr) & tab_mask;
        if (((j - home) & tab_mask) >= ((j - i) & tab_mask)) {
            tab[i] = tab[j];
            i = j;
        }
    }
    tab[i].ptr = 0;
    tab_live--;
}

/* ---- output ------------------------------------------------------------- */

static void out_flush(void)
{
    size_t off = 0;
    while (off < out_len && !out_failed) {
        ssize_t w = write(out_fd, out_buf + off, out_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            static const char msg[] = "librssim-record: cannot write the trace; recording stopped\n";
            out_failed = 1;
            if (write(2, msg, sizeof msg - 1) < 0) {
            }
            break;
        }
        off += (size_t)w;
    }
    out_len = 0;
}

static unsigned char *put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static char *put_dec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (n)
        *p++ = tmp[--n];
    return p;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned my_thread(void)
{
    if (!thread_plus1)
        thread_plus1 = (atomic_fetch_add(&next_thread, 1) % 65536u) + 1;
    return thread_plus1 - 1;
}

/* Append one record; the lock is held. */
static void emit(unsigned op, uint64_t key, uint64_t size_bytes)
{
    uint64_t t = mono_ns() - start_ns;
    if (t < last_ns)
        t = last_ns;
    last_ns = t;
    if (out_len + LINE_MAX_BYTES > OUT_BYTES)
        out_flush();
    if (out_failed)
        return;
    unsigned thread = my_thread();
    if (out_text) {
        char *p = (char *)out_buf + out_len;
        p = put_dec(p, t);
        *p++ = '\t';
        const char *name = op == RS_OP_MALLOC ? "MALLOC" : "FREE";
        size_t nl = strlen(name);
        memcpy(p, name, nl);
        p += nl;
        *p++ = '\t';
        p = put_dec(p, key);
        *p++ = '\t';
        p = put_dec(p, size_bytes);
        *p++ = '\t';
        p = put_dec(p, thread);
        memcpy(p, "\t0\n", 3);
        p += 3;
        out_len = (size_t)((unsigned char *)p - out_buf);
    } else {
        unsigned char *p = out_buf + out_len;
        p = put_le(p, t, 8);
        p = put_le(p, key, 8);
        p = put_le(p, size_bytes, 8);
        p = put_le(p, 0, 4);      /* aux */
        p = put_le(p, thread, 2);
        *p++ = (unsigned char)op;
        *p++ = 0;                 /* flags */
        out_len += 32;
    }
}

/* ---- recording ---------------------------------------------------------- */

static void rec_malloc(void *p, size_t n)
{
    pthread_mutex_lock(&lock);
    if (atomic_load_explicit(&recording, memory_order_relaxed)) {
        if ((tab_live + 1) * 2 > tab_mask + 1 && tab_grow() != 0) {
            atomic_store(&recording, 0);
        } else {
            uint64_t i = tab_find((uintptr_t)p);
            if (tab[i].ptr) { /* freed behind our back (inside libc): close it first */
                emit(RS_OP_FREE, tab[i].handle, tab[i].size_bytes);
                tab_remove(i);
                i = tab_find((uintptr_t)p);
            }
            tab[i] = (pslot){ .ptr = (uintptr_t)p, .handle = ++next_handle,
                              .size_bytes = n ? n : 1 };
            tab_live++;
            emit(RS_OP_MALLOC, tab[i].handle, tab[i].size_bytes);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Record the FREE of p; returns its recorded size (0 when p is unknown). */
static uint64_t rec_free(void *p)
{
    uint64_t size = 0;
    pthread_mutex_lock(&lock);
    if (atomic_load_explicit(&recording, memory_order_relaxed)) {
        uint64_t i = tab_find((uintptr_t)p);
        if (tab[i].ptr) {
            size = tab[i].size_bytes;
            emit(RS_OP_FREE, tab[i].handle, size);
            tab_remove(i);
        }
    }
    pthread_mutex_unlock(&lock);
    return size;
}

static void atfork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void atfork_child(void)
{
    atomic_store(&recording, 0);
    out_len = 0;
    if (out_fd >= 0)
        close(out_fd);
    out_fd = -1;
    pthread_mutex_unlock(&lock);
}

static void start_recording(void)
{
    const char *path = getenv("RSSIM_RECORD");
    const char *root = getenv("RSSIM_RECORD_ROOT");
    long pid = (long)getpid();

    if (!path || !*path || (root && strtol(root, NULL, 10) != pid))
        return;
    out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out_fd < 0)
        return;
    void *m = mmap(NULL, OUT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || tab_grow() != 0) {
        close(out_fd);
        out_fd = -1;
        return;
    }
    out_buf = m;
    size_t pl = strlen(path);
    out_text = pl >= 4 && strcmp(path + pl - 4, ".tsv") == 0;
    if (out_text) {
        static const char hdr[] = "#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n";
        memcpy(out_buf, hdr, sizeof hdr - 1);
        out_len = sizeof hdr - 1;
    } else {
        memcpy(out_buf, "RSSIMTRC", 8);
        put_le(out_buf + 8, 1, 4);
        put_le(out_buf + 12, 2, 4); /* daemon id of "alloc" */
        out_len = 16;
    }
    out_flush(); /* the header first, so any later file is a valid trace */
    if (!root) {
        char num[24];
        *put_dec(num, (uint64_t)pid) = 0;
        setenv("RSSIM_RECORD_ROOT", num, 1);
    }
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    start_ns = mono_ns();
    atomic_store(&recording, 1);
}

static void init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
        return; /* done, or in progress on this thread (dlsym → calloc) */
    int saved = in_hook;
    in_hook = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
    if (real_malloc && real_free && real_calloc && real_realloc)
        start_recording();
    in_hook = saved;
    atomic_store(&init_state, 2);
}

__attribute__((constructor)) static void record_start(void)
{
    init();
}

__attribute__((destructor)) static void record_stop(void)
{
    pthread_mutex_lock(&lock);
    if (atomic_load(&recording)) {
        atomic_store(&recording, 0);
        out_flush();
        close(out_fd);
        out_fd = -1;
    }
    pthread_mutex_unlock(&lock);
}

/* 1 when the caller should just pass through (not ready, nested, or off). */
static inline int passthrough(void)
{
    if (atomic_load_explicit(&init_state, memory_order_acquire) != 2)
        init();
    return in_hook || !atomic_load_explicit(&recording, memory_order_relaxed);
}

/* ---- the interposed functions ------------------------------------------- */

EXPORT void *malloc(size_t n)
{
    if (!real_malloc && (init(), !real_malloc))
        return boot_alloc(n);
    if (passthrough())
        return real_malloc(n);
    in_hook = 1;
    void *p = real_malloc(n);
    if (p)
        rec_malloc(p, n);
    in_hook = 0;
    return p;
}

EXPORT void *calloc(size_t k, size_t n)
{
    if (!real_calloc && (init(), !real_calloc)) {
        if (n && k > SIZE_MAX / n)
            return NULL;
        return boot_alloc(k * n); /* static memory is zero */
    }
    if (passthrough())
        return real_calloc(k, n);
    in_hook = 1;
    void *p = real_calloc(k, n);
    if (p)
        rec_malloc(p, k * n);
    in_hook = 0;
    return p;
}

EXPORT void free(void *p)
{
    if (!p || is_boot(p))
        return;
    if (!real_free && (init(), !real_free))
        return;
    if (passthrough()) {
        real_free(p);
        return;
    }
    in_hook = 1;
    rec_free(p);
    real_free(p);
    in_hook = 0;
}

EXPORT void *realloc(void *p, size_t n)
{
    if (p && is_boot(p)) {
        size_t old;
        memcpy(&old, (unsigned char *)p - 16, sizeof old);
        void *q = malloc(n);
        if (q)
            memcpy(q, p, old < n ? old : n);
        return q;
    }
    if (!real_realloc && (init(), !real_realloc))
        return p ? NULL : boot_alloc(n);
    if (passthrough())
        return real_realloc(p, n);
    in_hook = 1;
    uint64_t old = p ? rec_free(p) : 0;
    void *q = real_realloc(p, n);
    if (q)
        rec_malloc(q, n);
    else if (p && n && old)
        rec_malloc(p, old); /* failed: p is still live, as a new handle */
    in_hook = 0;
    return q;
}

EXPORT void *reallocarray(void *p, size_t k, size_t n)
{
    if (n && k > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, k * n);
}

EXPORT int posix_memalign(void **r, size_t align, size_t n)
{
    if (!real_posix_memalign && (init(), !real_posix_memalign))
        return ENOMEM;
    if (passthrough())
        return real_posix_memalign(r, align, n);
    in_hook = 1;
    int rc = real_posix_memalign(r, align, n);
    if (rc == 0 && *r)
        rec_malloc(*r, n);
    in_hook = 0;
    return rc;
}

/* aligned_alloc, memalign, valloc, pvalloc: the same shape. */
#define ALIGNED_HOOK(name, real, params, args, size)                           \
    EXPORT void *name params                                                   \
    {                                                                          \
        if (!real && (init(), !real))                                          \
            return NULL;                                                       \
        if (passthrough())                                                     \
            return real args;                                                  \
        in_hook = 1;                                                           \
        void *p = real args;                                                   \
        if (p)                                                                 \
            rec_malloc(p, size);                                               \
        in_hook = 0;                                                           \
        return p;                                                              \
    }

ALIGNED_HOOK(aligned_alloc, real_aligned_alloc, (size_t align, size_t n), (align, n), n)
ALIGNED_HOOK(memalign, real_memalign, (size_t align, size_t n), (align, n), n)
ALIGNED_HOOK(valloc, real_valloc, (size_t n), (n), n)
ALIGNED_HOOK(pvalloc, real_pvalloc, (size_t n), (n), n)
