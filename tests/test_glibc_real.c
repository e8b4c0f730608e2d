/*
 * test_glibc_real.c — the glibc model against the real glibc malloc of this
 * process's libc (Debian 2.36), replayed in a fresh process.
 *
 * The test re-executes itself ("--child FD SCENARIO") with an empty
 * environment (plus GLIBC_TUNABLES for the tcache_count=0 scenario), so the
 * child's heap is fresh: its first malloc creates the heap with sbrk.  The
 * child does not call stdio or anything else that could allocate; it replays
 * a deterministic operation list (the same generator runs in the parent for
 * the model), writes the memory it gets (malloc_usable_size bytes), and stores
 * into a memfd shared with the parent: every pointer as an offset from
 * sbrk(0) before the first malloc (-1 when outside the heap: mmapped), every
 * malloc_usable_size, and at checkpoints mallinfo2() and the Rss of the
 * [heap] mapping from /proc/self/smaps.  The parent replays the same list
 * on the model and requires exact agreement of all of it.
 *
 * Scenarios: 0 usable size of every request 1..140000 (malloc, free; no
 * writes); 1 the dynamic mmap threshold (1 MiB mmapped, freed, then 200000 B
 * comes from the heap); 2 a random mix of 200k operations over 1..1.1 MB
 * with malloc_trim(0) every 20k; 3 the same with glibc.malloc.tcache_count=0
 * (model: glibc_tcache_count = 0).  Skipped (77) under AddressSanitizer,
 * which replaces malloc.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "models/alloc/glibc.h"
#include "sim/base/config.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void)
{
    printf("AddressSanitizer replaces malloc: skipped\n");
    return 77;
}
#else

enum { OP_ALLOC, OP_FREE, OP_TRIM, OP_CHECK };
enum { SLOTS = 2048, MAX_OPS = 300000, MAX_CP = 200, NSCEN = 4 };

typedef struct op {
    uint32_t kind, slot;
    uint64_t size;
} op;

typedef struct checkpoint {
    uint64_t arena, hblkhd, uordblks, fordblks, keepcost, ordblks, smblks, fsmblks, heap_rss;
} checkpoint;

typedef struct result {
    uint64_t heap_start, nallocs, ncp, done;
    int64_t off[MAX_OPS];
    uint64_t usable[MAX_OPS];
    checkpoint cp[MAX_CP];
} result;

/* Deterministic operation lists; no allocation (the child runs this). */
static uint64_t gen_ops(int scen, op *ops, uint8_t *used)
{
    uint64_t n = 0, rng = 0x9E3779B97F4A7C15ull;
    if (scen == 0) {
        for (uint64_t s = 1; s <= 140000; s++) {
            ops[n++] = (op){.kind = OP_ALLOC, .slot = 0, .size = s};
            ops[n++] = (op){.kind = OP_FREE, .slot = 0, .size = s};
        }
        return n;
    }
    if (scen == 1) {
        ops[n++] = (op){.kind = OP_ALLOC, .slot = 0, .size = 100};
        ops[n++] = (op){.kind = OP_ALLOC, .slot = 1, .size = 200000};
        ops[n++] = (op){.kind = OP_FREE, .slot = 1, .size = 200000};
        ops[n++] = (op){.kind = OP_ALLOC, .slot = 1, .size = 1 << 20};
        ops[n++] = (op){.kind = OP_CHECK};
        ops[n++] = (op){.kind = OP_FREE, .slot = 1, .size = 1 << 20};
        ops[n++] = (op){.kind = OP_ALLOC, .slot = 1, .size = 200000};
        ops[n++] = (op){.kind = OP_CHECK};
        return n;
    }
    uint64_t sizes[SLOTS];
    memset(used, 0, SLOTS);
    for (uint64_t i = 0; i < 200000; i++) {
        if (i % 20000 == 19999) {
            ops[n++] = (op){.kind = OP_TRIM};
            ops[n++] = (op){.kind = OP_CHECK};
            continue;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        uint32_t k = (uint32_t)(rng % SLOTS);
        if (used[k]) {
            ops[n++] = (op){.kind = OP_FREE, .slot = k, .size = sizes[k]};
            used[k] = 0;
        } else {
            uint64_t r = rng >> 20, p = r % 100, v = r >> 8;
            uint64_t s = p < 50 ? 1 + v % 120 : p < 80 ? 121 + v % 980 : p < 95 ? 1101 + v % 18900
                       : p < 99 ? 20001 + v % 80000 : 100000 + v % 1000000;
            ops[n++] = (op){.kind = OP_ALLOC, .slot = k, .size = s};
            sizes[k] = s;
            used[k] = 1;
        }
        if (i % 2000 == 1999)
            ops[n++] = (op){.kind = OP_CHECK};
    }
    return n;
}

/* ---- the child: real glibc ------------------------------------------------ */

static uint64_t heap_rss_bytes(char *buf, size_t cap)
{
    int fd = open("/proc/self/smaps", O_RDONLY);
    if (fd < 0)
        return UINT64_MAX;
    size_t len = 0;
    ssize_t k;
    while (len + 1 < cap && (k = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)k;
    close(fd);
    buf[len] = '\0';
    char *h = strstr(buf, "[heap]\n");
    if (!h)
        return 0;
    char *r = strstr(h, "\nRss:");
    if (!r)
        return UINT64_MAX;
    return strtoull(r + 5, NULL, 10) * 1024;
}

static int child(int fd, int scen)
{
    uintptr_t heap_start = (uintptr_t)sbrk(0);
    result *res = mmap(NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    op *ops = mmap(NULL, sizeof(op) * MAX_OPS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void **slot = mmap(NULL, sizeof(void *) * SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *used = mmap(NULL, SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t bufcap = 1 << 22;
    char *buf = mmap(NULL, bufcap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED || ops == MAP_FAILED || slot == MAP_FAILED || used == MAP_FAILED ||
        buf == MAP_FAILED)
        return 3;
    uint64_t n = gen_ops(scen, ops, used);
    res->heap_start = heap_start;
    for (uint64_t i = 0; i < n; i++) {
        const op *o = &ops[i];
        switch (o->kind) {
        case OP_ALLOC: {
            char *p = malloc(o->size);
            if (!p)
                return 4;
            slot[o->slot] = p;
            uintptr_t brk_now = (uintptr_t)sbrk(0);
            res->off[res->nallocs] = (uintptr_t)p >= heap_start && (uintptr_t)p < brk_now
                                         ? (int64_t)((uintptr_t)p - heap_start) : -1;
            size_t u = malloc_usable_size(p);
            res->usable[res->nallocs++] = u;
            if (scen != 0)
                memset(p, 0xa5, u);
            break;
        }
        case OP_FREE:
            free(slot[o->slot]);
            break;
        case OP_TRIM:
            malloc_trim(0);
            break;
        case OP_CHECK: {
            struct mallinfo2 mi = mallinfo2();
            res->cp[res->ncp++] = (checkpoint){
                .arena = mi.arena, .hblkhd = mi.hblkhd, .uordblks = mi.uordblks,
                .fordblks = mi.fordblks, .keepcost = mi.keepcost, .ordblks = mi.ordblks,
                .smblks = mi.smblks, .fsmblks = mi.fsmblks,
                .heap_rss = heap_rss_bytes(buf, bufcap)};
            break;
        }
        }
    }
    res->done = 1;
    return 0;
}

/* ---- the parent: run the child, replay on the model, compare -------------- */

static result *run_child(const char *self, int scen)
{
    int fd = memfd_create("rssim-glibc-real", 0);
    if (fd < 0 || ftruncate(fd, sizeof(result)) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        char fdbuf[16], scbuf[16];
        snprintf(fdbuf, sizeof fdbuf, "%d", fd);
        snprintf(scbuf, sizeof scbuf, "%d", scen);
        char *argv[] = {(char *)self, "--child", fdbuf, scbuf, NULL};
        char *env_tc0[] = {"GLIBC_TUNABLES=glibc.malloc.tcache_count=0", NULL};
        char *env_none[] = {NULL};
        execve("/proc/self/exe", argv, scen == 3 ? env_tc0 : env_none);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "child for scenario %d failed (status %d)\n", scen, status);
        close(fd);
        return NULL;
    }
    result *res = mmap(NULL, sizeof *res, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    return res == MAP_FAILED ? NULL : res;
}

static void compare(int scen, const result *real)
{
    static op ops[MAX_OPS];
    static uint8_t used[SLOTS];
    static rs_addr addr[SLOTS];
    static uint64_t size[SLOTS];
    uint64_t n = gen_ops(scen, ops, used), na = 0, ncp = 0, bad_off = 0, bad_usable = 0, bad_cp = 0;
    rs_config *cfg = NULL;
    rs_err err = {0};
    void *st = NULL;
    CHECK(rs_config_new_with(&cfg, rs_alloc_glibc.params, &err) == 0);
    if (scen == 3)
        CHECK(rs_config_set(cfg, "glibc_tcache_count", "0", &err) == 0);
    CHECK(rs_alloc_glibc.create(cfg, &st, &err) == 0);
    rs_config_free(cfg);
    CHECK_EQ_U64(real->heap_start % 4096, 0);
    for (uint64_t i = 0; i < n; i++) {
        const op *o = &ops[i];
        if (o->kind == OP_ALLOC) {
            rs_addr a = rs_alloc_glibc.alloc(st, o->size, 0, 0);
            addr[o->slot] = a;
            size[o->slot] = o->size;
            int mm = a >= RS_GL_MMAP_BASE;
            int64_t off = mm ? -1 : (int64_t)(a - RS_GL_HEAP_BASE);
            uint64_t u = rs_gl_chunk_size_of(st, a, o->size) - (mm ? 16 : 8);
            if (na < real->nallocs && off != real->off[na] && bad_off++ < 3)
                fprintf(stderr, "scenario %d alloc #%" PRIu64 " (op %" PRIu64 ", %" PRIu64
                        " B): model offset %" PRId64 ", glibc %" PRId64 "\n",
                        scen, na, i, o->size, off, real->off[na]);
            if (na < real->nallocs && u != real->usable[na] && bad_usable++ < 3)
                fprintf(stderr, "scenario %d alloc #%" PRIu64 " (%" PRIu64 " B): model usable %"
                        PRIu64 ", glibc %" PRIu64 "\n", scen, na, o->size, u, real->usable[na]);
            na++;
        } else if (o->kind == OP_FREE) {
            rs_alloc_glibc.free(st, addr[o->slot], size[o->slot], 0, 0);
        } else if (o->kind == OP_TRIM) {
            rs_alloc_glibc.release(st, 0);
        } else {
            rs_gl_mallinfo mi;
            rs_gl_mallinfo2(st, &mi);
            checkpoint m = {.arena = mi.arena, .hblkhd = mi.hblkhd, .uordblks = mi.uordblks,
                            .fordblks = mi.fordblks, .keepcost = mi.keepcost, .ordblks = mi.ordblks,
                            .smblks = mi.smblks, .fsmblks = mi.fsmblks,
                            .heap_rss = rs_gl_heap_resident_bytes(st)};
            if (ncp < real->ncp && memcmp(&m, &real->cp[ncp], sizeof m) != 0 && bad_cp++ < 3) {
                const checkpoint *r = &real->cp[ncp];
                fprintf(stderr, "scenario %d checkpoint %" PRIu64 " (op %" PRIu64 "): model / glibc\n"
                        "  arena %" PRIu64 " / %" PRIu64 ", hblkhd %" PRIu64 " / %" PRIu64
                        ", uordblks %" PRIu64 " / %" PRIu64 ", fordblks %" PRIu64 " / %" PRIu64
                        ", keepcost %" PRIu64 " / %" PRIu64 ", ordblks %" PRIu64 " / %" PRIu64
                        ", smblks %" PRIu64 " / %" PRIu64 ", heap rss %" PRIu64 " / %" PRIu64 "\n",
                        scen, ncp, i, m.arena, r->arena, m.hblkhd, r->hblkhd, m.uordblks, r->uordblks,
                        m.fordblks, r->fordblks, m.keepcost, r->keepcost, m.ordblks, r->ordblks,
                        m.smblks, r->smblks, m.heap_rss, r->heap_rss);
            }
            ncp++;
        }
    }
    CHECK_EQ_U64(na, real->nallocs);
    CHECK_EQ_U64(ncp, real->ncp);
    CHECK_MSG(bad_off == 0, "scenario %d: %" PRIu64 " of %" PRIu64 " addresses differ", scen, bad_off, na);
    CHECK_MSG(bad_usable == 0, "scenario %d: %" PRIu64 " usable sizes differ", scen, bad_usable);
    CHECK_MSG(bad_cp == 0, "scenario %d: %" PRIu64 " of %" PRIu64 " checkpoints differ", scen, bad_cp, ncp);
    printf("scenario %d: %" PRIu64 " ops, %" PRIu64 " allocations, %" PRIu64
           " checkpoints compared: %" PRIu64 " address, %" PRIu64 " usable, %" PRIu64
           " checkpoint mismatches\n", scen, n, na, ncp, bad_off, bad_usable, bad_cp);
    if (scen == 1) {
        /* as measured: 1 MiB mmapped; after its free 200000 B is a heap chunk */
        CHECK(real->off[2] == -1 && real->off[3] >= 0);
        CHECK_EQ_U64(real->usable[2], 1052656);
        CHECK_EQ_U64(real->usable[3], 200008);
        CHECK_EQ_U64(rs_gl_mmap_threshold(st), 1052672);
        CHECK_EQ_U64(rs_gl_trim_threshold(st), 2 * 1052672);
    }
    rs_alloc_glibc.destroy(st);
}

/* malloc_usable_size in this process for small requests (no threshold issue). */
static void check_usable_formula(void)
{
    unsigned bad = 0;
    for (size_t n = 1; n <= 4096; n++) {
        void *p = malloc(n);
        if (!p || malloc_usable_size(p) != rs_gl_usable_size(n))
            bad++;
        free(p);
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(rs_gl_usable_size(24), 24);
    CHECK_EQ_U64(rs_gl_usable_size(25), 40);
    CHECK_EQ_U64(rs_gl_mmap_usable_size(200000), 200688);
    CHECK_EQ_U64(rs_gl_mmap_usable_size(1 << 20), 1052656);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child((int)strtol(argv[2], NULL, 10), (int)strtol(argv[3], NULL, 10));
    check_usable_formula();
    for (int scen = 0; scen < NSCEN; scen++) {
        result *res = run_child(argv[0], scen);
        CHECK_MSG(res && res->done, "scenario %d: no result from the child", scen);
        if (res && res->done)
            compare(scen, res);
        if (res)
            munmap(res, sizeof *res);
    }
    return check_done();
}
#endif
