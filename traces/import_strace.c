/*
 * import_strace.c — `strace -f -tt` output as mds records (import_strace.h;
 * docs/trace-format.md §13 is the normative description of the mapping).
 *
 * One pass over the file (zlib's gzgets: plain or gzip), with this state:
 *   - a tree of path nodes, keyed by (parent node, component name) in an
 *     open-addressing table; node 0 is "/".  A node that names an existing
 *     file under the root carries its MDS inode number (0 while it does not
 *     exist); a rename re-keys the node, so a folder's subtree moves with it;
 *   - per process (pid, from the `[pid N]` or `N ` prefix): its cwd node,
 *     its fd table (shared by threads and CLONE_FILES children, copied by
 *     fork), its client, and its one call left `<unfinished ...>`;
 *   - open file descriptions (dup and fork share them): the node and the
 *     node's generation when opened, and whether the MDS saw an OPEN, so the
 *     last close of an OPENed file is one CLOSE.
 * A call is handled when its result is known (the whole line, or the
 * `<... resumed>` line joined to its start).  Paths are resolved lexically
 * (".." is the parent folder, symbolic links are not followed); strace -y
 * decorations (`AT_FDCWD</dir>`, `3</dir/f>`) correct a process's cwd and
 * stand in for fds the trace never opened.
 */
#include "import_strace.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../sim/base/hash.h"
#include "format.h"
#include "import_block.h"

#define NONE UINT32_MAX
#define FSROOT 0u
#define MAX_ARGS 8
#define PID_SLOTS (2u * RS_STRACE_MAX_PIDS) /* the pid table's most slots (half full at most) */
#define PID_SLOTS_FIRST 64u                 /* and its first: doubled as processes are seen */
#define NS_PER_DAY (86400ull * 1000000000ull)
#define ROOT_INO 1u

typedef struct node {
    uint64_t ino;        /* MDS inode while it exists under the root, else 0 */
    uint64_t mds_parent; /* the parent inode the MDS files it under */
    uint32_t parent;     /* node; NONE for "/" and for a node a rename replaced */
    uint32_t name_off, name_len;
    uint32_t gen;        /* changes when the file behind the path goes */
    uint32_t live;       /* existing children */
    uint8_t dir;         /* known to be a folder */
    uint8_t mds_dir;     /* made a folder in the MDS (MKDIR, not CREATE) */
} node;

typedef struct ofd {
    uint32_t node, gen, refs;
    uint8_t opened; /* the MDS saw an OPEN: the last close is a CLOSE */
} ofd;

typedef struct fdtab {
    uint32_t refs, n;
    uint32_t *ofd; /* ofd index + 1, 0 = not open */
    uint8_t *cloexec;
} fdtab;

typedef struct proc {
    int64_t pid;    /* -1: the lines without a pid prefix */
    uint32_t cwd;   /* node, NONE while unknown */
    uint32_t tab;
    uint16_t client;
    uint8_t top;    /* the recorded command (no parent in the trace) */
    uint8_t used;
    char *pend;     /* the unfinished call's text, or NULL */
    uint64_t pend_line;
} proc;

typedef struct st {
    const rs_import_opts *opts;
    const char *path;
    uint64_t line;
    rs_trace_writer *w;
    rs_import_stats *stats;
    int wrote; /* records written for the current call */

    int clock;  /* 0 unknown, 1 -tt (time of day), 2 -ttt (epoch) */
    uint64_t t0_abs, prev_abs, day_add, now_ns;

    node *nodes;
    uint32_t n_nodes, cap_nodes;
    char *names;
    size_t names_len, names_cap;
    uint32_t *slots; /* node + 1 */
    size_t n_slots;
    uint32_t root, cwd0;
    uint64_t next_ino;

    ofd *ofds;
    uint32_t n_ofds, cap_ofds, free_ofd;
    fdtab *tabs;
    uint32_t n_tabs, cap_tabs, free_tab;
    proc *procs;
    uint32_t n_procs, cap_procs, live;
    uint32_t *pid_slots; /* proc + 1 */
    size_t n_pid_slots;  /* a power of two, at most PID_SLOTS */
    uint32_t next_client, rr;
    uint32_t placeholder; /* the proc of the unprefixed lines, NONE if none */

    char *pathbuf, *joinbuf;
} st;

static int fail(const st *s, rs_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(const st *s, rs_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rs_vfail_at(err, s->path, s->line, fmt, ap);
    va_end(ap);
    return rc;
}

static int oom(rs_err *err)
{
    return rs_fail(err, RS_ENOMEM, "out of memory importing a strace file");
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t n = *cap ? *cap : 64;
    while (n < need)
        n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* ---- path nodes --------------------------------------------------------- */

static uint64_t name_hash(uint32_t parent, const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
    return rs_hash64(h ^ ((uint64_t)parent << 32 | parent));
}

static uint64_t node_hash(const st *s, uint32_t n)
{
    return name_hash(s->nodes[n].parent, s->names + s->nodes[n].name_off, s->nodes[n].name_len);
}

static void slot_put(st *s, uint32_t n)
{
    size_t mask = s->n_slots - 1, i = node_hash(s, n) & mask;
    while (s->slots[i])
        i = (i + 1) & mask;
    s->slots[i] = n + 1;
}

/* Remove n from the table (backward-shift deletion). */
static void slot_del(st *s, uint32_t n)
{
    size_t mask = s->n_slots - 1, i = node_hash(s, n) & mask, j;
    while (s->slots[i] != n + 1)
        i = (i + 1) & mask;
    s->slots[i] = 0;
    for (j = i;;) {
        j = (j + 1) & mask;
        if (!s->slots[j])
            return;
        size_t k = node_hash(s, s->slots[j] - 1) & mask;
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        s->slots[i] = s->slots[j];
        s->slots[j] = 0;
        i = j;
    }
}

static int name_store(st *s, const char *name, size_t len, uint32_t *r_off, rs_err *err)
{
    if (s->names_len + len > RS_STRACE_MAX_NAME_BYTES)
        return fail(s, err, "path names pass %u bytes together (RS_STRACE_MAX_NAME_BYTES)",
                    RS_STRACE_MAX_NAME_BYTES);
    if (s->names_len + len > s->names_cap) {
        size_t n = s->names_cap ? s->names_cap : 65536;
        while (n < s->names_len + len)
            n *= 2;
        char *q = realloc(s->names, n);
        if (!q)
            return oom(err);
        s->names = q;
        s->names_cap = n;
    }
    memcpy(s->names + s->names_len, name, len);
    *r_off = (uint32_t)s->names_len;
    s->names_len += len;
    return 0;
}

/* The node (parent, name), made when new. */
static int child(st *s, uint32_t parent, const char *name, size_t len, uint32_t *r_n, rs_err *err)
{
    size_t mask = s->n_slots - 1, i = name_hash(parent, name, len) & mask;
    for (uint32_t v; (v = s->slots[i]); i = (i + 1) & mask) {
        const node *n = &s->nodes[v - 1];
        if (n->parent == parent && n->name_len == len && !memcmp(s->names + n->name_off, name, len)) {
            *r_n = v - 1;
            return 0;
        }
    }
    if (s->n_nodes >= RS_STRACE_MAX_PATHS)
        return fail(s, err, "more than %u distinct paths (RS_STRACE_MAX_PATHS)", RS_STRACE_MAX_PATHS);
    if (grow((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof *s->nodes))
        return oom(err);
    uint32_t off = 0;
    int rc = name_store(s, name, len, &off, err);
    if (rc)
        return rc;
    uint32_t n = s->n_nodes++;
    s->nodes[n] = (node){ .parent = parent, .name_off = off, .name_len = (uint32_t)len };
    s->nodes[parent].dir = 1;
    if ((size_t)s->n_nodes * 2 > s->n_slots) {
        size_t ns = s->n_slots * 2;
        uint32_t *q = calloc(ns, sizeof *q);
        if (!q)
            return oom(err);
        free(s->slots);
        s->slots = q;
        s->n_slots = ns;
        for (uint32_t k = 1; k < s->n_nodes; k++)
            if (s->nodes[k].parent != NONE)
                slot_put(s, k);
    } else {
        slot_put(s, n);
    }
    *r_n = n;
    return 0;
}

/* Walk path p (len bytes) from node base, component by component. */
static int walk(st *s, uint32_t base, const char *p, size_t len, uint32_t *r_n, rs_err *err)
{
    uint32_t n = p[0] == '/' ? FSROOT : base;
    size_t i = 0;
    while (i < len) {
        while (i < len && p[i] == '/')
            i++;
        size_t j = i;
        while (j < len && p[j] != '/')
            j++;
        if (j == i)
            break;
        if (j - i == 1 && p[i] == '.') {
            s->nodes[n].dir = 1;
        } else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
            s->nodes[n].dir = 1;
            if (s->nodes[n].parent != NONE)
                n = s->nodes[n].parent;
        } else {
            int rc = child(s, n, p + i, j - i, &n, err);
            if (rc)
                return rc;
        }
        if (j < len)
            s->nodes[n].dir = 1; /* followed by '/' */
        i = j;
    }
    *r_n = n;
    return 0;
}

static int under_root(const st *s, uint32_t n)
{
    for (; n != NONE; n = s->nodes[n].parent)
        if (n == s->root)
            return 1;
    return 0;
}

static int emit(st *s, rs_op op, uint64_t key, uint64_t parent, uint32_t aux, uint16_t client,
                rs_err *err)
{
    rs_rec r = { .t_ns = s->now_ns, .op = (uint8_t)op, .key = key, .size_bytes = parent,
                 .aux = aux, .thread = client };
    s->stats->records++;
    s->stats->setup_records += client == 0;
    s->wrote = 1;
    return rs_trace_write(s->w, &r, err);
}

/* n (under the root) exists: it and its missing folders are made by client
 * 0, the tree as it stood before the recording (or made by something the
 * trace does not show), each just before its first use.  A path client 0
 * made as a file that has since shown itself a folder (a stat without the
 * mode, then a path through it) is made again as a folder, same inode
 * (UNLINK + MKDIR by client 0). */
static int ensure(st *s, uint32_t n, int dir, rs_err *err)
{
    int rc;
    if (dir)
        s->nodes[n].dir = 1;
    for (uint32_t a = n; a != s->root; a = s->nodes[a].parent) {
        node *x = &s->nodes[a];
        if (!x->ino || !x->dir || x->mds_dir)
            continue;
        x->mds_dir = 1;
        x->gen++; /* the UNLINK dropped every client's caps on it */
        if ((rc = emit(s, RS_OP_UNLINK, x->ino, x->mds_parent, x->name_len, 0, err)) ||
            (rc = emit(s, RS_OP_MKDIR, x->ino, x->mds_parent, x->name_len, 0, err)))
            return rc;
    }
    while (!s->nodes[n].ino) {
        uint32_t a = n;
        while (!s->nodes[s->nodes[a].parent].ino)
            a = s->nodes[a].parent;
        node *x = &s->nodes[a], *p = &s->nodes[x->parent];
        x->ino = s->next_ino++;
        x->mds_parent = p->ino;
        x->mds_dir = x->dir;
        p->live++;
        if ((rc = emit(s, x->dir ? RS_OP_MKDIR : RS_OP_CREATE, x->ino, p->ino, x->name_len, 0, err)))
            return rc;
    }
    return 0;
}

static int lookup(st *s, uint32_t n, uint16_t c, rs_err *err)
{
    const node *x = &s->nodes[n];
    if (n == s->root)
        return 0;
    return emit(s, RS_OP_LOOKUP, x->ino, x->mds_parent, x->name_len, c, err);
}

/* A path that does not resolve (ENOENT ...): the MDS looked in the deepest
 * folder that exists and found nothing — a GETATTR of that folder. */
static int failed_lookup(st *s, uint32_t n, uint16_t c, rs_err *err)
{
    while (!s->nodes[n].ino)
        n = s->nodes[n].parent;
    return emit(s, RS_OP_GETATTR, s->nodes[n].ino, 0, 0, c, err);
}

/* A new file or folder n whose parent is under the root. */
static int make(st *s, uint32_t n, int dir, uint16_t c, rs_err *err)
{
    uint32_t p = s->nodes[n].parent;
    int rc = ensure(s, p, 1, err);
    if (rc)
        return rc;
    node *x = &s->nodes[n];
    if (!x->ino)
        s->nodes[p].live++;
    x->gen++;
    x->ino = s->next_ino++;
    x->mds_parent = s->nodes[p].ino;
    x->dir = x->mds_dir = (uint8_t)dir;
    return emit(s, dir ? RS_OP_MKDIR : RS_OP_CREATE, x->ino, x->mds_parent, x->name_len, c, err);
}

/* n stops existing (the MDS saw its UNLINK or RMDIR, or nothing when c < 0). */
static int gone(st *s, uint32_t n, int c, rs_err *err)
{
    node *x = &s->nodes[n];
    int rc = 0;
    if (c >= 0)
        rc = emit(s, x->dir ? RS_OP_RMDIR : RS_OP_UNLINK, x->ino, x->mds_parent, x->name_len,
                  (uint16_t)c, err);
    if (x->parent != NONE && s->nodes[x->parent].live)
        s->nodes[x->parent].live--;
    x->ino = 0;
    x->gen++;
    return rc;
}

/* ---- descriptors and processes ------------------------------------------ */

static int ofd_new(st *s, uint32_t n, int opened, uint32_t *r_o, rs_err *err)
{
    uint32_t o;
    if (s->free_ofd != NONE) {
        o = s->free_ofd;
        s->free_ofd = s->ofds[o].node;
    } else {
        if (grow((void **)&s->ofds, &s->cap_ofds, s->n_ofds + 1, sizeof *s->ofds))
            return oom(err);
        o = s->n_ofds++;
    }
    s->ofds[o] = (ofd){ .node = n, .gen = s->nodes[n].gen, .refs = 1, .opened = (uint8_t)opened };
    *r_o = o;
    return 0;
}

/* Drop one reference; the last one of an OPENed file still there is a CLOSE. */
static int ofd_put(st *s, uint32_t o, uint16_t c, rs_err *err)
{
    ofd *f = &s->ofds[o];
    if (--f->refs)
        return 0;
    int rc = 0;
    const node *x = &s->nodes[f->node];
    if (f->opened && x->ino && x->gen == f->gen && under_root(s, f->node))
        rc = emit(s, RS_OP_CLOSE, x->ino, 0, 0, c, err);
    f->node = s->free_ofd;
    s->free_ofd = o;
    return rc;
}

static int tab_new(st *s, uint32_t *r_t, rs_err *err)
{
    uint32_t t;
    if (s->free_tab != NONE) {
        t = s->free_tab;
        s->free_tab = s->tabs[t].n;
    } else {
        if (grow((void **)&s->tabs, &s->cap_tabs, s->n_tabs + 1, sizeof *s->tabs))
            return oom(err);
        t = s->n_tabs++;
    }
    s->tabs[t] = (fdtab){ .refs = 1 };
    *r_t = t;
    return 0;
}

static int fd_put_ofd(st *s, proc *p, int64_t fd, uint32_t o, int cloexec, rs_err *err)
{
    if (fd < 0 || fd > RS_STRACE_MAX_FD)
        return fail(s, err, "file descriptor %lld outside 0 .. %d (RS_STRACE_MAX_FD)", (long long)fd,
                    RS_STRACE_MAX_FD);
    fdtab *t = &s->tabs[p->tab];
    if ((uint64_t)fd >= t->n) {
        uint32_t n = t->n ? t->n : 16;
        while (n <= (uint64_t)fd)
            n *= 2;
        uint32_t *a = realloc(t->ofd, (size_t)n * sizeof *a);
        if (!a)
            return oom(err);
        t->ofd = a;
        uint8_t *b = realloc(t->cloexec, n);
        if (!b)
            return oom(err);
        t->cloexec = b;
        memset(a + t->n, 0, (size_t)(n - t->n) * sizeof *a);
        memset(b + t->n, 0, n - t->n);
        t->n = n;
    }
    int rc = 0;
    if (t->ofd[fd])
        rc = ofd_put(s, t->ofd[fd] - 1, p->client, err); /* dup2 over an open fd closes it */
    t->ofd[fd] = o + 1;
    t->cloexec[fd] = (uint8_t)cloexec;
    return rc;
}

static uint32_t fd_get(const st *s, const proc *p, int64_t fd)
{
    const fdtab *t = &s->tabs[p->tab];
    return fd >= 0 && (uint64_t)fd < t->n && t->ofd[fd] ? t->ofd[fd] - 1 : NONE;
}

static int fd_close(st *s, proc *p, int64_t fd, rs_err *err)
{
    fdtab *t = &s->tabs[p->tab];
    if (fd < 0 || (uint64_t)fd >= t->n || !t->ofd[fd])
        return 0;
    uint32_t o = t->ofd[fd] - 1;
    t->ofd[fd] = 0;
    return ofd_put(s, o, p->client, err);
}

static int tab_put(st *s, proc *p, rs_err *err)
{
    fdtab *t = &s->tabs[p->tab];
    int rc = 0;
    if (--t->refs)
        return 0;
    for (uint32_t fd = 0; fd < t->n && !rc; fd++)
        rc = fd_close(s, p, fd, err);
    t = &s->tabs[p->tab];
    free(t->ofd);
    free(t->cloexec);
    t->ofd = NULL;
    t->cloexec = NULL;
    t->n = s->free_tab;
    s->free_tab = p->tab;
    return rc;
}

static size_t pid_home(const st *s, int64_t pid)
{
    return rs_hash64((uint64_t)pid) & (s->n_pid_slots - 1);
}

static uint32_t pid_find(const st *s, int64_t pid)
{
    for (size_t i = pid_home(s, pid);; i = (i + 1) & (s->n_pid_slots - 1)) {
        uint32_t v = s->pid_slots[i];
        if (!v)
            return NONE;
        if (s->procs[v - 1].pid == pid)
            return v - 1;
    }
}

static void pid_put(st *s, uint32_t p)
{
    size_t i = pid_home(s, s->procs[p].pid);
    while (s->pid_slots[i])
        i = (i + 1) & (s->n_pid_slots - 1);
    s->pid_slots[i] = p + 1;
}

/* Room for n pids with the table at most half full: a 64-slot table grown
 * by doubling (a trace of a few processes does not zero PID_SLOTS' 512 KiB). */
static int pid_reserve(st *s, uint32_t n, rs_err *err)
{
    if ((size_t)n * 2 <= s->n_pid_slots)
        return 0;
    size_t ns = s->n_pid_slots, old_n = s->n_pid_slots;
    while (ns < (size_t)n * 2 && ns < PID_SLOTS)
        ns *= 2;
    uint32_t *q = calloc(ns, sizeof *q), *old = s->pid_slots;
    if (!q)
        return oom(err);
    s->pid_slots = q;
    s->n_pid_slots = ns;
    for (size_t i = 0; i < old_n; i++)
        if (old[i])
            pid_put(s, old[i] - 1);
    free(old);
    return 0;
}

static void pid_del(st *s, uint32_t p)
{
    size_t mask = s->n_pid_slots - 1, i = pid_home(s, s->procs[p].pid), j;
    while (s->pid_slots[i] != p + 1)
        i = (i + 1) & mask;
    s->pid_slots[i] = 0;
    for (j = i;;) {
        j = (j + 1) & mask;
        if (!s->pid_slots[j])
            return;
        size_t k = pid_home(s, s->procs[s->pid_slots[j] - 1].pid);
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        s->pid_slots[i] = s->pid_slots[j];
        s->pid_slots[j] = 0;
        i = j;
    }
}

static int client_for(st *s, const proc *parent, int thread, uint16_t *r_c, rs_err *err)
{
    if (parent && thread) {
        *r_c = parent->client;
        return 0;
    }
    if (s->opts->clients == 0) { /* one per process */
        if (s->next_client > RS_STRACE_MAX_CLIENTS)
            return fail(s, err, "more than %u processes for --clients pid (RS_STRACE_MAX_CLIENTS): "
                        "use --clients N", RS_STRACE_MAX_CLIENTS);
        *r_c = (uint16_t)s->next_client++;
    } else if (!parent) {
        *r_c = 1;
    } else if (parent->top) { /* the command's children take the clients in turn */
        *r_c = (uint16_t)(1 + s->rr++ % s->opts->clients);
    } else {
        *r_c = parent->client;
    }
    return 0;
}

/* A process new to the trace: the child of parent (flags: its clone's
 * arguments) or, without a parent, a process the trace starts with. */
static int proc_new(st *s, int64_t pid, proc *parent, const char *flags, uint32_t *r_p, rs_err *err)
{
    int thread = parent && flags && strstr(flags, "CLONE_THREAD");
    int share = parent && flags && (thread || strstr(flags, "CLONE_FILES"));
    uint32_t p, pi = parent ? (uint32_t)(parent - s->procs) : NONE;
    uint16_t client = 0;
    int rc;

    if (s->live >= RS_STRACE_MAX_PIDS)
        return fail(s, err, "more than %u processes alive at once (RS_STRACE_MAX_PIDS)",
                    RS_STRACE_MAX_PIDS);
    if ((rc = pid_reserve(s, s->live + 1, err)))
        return rc;
    if ((rc = client_for(s, parent, thread, &client, err)))
        return rc;
    for (p = 0; p < s->n_procs && s->procs[p].used; p++)
        ;
    if (p == s->n_procs) {
        if (grow((void **)&s->procs, &s->cap_procs, s->n_procs + 1, sizeof *s->procs))
            return oom(err);
        s->n_procs++;
        parent = pi == NONE ? NULL : &s->procs[pi];
    }
    proc *c = &s->procs[p];
    *c = (proc){ .pid = pid, .cwd = parent ? parent->cwd : s->cwd0, .client = client,
                 .top = !parent || (thread && parent->top), .used = 1 };
    if (share) {
        c->tab = parent->tab;
        s->tabs[c->tab].refs++;
    } else {
        if ((rc = tab_new(s, &c->tab, err)))
            return rc;
        if (parent) { /* fork copies the table: each fd one more reference */
            fdtab *from = &s->tabs[parent->tab];
            for (uint32_t fd = 0; fd < from->n; fd++) {
                if (!from->ofd[fd])
                    continue;
                uint32_t o = from->ofd[fd] - 1;
                s->ofds[o].refs++;
                if ((rc = fd_put_ofd(s, c, fd, o, s->tabs[parent->tab].cloexec[fd], err)))
                    return rc;
                from = &s->tabs[parent->tab];
            }
        }
    }
    s->live++;
    s->stats->processes++;
    pid_put(s, p);
    *r_p = p;
    return 0;
}

static const char *pend_name_is_clone(const char *pend)
{
    static const char *const names[] = { "clone(", "clone3(", "fork(", "vfork(" };
    for (size_t i = 0; pend && i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(pend, names[i], strlen(names[i])))
            return pend;
    return NULL;
}

/* The process of a line.  A pid the trace has not seen is the process of
 * the lines without a pid (strace writes no pid while it traces one
 * process) when it resumes that process's unfinished call; else the child
 * of the latest clone still unfinished (strace may show a child before its
 * parent's clone returns); else the process without a pid; else a new one.
 * resumed: the call a `<... NAME resumed>` line names (NAME and its
 * length), NULL for other lines. */
static int proc_get(st *s, int64_t pid, const char *resumed, size_t rlen, uint32_t *r_p, rs_err *err)
{
    uint32_t p = pid_find(s, pid), best = NONE;
    if (p != NONE) {
        *r_p = p;
        return 0;
    }
    const char *ppend = s->placeholder != NONE ? s->procs[s->placeholder].pend : NULL;
    if (pid >= 0 && resumed && ppend && !strncmp(ppend, resumed, rlen) && ppend[rlen] == '(') {
        best = NONE; /* the placeholder, bound below */
    } else if (pid >= 0) {
        for (uint32_t q = 0; q < s->n_procs; q++)
            if (s->procs[q].used && pend_name_is_clone(s->procs[q].pend) &&
                (best == NONE || s->procs[q].pend_line > s->procs[best].pend_line))
                best = q;
    }
    if (pid < 0 && s->live == 1) { /* strace names no pid while it traces one process */
        for (p = 0; !s->procs[p].used; p++)
            ;
        *r_p = p;
        return 0;
    }
    if (pid >= 0) {
        if (best != NONE)
            return proc_new(s, pid, &s->procs[best], s->procs[best].pend, r_p, err);
        if (s->placeholder != NONE) {
            p = s->placeholder;
            s->placeholder = NONE;
            pid_del(s, p);
            s->procs[p].pid = pid;
            pid_put(s, p);
            *r_p = p;
            return 0;
        }
    }
    int rc = proc_new(s, pid, NULL, NULL, r_p, err);
    if (!rc && pid < 0)
        s->placeholder = *r_p;
    return rc;
}

static int proc_end(st *s, uint32_t p, rs_err *err)
{
    proc *x = &s->procs[p];
    int rc = tab_put(s, x, err);
    free(x->pend);
    x->pend = NULL;
    pid_del(s, p);
    if (s->placeholder == p)
        s->placeholder = NONE;
    x->used = 0;
    s->live--;
    return rc;
}

/* ---- the fields of a line ------------------------------------------------ */

/* Split the argument list starting after '(' at top-level commas, in place,
 * up to the matching ')'; *r_end = the byte after it.  -1: no ')'. */
static int split_args(char *p, char **av, int *r_n, char **r_end)
{
    int depth = 0, n = 0;
    char *start = p;
    for (; *p; p++) {
        char ch = *p;
        if (ch == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return -1;
        } else if (ch == '<' && p > start && (isdigit((unsigned char)p[-1]) || p[-1] == 'D') &&
                   p[1] != '<') {
            char *q = strchr(p, '>');
            if (!q)
                return -1;
            p = q;
        } else if (ch == '(' || ch == '[' || ch == '{') {
            depth++;
        } else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) {
            depth--;
        } else if (ch == ')' || (ch == ',' && depth == 0)) {
            *p = '\0';
            while (*start == ' ')
                start++;
            if (n < MAX_ARGS && (ch == ',' || *start || n))
                av[n++] = start;
            start = p + 1;
            if (ch == ')') {
                *r_n = n;
                *r_end = p + 1;
                return 0;
            }
        }
    }
    return -1;
}

/* A quoted strace string into buf (decoded): 1, or 0 when the argument is
 * not a whole string (NULL, an address, cut short with "..."). */
static int decode_str(const char *a, char *buf, size_t cap, size_t *r_len)
{
    size_t n = 0;
    if (*a != '"')
        return 0;
    for (a++; *a != '"'; a++) {
        int v = (unsigned char)*a;
        if (!*a || n + 1 >= cap)
            return 0;
        if (*a == '\\') {
            a++;
            switch (*a) {
            case 'n': v = '\n'; break;
            case 't': v = '\t'; break;
            case 'r': v = '\r'; break;
            case 'v': v = '\v'; break;
            case 'f': v = '\f'; break;
            case 'a': v = '\a'; break;
            case 'b': v = '\b'; break;
            case 'x':
                v = 0;
                for (int k = 0; k < 2 && isxdigit((unsigned char)a[1]); k++, a++)
                    v = v * 16 + (isdigit((unsigned char)a[1]) ? a[1] - '0' : (a[1] | 32) - 'a' + 10);
                break;
            default:
                if (*a >= '0' && *a <= '7') {
                    v = 0;
                    for (int k = 0; k < 3 && *a >= '0' && *a <= '7'; k++, a++)
                        v = v * 8 + (*a - '0');
                    a--;
                } else if (!*a) {
                    return 0;
                } else {
                    v = (unsigned char)*a;
                }
            }
        }
        buf[n++] = (char)v;
    }
    if (!strncmp(a + 1, "...", 3))
        return 0; /* cut short by -s */
    buf[n] = '\0';
    *r_len = n;
    return 1;
}

/* "3", "3</path>", "AT_FDCWD", "AT_FDCWD</path>": the fd (-100 for
 * AT_FDCWD) and the decoration's path (NULL without one). */
static int fd_arg(const char *a, int64_t *r_fd, const char **r_deco, size_t *r_len)
{
    const char *p = a;
    *r_deco = NULL;
    if (!strncmp(p, "AT_FDCWD", 8)) {
        *r_fd = -100;
        p += 8;
    } else {
        int neg = *p == '-';
        int64_t v = 0;
        p += neg;
        if (!isdigit((unsigned char)*p))
            return 0;
        for (; isdigit((unsigned char)*p) && v < 100000000; p++)
            v = v * 10 + (*p - '0');
        *r_fd = neg ? -v : v;
    }
    if (*p == '<') {
        const char *q = strrchr(p, '>');
        if (!q)
            return 0;
        *r_deco = p + 1;
        *r_len = (size_t)(q - p - 1);
        p = q + 1;
    }
    return *p == '\0';
}

/* The node an fd argument names: the process's fd, else its decoration. */
static int fd_node(st *s, proc *p, const char *a, uint32_t *r_n, rs_err *err)
{
    int64_t fd;
    const char *deco;
    size_t dlen = 0;
    *r_n = NONE;
    if (!fd_arg(a, &fd, &deco, &dlen))
        return 0;
    if (fd == -100) {
        if (deco && dlen && deco[0] == '/') {
            int rc = walk(s, FSROOT, deco, dlen, &p->cwd, err);
            if (rc)
                return rc;
            s->nodes[p->cwd].dir = 1;
        }
        *r_n = p->cwd;
        return 0;
    }
    uint32_t o = fd_get(s, p, fd);
    if (o != NONE && deco && (!dlen || deco[0] != '/')) {
        int rc = fd_close(s, p, fd, err); /* a pipe or socket now: ours was stale */
        if (rc)
            return rc;
        o = NONE;
    }
    if (o != NONE) {
        *r_n = s->ofds[o].node;
        return 0;
    }
    if (deco && dlen && deco[0] == '/' && !memchr(deco, ' ', dlen))
        return walk(s, FSROOT, deco, dlen, r_n, err);
    return 0;
}

/* Resolve the path argument pa against the dirfd argument da (NULL: the
 * cwd).  *r_n = NONE when it cannot be (an unknown cwd or fd, no string). */
static int resolve(st *s, proc *p, const char *da, const char *pa, uint32_t *r_n, rs_err *err)
{
    size_t len;
    uint32_t base = p->cwd;
    int rc;
    *r_n = NONE;
    if (!pa || !decode_str(pa, s->pathbuf, RS_STRACE_MAX_LINE, &len))
        return 0;
    if (da && (rc = fd_node(s, p, da, &base, err)))
        return rc;
    if (s->pathbuf[0] != '/' && base == NONE)
        return 0;
    return walk(s, base, s->pathbuf, len, r_n, err);
}

/* ---- calls --------------------------------------------------------------- */

enum kind {
    K_OPEN = 1, K_STAT, K_FSTAT, K_SETATTR, K_FSETATTR, K_READDIR, K_CLOSE, K_DUP, K_FCNTL,
    K_CHDIR, K_FCHDIR, K_UNLINK, K_RMDIR, K_MKDIR, K_MKNOD, K_SYMLINK, K_LINK, K_RENAME,
    K_CLONE, K_EXEC,
};

typedef struct call {
    const char *name;
    uint8_t kind;
    int8_t dirfd, path, flags, dirfd2, path2; /* argument positions, -1 none */
} call;

static const call calls[] = {
    { "open", K_OPEN, -1, 0, 1, -1, -1 },
    { "openat", K_OPEN, 0, 1, 2, -1, -1 },
    { "openat2", K_OPEN, 0, 1, 2, -1, -1 },
    { "creat", K_OPEN, -1, 0, -1, -1, -1 },
    { "stat", K_STAT, -1, 0, 1, -1, -1 },
    { "lstat", K_STAT, -1, 0, 1, -1, -1 },
    { "stat64", K_STAT, -1, 0, 1, -1, -1 },
    { "lstat64", K_STAT, -1, 0, 1, -1, -1 },
    { "newfstatat", K_STAT, 0, 1, 3, -1, -1 },
    { "fstatat64", K_STAT, 0, 1, 3, -1, -1 },
    { "statx", K_STAT, 0, 1, 2, -1, -1 },
    { "access", K_STAT, -1, 0, -1, -1, -1 },
    { "faccessat", K_STAT, 0, 1, -1, -1, -1 },
    { "faccessat2", K_STAT, 0, 1, 3, -1, -1 },
    { "readlink", K_STAT, -1, 0, -1, -1, -1 },
    { "readlinkat", K_STAT, 0, 1, -1, -1, -1 },
    { "getxattr", K_STAT, -1, 0, -1, -1, -1 },
    { "lgetxattr", K_STAT, -1, 0, -1, -1, -1 },
    { "listxattr", K_STAT, -1, 0, -1, -1, -1 },
    { "llistxattr", K_STAT, -1, 0, -1, -1, -1 },
    { "fstat", K_FSTAT, 0, -1, -1, -1, -1 },
    { "fstat64", K_FSTAT, 0, -1, -1, -1, -1 },
    { "fgetxattr", K_FSTAT, 0, -1, -1, -1, -1 },
    { "flistxattr", K_FSTAT, 0, -1, -1, -1, -1 },
    { "chmod", K_SETATTR, -1, 0, -1, -1, -1 },
    { "fchmodat", K_SETATTR, 0, 1, -1, -1, -1 },
    { "fchmodat2", K_SETATTR, 0, 1, -1, -1, -1 },
    { "chown", K_SETATTR, -1, 0, -1, -1, -1 },
    { "lchown", K_SETATTR, -1, 0, -1, -1, -1 },
    { "fchownat", K_SETATTR, 0, 1, -1, -1, -1 },
    { "truncate", K_SETATTR, -1, 0, -1, -1, -1 },
    { "truncate64", K_SETATTR, -1, 0, -1, -1, -1 },
    { "utime", K_SETATTR, -1, 0, -1, -1, -1 },
    { "utimes", K_SETATTR, -1, 0, -1, -1, -1 },
    { "utimensat", K_SETATTR, 0, 1, -1, -1, -1 },
    { "futimesat", K_SETATTR, 0, 1, -1, -1, -1 },
    { "setxattr", K_SETATTR, -1, 0, -1, -1, -1 },
    { "lsetxattr", K_SETATTR, -1, 0, -1, -1, -1 },
    { "removexattr", K_SETATTR, -1, 0, -1, -1, -1 },
    { "lremovexattr", K_SETATTR, -1, 0, -1, -1, -1 },
    { "fchmod", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "fchown", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "ftruncate", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "ftruncate64", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "fsetxattr", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "fremovexattr", K_FSETATTR, 0, -1, -1, -1, -1 },
    { "getdents", K_READDIR, 0, -1, -1, -1, -1 },
    { "getdents64", K_READDIR, 0, -1, -1, -1, -1 },
    { "close", K_CLOSE, 0, -1, -1, -1, -1 },
    { "dup", K_DUP, 0, -1, -1, -1, -1 },
    { "dup2", K_DUP, 0, -1, -1, 1, -1 },
    { "dup3", K_DUP, 0, -1, 2, 1, -1 },
    { "fcntl", K_FCNTL, 0, -1, 1, -1, -1 },
    { "fcntl64", K_FCNTL, 0, -1, 1, -1, -1 },
    { "chdir", K_CHDIR, -1, 0, -1, -1, -1 },
    { "fchdir", K_FCHDIR, 0, -1, -1, -1, -1 },
    { "unlink", K_UNLINK, -1, 0, -1, -1, -1 },
    { "unlinkat", K_UNLINK, 0, 1, 2, -1, -1 },
    { "rmdir", K_RMDIR, -1, 0, -1, -1, -1 },
    { "mkdir", K_MKDIR, -1, 0, -1, -1, -1 },
    { "mkdirat", K_MKDIR, 0, 1, -1, -1, -1 },
    { "mknod", K_MKNOD, -1, 0, -1, -1, -1 },
    { "mknodat", K_MKNOD, 0, 1, -1, -1, -1 },
    { "symlink", K_SYMLINK, -1, 1, -1, -1, -1 },
    { "symlinkat", K_SYMLINK, 1, 2, -1, -1, -1 },
    { "link", K_LINK, -1, 0, -1, -1, 1 },
    { "linkat", K_LINK, 0, 1, 4, 2, 3 },
    { "rename", K_RENAME, -1, 0, -1, -1, 1 },
    { "renameat", K_RENAME, 0, 1, -1, 2, 3 },
    { "renameat2", K_RENAME, 0, 1, 4, 2, 3 },
    { "clone", K_CLONE, -1, -1, -1, -1, -1 },
    { "clone3", K_CLONE, -1, -1, -1, -1, -1 },
    { "fork", K_CLONE, -1, -1, -1, -1, -1 },
    { "vfork", K_CLONE, -1, -1, -1, -1, -1 },
    { "execve", K_EXEC, -1, 0, -1, -1, -1 },
    { "execveat", K_EXEC, 0, 1, -1, -1, -1 },
};

enum { E_OK, E_NOTFOUND, E_EXISTS, E_OTHER };

/* How the MDS saw a failed call: a name that is not there (the lookup ran
 * and found nothing), a name that is there (the lookup found it and the
 * call was refused), or no MDS request at all. */
static int err_class(const char *e)
{
    static const char *const notfound[] = { "ENOENT", "ENOTDIR", "ELOOP", "ENAMETOOLONG" };
    static const char *const exists[] = { "EEXIST", "EISDIR", "ENOTEMPTY", "ETXTBSY", "EBUSY" };
    for (size_t i = 0; i < sizeof notfound / sizeof notfound[0]; i++)
        if (!strcmp(e, notfound[i]))
            return E_NOTFOUND;
    for (size_t i = 0; i < sizeof exists / sizeof exists[0]; i++)
        if (!strcmp(e, exists[i]))
            return E_EXISTS;
    return E_OTHER;
}

static const char *arg(char **av, int n, int i)
{
    return i >= 0 && i < n ? av[i] : NULL;
}

static int has(const char *a, const char *word)
{
    return a && strstr(a, word) != NULL;
}

static int any_has(char **av, int ac, const char *word)
{
    for (int i = 0; i < ac; i++)
        if (has(av[i], word))
            return 1;
    return 0;
}

/* A lookup-like call on n: LOOKUP and GETATTR when it resolved, the folder
 * searched when it did not. */
static int stat_like(st *s, proc *p, uint32_t n, int res, int dir, int getattr, rs_err *err)
{
    int rc;
    if (n == NONE || !under_root(s, n) || res == E_OTHER)
        return 0;
    if (res == E_NOTFOUND)
        return s->nodes[n].ino ? 0 : failed_lookup(s, n, p->client, err);
    if ((rc = ensure(s, n, dir, err)) || (rc = lookup(s, n, p->client, err)))
        return rc;
    return getattr ? emit(s, RS_OP_GETATTR, s->nodes[n].ino, 0, 0, p->client, err) : 0;
}

/* A call on an fd's file: one op on it when it is under the root. */
static int fd_op(st *s, proc *p, const char *a, rs_op op, rs_err *err)
{
    uint32_t n;
    int rc = fd_node(s, p, a, &n, err);
    if (rc || n == NONE || !under_root(s, n))
        return rc;
    if (op == RS_OP_READDIR)
        s->nodes[n].dir = 1;
    if ((rc = ensure(s, n, op == RS_OP_READDIR, err)))
        return rc;
    return emit(s, op, s->nodes[n].ino, 0, 0, p->client, err);
}

static int do_open(st *s, proc *p, const call *k, char **av, int ac, int64_t ret, int res,
                   rs_err *err)
{
    const char *fl = arg(av, ac, k->flags);
    int creat = k->flags < 0 || has(fl, "O_CREAT"), dir = has(fl, "O_DIRECTORY");
    uint32_t n, o = NONE;
    int rc = resolve(s, p, arg(av, ac, k->dirfd), arg(av, ac, k->path), &n, err);
    if (rc || n == NONE)
        return rc;
    int in = under_root(s, n), opened = 0;
    if (res != E_OK)
        return stat_like(s, p, n, res, dir, 0, err);
    if (in && creat && !s->nodes[n].ino) {
        rc = make(s, n, 0, p->client, err); /* its close goes to the caps, not the MDS */
    } else if (in) {
        opened = 1;
        if (!(rc = ensure(s, n, dir, err)) && !(rc = lookup(s, n, p->client, err)))
            rc = emit(s, RS_OP_OPEN, s->nodes[n].ino, 0, 0, p->client, err);
    }
    if (rc || (rc = ofd_new(s, n, opened, &o, err)))
        return rc;
    return fd_put_ofd(s, p, ret, o, has(fl, "O_CLOEXEC"), err);
}

static int do_rename(st *s, proc *p, const call *k, char **av, int ac, int res, rs_err *err)
{
    uint32_t o, n;
    int rc;
    if ((rc = resolve(s, p, arg(av, ac, k->dirfd), arg(av, ac, k->path), &o, err)) ||
        (rc = resolve(s, p, arg(av, ac, k->dirfd2), arg(av, ac, k->path2), &n, err)))
        return rc;
    if (o == NONE || n == NONE)
        return 0;
    int oin = under_root(s, o), nin = under_root(s, n);
    if (res != E_OK || has(arg(av, ac, k->flags), "RENAME_EXCHANGE")) {
        if ((rc = stat_like(s, p, o, res == E_OK ? E_EXISTS : res, 0, 0, err)))
            return rc;
        return res == E_OK ? stat_like(s, p, n, E_EXISTS, 0, 0, err) : 0;
    }
    if (o == s->root || n == s->root)
        return oin ? stat_like(s, p, o, E_EXISTS, 0, 0, err) : 0;
    for (uint32_t a = n; a != NONE; a = s->nodes[a].parent)
        if (a == o) /* the same path, or into itself: nothing moves */
            return oin ? stat_like(s, p, o, E_EXISTS, 0, 0, err) : 0;
    if (oin && (rc = ensure(s, o, 0, err)))
        return rc;
    if (nin && (rc = ensure(s, s->nodes[n].parent, 1, err)))
        return rc;
    if (s->nodes[n].ino && (rc = gone(s, n, nin ? p->client : -1, err)))
        return rc; /* the file it replaces */
    /* the node o takes n's place in the tree; n is cut off */
    node *x = &s->nodes[o];
    uint64_t ino = x->ino;
    int moves = oin && nin && !(x->dir && x->live);
    if (oin && (!nin || moves)) {
        uint32_t live = x->live;
        if ((rc = gone(s, o, p->client, err)))
            return rc;
        s->nodes[o].live = live;
    } else if (oin) { /* a folder with entries: v1 has no RENAME, the MDS keeps its dentry */
        if ((rc = lookup(s, o, p->client, err)))
            return rc;
        if (s->nodes[x->parent].live)
            s->nodes[x->parent].live--;
    }
    slot_del(s, o);
    slot_del(s, n);
    x = &s->nodes[o];
    x->parent = s->nodes[n].parent;
    x->name_off = s->nodes[n].name_off;
    x->name_len = s->nodes[n].name_len;
    s->nodes[n].parent = NONE;
    slot_put(s, o);
    if (!nin)
        return 0;
    node *np = &s->nodes[x->parent];
    if (moves) {
        x->ino = ino;
        x->mds_parent = np->ino;
        x->mds_dir = x->dir;
        np->live++;
        return emit(s, x->dir ? RS_OP_MKDIR : RS_OP_CREATE, ino, np->ino, x->name_len, p->client, err);
    }
    if (oin) {
        np->live++;
        return 0;
    }
    return make(s, o, x->dir, p->client, err); /* moved in from outside the root */
}

/* The call in text (NAME(ARGS) = RET ...), complete. */
static int handle(st *s, uint32_t pi, char *text, rs_err *err)
{
    char *av[MAX_ARGS], *end, *q;
    int ac = 0, rc;
    size_t nl = strcspn(text, "(");
    const call *k = NULL;

    s->stats->calls++;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strlen(calls[i].name) == nl && !strncmp(calls[i].name, text, nl))
            k = &calls[i];
    if (!k)
        return 0;
    if (split_args(text + nl + 1, av, &ac, &end) < 0)
        return fail(s, err, "arguments of %.*s: no closing ')'", (int)nl, text);
    for (q = end; *q == ' ' || *q == '\t'; q++)
        ;
    if (*q != '=')
        return fail(s, err, "return value of %.*s: expected ' = ' after the arguments", (int)nl, text);
    for (q++; *q == ' '; q++)
        ;
    int64_t ret = 0;
    int res = E_OK, neg = *q == '-';
    if (*q == '?')
        return 0; /* the call did not return (the process ended) */
    q += neg;
    if (!isdigit((unsigned char)*q))
        return fail(s, err, "return value of %.*s: not a number", (int)nl, text);
    if (q[0] == '0' && q[1] == 'x') {
        ret = (int64_t)strtoull(q, &q, 16);
    } else {
        for (; isdigit((unsigned char)*q); q++)
            ret = ret < INT64_MAX / 10 ? ret * 10 + (*q - '0') : INT64_MAX;
    }
    if (neg) {
        char e[24];
        size_t n = 0;
        for (; *q == ' '; q++)
            ;
        while (n + 1 < sizeof e && (isupper((unsigned char)*q) || isdigit((unsigned char)*q)))
            e[n++] = *q++;
        e[n] = '\0';
        if (!n && !strncmp(q, "(errno ", 7)) /* an errno strace has no name for */
            memcpy(e, "?", 2), n = 1;
        if (!n)
            return fail(s, err, "return value of %.*s: -%lld without an error name", (int)nl, text,
                        (long long)ret);
        res = err_class(e);
        ret = -ret;
    }
    proc *p = &s->procs[pi];
    uint16_t c = p->client;
    uint32_t n;
    s->wrote = 0;
    switch (k->kind) {
    case K_OPEN:
        rc = do_open(s, p, k, av, ac, ret, res, err);
        break;
    case K_STAT:
    case K_SETATTR:
    case K_EXEC: {
        const char *pa = arg(av, ac, k->path), *da = arg(av, ac, k->dirfd);
        if (pa && !strcmp(pa, "\"\"") && has(arg(av, ac, k->flags), "AT_EMPTY_PATH")) {
            rc = res == E_OK ? fd_op(s, p, da, RS_OP_GETATTR, err) : 0; /* fstatat(fd, "") */
            break;
        }
        if (pa && !strcmp(pa, "NULL") && k->kind == K_SETATTR) {
            rc = res == E_OK ? fd_op(s, p, da, RS_OP_GETATTR, err) : 0; /* futimens */
            break;
        }
        if ((rc = resolve(s, p, da, pa, &n, err)))
            break;
        rc = stat_like(s, p, n, res, k->kind == K_STAT && any_has(av, ac, "S_IFDIR"), 1, err);
        if (!rc && k->kind == K_EXEC && res == E_OK) { /* close-on-exec */
            fdtab *t = &s->tabs[p->tab];
            for (uint32_t fd = 0; fd < t->n && !rc; fd++, t = &s->tabs[p->tab])
                if (t->ofd[fd] && t->cloexec[fd])
                    rc = fd_close(s, p, fd, err);
        }
        break;
    }
    case K_FSTAT:
    case K_FSETATTR:
        rc = res == E_OK ? fd_op(s, p, arg(av, ac, k->dirfd), RS_OP_GETATTR, err) : 0;
        break;
    case K_READDIR:
        rc = res == E_OK && ret > 0 ? fd_op(s, p, arg(av, ac, k->dirfd), RS_OP_READDIR, err) : 0;
        break;
    case K_CLOSE: {
        int64_t fd;
        const char *deco;
        size_t dl;
        rc = ac > 0 && fd_arg(av[0], &fd, &deco, &dl) ? fd_close(s, p, fd, err) : 0;
        break;
    }
    case K_DUP:
    case K_FCNTL: {
        int64_t fd, to = ret;
        const char *deco, *cmd = arg(av, ac, k->flags);
        size_t dl;
        uint32_t o;
        if (res != E_OK || ac < 1 || !fd_arg(av[0], &fd, &deco, &dl) || (o = fd_get(s, p, fd)) == NONE) {
            rc = 0;
            break;
        }
        if (k->kind == K_FCNTL) {
            if (has(cmd, "F_SETFD")) {
                fdtab *t = &s->tabs[p->tab];
                t->cloexec[fd] = has(arg(av, ac, 2), "FD_CLOEXEC");
            }
            if (!has(cmd, "F_DUPFD")) {
                rc = 0;
                break;
            }
        }
        if (to == fd) {
            rc = 0;
            break;
        }
        s->ofds[o].refs++;
        rc = fd_put_ofd(s, p, to, o, has(cmd, "CLOEXEC"), err);
        break;
    }
    case K_CHDIR:
        if ((rc = resolve(s, p, NULL, arg(av, ac, k->path), &n, err)))
            break;
        if (!(rc = stat_like(s, p, n, res, 1, 1, err)) && res == E_OK && n != NONE)
            s->procs[pi].cwd = n;
        break;
    case K_FCHDIR:
        if (!(rc = fd_node(s, p, arg(av, ac, k->dirfd), &n, err)) && res == E_OK && n != NONE) {
            s->nodes[n].dir = 1;
            s->procs[pi].cwd = n;
        }
        break;
    case K_UNLINK:
    case K_RMDIR: {
        int dir = k->kind == K_RMDIR || has(arg(av, ac, k->flags), "AT_REMOVEDIR");
        if ((rc = resolve(s, p, arg(av, ac, k->dirfd), arg(av, ac, k->path), &n, err)) || n == NONE)
            break;
        if (res != E_OK || !under_root(s, n) || n == s->root) {
            rc = stat_like(s, p, n, res == E_OK ? E_OTHER : res, dir, 0, err);
            break;
        }
        if (!(rc = ensure(s, n, dir, err)))
            rc = gone(s, n, c, err);
        break;
    }
    case K_MKDIR:
    case K_MKNOD:
    case K_SYMLINK:
    case K_LINK:
        if (k->kind == K_LINK) {
            if ((rc = resolve(s, p, arg(av, ac, k->dirfd), arg(av, ac, k->path), &n, err)) ||
                (rc = stat_like(s, p, n, res == E_OK ? E_EXISTS : E_OTHER, 0, 0, err)) ||
                (rc = resolve(s, p, arg(av, ac, k->dirfd2), arg(av, ac, k->path2), &n, err)))
                break;
        } else if ((rc = resolve(s, p, arg(av, ac, k->dirfd), arg(av, ac, k->path), &n, err))) {
            break;
        }
        if (n == NONE || !under_root(s, n) || n == s->root)
            break;
        rc = res == E_OK ? make(s, n, k->kind == K_MKDIR, c, err)
                         : stat_like(s, p, n, res, k->kind == K_MKDIR, 0, err);
        break;
    case K_RENAME:
        rc = do_rename(s, p, k, av, ac, res, err);
        break;
    case K_CLONE: {
        uint32_t child;
        rc = 0;
        const char *fl = any_has(av, ac, "CLONE_THREAD") ? "CLONE_THREAD"
                         : any_has(av, ac, "CLONE_FILES") ? "CLONE_FILES" : "";
        if (res == E_OK && ret > 0 && pid_find(s, ret) == NONE)
            rc = proc_new(s, ret, p, fl, &child, err);
        break;
    }
    default:
        rc = 0;
    }
    s->stats->ios += s->wrote && !rc;
    return rc;
}

/* ---- lines --------------------------------------------------------------- */

/* "HH:MM:SS.frac" (-tt) or "SECONDS.frac" (-ttt) into s->now_ns. */
static int timestamp(st *s, char **pp, rs_err *err)
{
    char *p = *pp;
    uint64_t v[3] = { 0 }, frac = 0, abs_ns;
    int k = 0, nd = 0, fd = 0;
    for (;; p++) {
        if (isdigit((unsigned char)*p)) {
            if (v[k] > 100000000000ull)
                break;
            v[k] = v[k] * 10 + (uint64_t)(*p - '0');
            nd++;
        } else if (*p == ':' && k < 2 && nd) {
            k++;
            nd = 0;
        } else {
            break;
        }
    }
    if (!nd || *p != '.' || (k != 0 && k != 2))
        return fail(s, err, "timestamp: expected HH:MM:SS.UUUUUU (strace -tt) or SECONDS.UUUUUU "
                    "(-ttt) after the pid");
    for (p++; isdigit((unsigned char)*p); p++, fd++)
        if (fd < 9)
            frac = frac * 10 + (uint64_t)(*p - '0');
    if (!fd || (*p != ' ' && *p != '\0'))
        return fail(s, err, "timestamp: expected digits after the '.'");
    for (; fd < 9; fd++)
        frac *= 10;
    int clock = k == 2 ? 1 : 2;
    if (k == 2 && (v[0] > 23 || v[1] > 59 || v[2] > 60))
        return fail(s, err, "timestamp: %llu:%llu:%llu is not a time of day", (unsigned long long)v[0],
                    (unsigned long long)v[1], (unsigned long long)v[2]);
    abs_ns = k == 2 ? ((v[0] * 60 + v[1]) * 60 + v[2]) * 1000000000ull + frac
                    : v[0] * 1000000000ull + frac;
    if (!s->clock) {
        s->clock = clock;
        s->t0_abs = s->prev_abs = abs_ns;
    } else if (s->clock != clock) {
        return fail(s, err, "timestamp: %s here, %s on the first line", clock == 1 ? "-tt" : "-ttt",
                    s->clock == 1 ? "-tt" : "-ttt");
    }
    if (clock == 1 && abs_ns + s->day_add + NS_PER_DAY / 2 < s->prev_abs)
        s->day_add += NS_PER_DAY; /* past midnight */
    abs_ns += s->day_add;
    if (abs_ns > s->prev_abs)
        s->prev_abs = abs_ns; /* lines of two processes may be out of order: never back */
    s->now_ns = s->prev_abs - s->t0_abs;
    while (*p == ' ')
        p++;
    *pp = p;
    return 0;
}

static int is_name(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '?')
            return 0;
    return n > 0;
}

static int line(st *s, char *p, rs_err *err)
{
    int64_t pid = -1;
    uint32_t pi;
    int rc;

    if (!strncmp(p, "strace: ", 8) || !strncmp(p, "[ Process PID=", 14))
        return 0; /* strace's own notes */
    if (!strncmp(p, "[pid", 4)) {
        for (p += 4; *p == ' '; p++)
            ;
        if (!isdigit((unsigned char)*p))
            return fail(s, err, "pid: expected a number after '[pid'");
        for (pid = 0; isdigit((unsigned char)*p) && pid < 1000000000; p++)
            pid = pid * 10 + (*p - '0');
        if (*p != ']')
            return fail(s, err, "pid: expected ']' after the number");
        for (p++; *p == ' '; p++)
            ;
    } else if (isdigit((unsigned char)*p)) {
        char *q = p;
        int64_t v = 0;
        for (; isdigit((unsigned char)*q) && v < 1000000000; q++)
            v = v * 10 + (*q - '0');
        if (*q == ' ') {
            pid = v;
            for (p = q; *p == ' '; p++)
                ;
        }
    }
    if ((rc = timestamp(s, &p, err)))
        return rc;
    size_t n = strlen(p);
    while (n && p[n - 1] == ' ')
        p[--n] = '\0';
    if (!strncmp(p, "--- ", 4)) { /* a signal */
        if (n < 8 || strcmp(p + n - 4, " ---"))
            return fail(s, err, "signal: expected '--- ... ---'");
        return 0;
    }
    if (!strncmp(p, "+++ ", 4)) { /* the process ended */
        if (n < 8 || strcmp(p + n - 4, " +++"))
            return fail(s, err, "process end: expected '+++ exited with N +++' or '+++ killed by ... +++'");
        pi = pid_find(s, pid);
        return pi == NONE ? 0 : proc_end(s, pi, err);
    }
    static const char unfinished[] = "<unfinished ...>";
    int resumed = !strncmp(p, "<... ", 5);
    char *name = p + 5, *r = resumed ? strstr(name, " resumed>") : NULL;
    if (resumed && (!r || !is_name(name, (size_t)(r - name))))
        return fail(s, err, "resumed call: expected '<... NAME resumed>'");
    if ((rc = proc_get(s, pid, resumed ? name : NULL, resumed ? (size_t)(r - name) : 0, &pi, err)))
        return rc;
    proc *x = &s->procs[pi];
    if (resumed) {
        size_t nl = (size_t)(r - name);
        if (!x->pend)
            return fail(s, err, "resumed call: '%.*s' resumed but pid %lld has no unfinished call",
                        (int)nl, name, (long long)pid);
        if (strncmp(x->pend, name, nl) || x->pend[nl] != '(')
            return fail(s, err, "resumed call: '%.*s' resumed but pid %lld's unfinished call (line "
                        "%llu) is '%.*s'", (int)nl, name, (long long)pid,
                        (unsigned long long)x->pend_line, (int)strcspn(x->pend, "("), x->pend);
        char *rest = r + 9;
        size_t pl = strlen(x->pend), rl = strlen(rest);
        if (pl + rl + 1 > RS_STRACE_MAX_LINE)
            return fail(s, err, "resumed call: the joined call is longer than %d bytes", RS_STRACE_MAX_LINE);
        if (!s->joinbuf && !(s->joinbuf = malloc(2 * RS_STRACE_MAX_LINE)))
            return oom(err); /* made at the first resumed call: 128 KiB */
        memcpy(s->joinbuf, x->pend, pl);
        memcpy(s->joinbuf + pl, rest, rl + 1);
        free(x->pend);
        x->pend = NULL;
        if (strstr(rest, unfinished))
            return 0; /* the process ended inside the call */
        return handle(s, pi, s->joinbuf, err);
    }
    size_t nl = strcspn(p, "(");
    if (!p[nl] || !is_name(p, nl))
        return fail(s, err, "syscall: expected 'NAME(', '<... NAME resumed>', '+++ ... +++' or "
                    "'--- ... ---' after the timestamp");
    if (n >= sizeof unfinished - 1 && !strcmp(p + n - (sizeof unfinished - 1), unfinished)) {
        if (x->pend)
            return fail(s, err, "syscall: pid %lld starts '%.*s' while '%.*s' (line %llu) is unfinished",
                        (long long)pid, (int)nl, p, (int)strcspn(x->pend, "("), x->pend,
                        (unsigned long long)x->pend_line);
        size_t keep = n - (sizeof unfinished - 1);
        if (keep && p[keep - 1] == ' ')
            keep--;
        if (!(x->pend = malloc(keep + 1)))
            return oom(err);
        memcpy(x->pend, p, keep);
        x->pend[keep] = '\0';
        x->pend_line = s->line;
        return 0;
    }
    return handle(s, pi, p, err);
}

static int first_cwd(const char *path, char *buf, size_t cap, rs_err *err)
{
    gzFile gz = gzopen(path, "rb");
    int found = 0;
    if (!gz)
        return rs_fail(err, RS_EIO, "cannot open '%s': %s", path, strerror(errno));
    while (!found && gzgets(gz, buf, (int)cap)) {
        char *a = strstr(buf, "AT_FDCWD</"), *e;
        if (a && (e = strchr(a + 9, '>'))) {
            memmove(buf, a + 9, (size_t)(e - a - 9));
            buf[e - a - 9] = '\0';
            found = 1;
        }
    }
    gzclose(gz);
    if (!found)
        buf[0] = '\0';
    return 0;
}

static int import_strace(const char *in_path, const rs_import_opts *opts, rs_trace_writer *w,
                         rs_import_stats *r_stats, rs_err *err)
{
    st s = { .opts = opts, .path = in_path, .w = w, .stats = r_stats, .next_ino = ROOT_INO + 1,
             .next_client = 1, .free_ofd = NONE, .free_tab = NONE, .placeholder = NONE,
             .cwd0 = NONE };
    char *buf = malloc(RS_STRACE_MAX_LINE);
    gzFile gz = NULL;
    int rc = 0;

    memset(r_stats, 0, sizeof *r_stats);
    s.pathbuf = malloc(RS_STRACE_MAX_LINE);
    s.n_pid_slots = PID_SLOTS_FIRST;
    s.pid_slots = calloc(s.n_pid_slots, sizeof *s.pid_slots);
    s.n_slots = 1024;
    s.slots = calloc(s.n_slots, sizeof *s.slots);
    if (!buf || !s.pathbuf || !s.pid_slots || !s.slots ||
        grow((void **)&s.nodes, &s.cap_nodes, 1, sizeof *s.nodes)) {
        rc = oom(err);
        goto out;
    }
    s.nodes[0] = (node){ .parent = NONE, .dir = 1 };
    s.n_nodes = 1;
    if (opts->clients > RS_STRACE_MAX_CLIENTS) {
        rc = rs_fail(err, RS_EINPUT, "--clients %u: at most %u", opts->clients, RS_STRACE_MAX_CLIENTS);
        goto out;
    }
    const char *cwd = opts->cwd;
    errno = 0;
    if (!cwd) {
        if ((rc = first_cwd(in_path, buf, RS_STRACE_MAX_LINE, err)))
            goto out;
        cwd = buf[0] == '/' ? buf : NULL;
    }
    if ((cwd && cwd[0] != '/') || (opts->root && opts->root[0] != '/')) {
        rc = rs_fail(err, RS_EINPUT, "--%s '%s' is not an absolute path", cwd && cwd[0] != '/' ? "cwd" : "root",
                     cwd && cwd[0] != '/' ? cwd : opts->root);
        goto out;
    }
    if (cwd && (rc = walk(&s, FSROOT, cwd, strlen(cwd), &s.cwd0, err)))
        goto out;
    if (!opts->root && !cwd) {
        rc = rs_fail(err, RS_EINPUT, "%s: no --root, and the trace never shows a cwd (record with "
                     "strace -y, or pass --root or --cwd)", in_path);
        goto out;
    }
    s.root = s.cwd0;
    if (opts->root && (rc = walk(&s, FSROOT, opts->root, strlen(opts->root), &s.root, err)))
        goto out;
    s.nodes[s.root].ino = ROOT_INO;
    s.nodes[s.root].dir = 1;
    if (!(gz = gzopen(in_path, "rb"))) {
        rc = rs_fail(err, RS_EIO, "cannot open '%s': %s", in_path, strerror(errno));
        goto out;
    }
    while (gzgets(gz, buf, RS_STRACE_MAX_LINE)) {
        size_t n = strlen(buf);
        int zerr = Z_OK;
        s.line++;
        if (n && buf[n - 1] == '\n') {
            buf[--n] = '\0';
        } else if (gzerror(gz, &zerr), zerr != Z_OK && zerr != Z_STREAM_END) {
            rc = fail(&s, err, "corrupt or truncated gzip stream: %s", gzerror(gz, &zerr));
            break;
        } else if (n == RS_STRACE_MAX_LINE - 1 && !gzeof(gz)) {
            rc = fail(&s, err, "line too long (more than %d bytes, RS_STRACE_MAX_LINE)",
                      RS_STRACE_MAX_LINE - 1);
            break;
        }
        if (n && buf[n - 1] == '\r')
            buf[--n] = '\0';
        if (!n)
            continue;
        if ((rc = line(&s, buf, err)))
            break;
    }
    if (!rc) {
        int zerr = Z_OK;
        const char *m = gzerror(gz, &zerr);
        if (zerr != Z_OK && zerr != Z_STREAM_END)
            rc = rs_fail(err, RS_EINPUT, "%s:%llu: corrupt or truncated gzip stream: %s", in_path,
                         (unsigned long long)s.line + 1, m);
    }
    for (uint32_t p = 0; !rc && p < s.n_procs; p++)
        if (s.procs[p].used && s.procs[p].pend) {
            s.line = s.procs[p].pend_line;
            rc = fail(&s, err, "syscall: '%.*s' of pid %lld is <unfinished ...> and never resumed",
                      (int)strcspn(s.procs[p].pend, "("), s.procs[p].pend, (long long)s.procs[p].pid);
        }
    for (uint32_t p = 0; !rc && p < s.n_procs; p++) /* processes still running: their files close */
        if (s.procs[p].used)
            rc = proc_end(&s, p, err);
    if (!rc && r_stats->records == 0)
        rc = rs_fail(err, RS_EINPUT, "%s:%llu: no file system call under the root '%s'", in_path,
                     (unsigned long long)s.line + (s.line == 0), opts->root ? opts->root : cwd);
out:
    if (gz)
        gzclose(gz);
    r_stats->lines = s.line;
    for (uint32_t p = 0; p < s.n_procs; p++)
        free(s.procs[p].pend);
    for (uint32_t t = 0; t < s.n_tabs; t++)
        if (s.tabs[t].refs) {
            free(s.tabs[t].ofd);
            free(s.tabs[t].cloexec);
        }
    free(s.tabs);
    free(s.procs);
    free(s.ofds);
    free(s.nodes);
    free(s.names);
    free(s.slots);
    free(s.pid_slots);
    free(s.pathbuf);
    free(s.joinbuf);
    free(buf);
    return rc;
}

const rs_trace_codec_ops rs_trace_codec_strace = {
    .name = "strace",
    .doc = "import only: strace -f -tt[t] [-y] output of any program, the file system calls "
           "under --root as mds ops",
    .import_file = import_strace,
    .import_daemon = "mds",
    .import_opts = RS_IMPORT_OPT_ROOT | RS_IMPORT_OPT_CLIENTS,
    .example = "100 10:00:00.000000 openat(AT_FDCWD</w>, \"a.c\", O_RDONLY) = 3</w/a.c>\n"
               "100 10:00:00.000100 close(3</w/a.c>) = 0\n"
               "100 10:00:00.000200 openat(AT_FDCWD</w>, \"a.o\", O_WRONLY|O_CREAT|O_TRUNC, 0666) "
               "= 4</w/a.o>\n"
               "100 10:00:00.000300 close(4</w/a.o>) = 0\n"
               "100 10:00:00.000400 +++ exited with 0 +++\n",
};
