/*
 * stream.c — plain, gzip and zstd byte sources and sinks; see stream.h.
 *
 * Each compression is one source ops table and one sink ops table.  Sources
 * decompress into the caller's buffer (the trace reader's 1 MiB buffer), so
 * no extra copy is made for plain files: read(2) lands in the reader's
 * buffer directly.  A compressed stream must end cleanly: a stream cut short
 * is "truncated", bytes after the last gzip member or zstd frame that do not
 * start another one are "trailing garbage".
 *
 * A plain stream can also be read in place (rs_src_view): a memory source
 * as it is, a regular file through a read-only mapping, so the trace reader
 * decodes straight from the page cache without read(2)'s copy.
 */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

enum { GZ_IN_BYTES = 64 * 1024, GZ_OUT_BYTES = 64 * 1024 };

static void view_close(rs_view *v);

/* ---- raw bytes: fd or memory, with the detection bytes replayed ------- */

/* The bytes after the detection bytes: from the fd or the memory block. */
static int raw_read_direct(rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    if (raw->fd < 0) {
        size_t n = raw->mem_len - raw->mem_pos;
        if (n > cap)
            n = cap;
        if (n)
            memcpy(buf, raw->mem + raw->mem_pos, n);
        raw->mem_pos += n;
        *r_n = n;
        return 0;
    }
    for (;;) {
        ssize_t got = read(raw->fd, buf, cap);
        if (got >= 0) {
            *r_n = (size_t)got;
            return 0;
        }
        if (errno != EINTR)
            return rs_fail(err, RS_EIO, "read error: %s", strerror(errno));
    }
}

static int raw_read(rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    if (raw->peek_pos < raw->peek_len) {
        size_t n = raw->peek_len - raw->peek_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, raw->peek + raw->peek_pos, n);
        raw->peek_pos += n;
        *r_n = n;
        return 0;
    }
    return raw_read_direct(raw, buf, cap, r_n, err);
}

/* Fill raw->peek with up to sizeof peek bytes (fewer only at the end). */
static int raw_peek(rs_raw *raw, rs_err *err)
{
    raw->peek_len = raw->peek_pos = 0;
    while (raw->peek_len < sizeof raw->peek) {
        size_t n;
        int rc = raw_read_direct(raw, raw->peek + raw->peek_len,
                                 sizeof raw->peek - raw->peek_len, &n, err);
        if (rc)
            return rc;
        if (n == 0)
            break;
        raw->peek_len += n;
    }
    return 0;
}

/* ---- plain ----------------------------------------------------------- */

static int plain_open(void **r_state, rs_raw *raw, rs_err *err)
{
    (void)raw;
    (void)err;
    *r_state = NULL;
    return 0;
}

static int plain_read(void *state, rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    (void)state;
    return raw_read(raw, buf, cap, r_n, err);
}

static void plain_close(void *state)
{
    (void)state;
}

static const rs_src_ops src_plain = {
    .name = "none",
    .open = plain_open,
    .read = plain_read,
    .close = plain_close,
};

/* ---- gzip source ------------------------------------------------------ */

typedef struct gz_src {
    z_stream zs;
    int in_eof;      /* raw input exhausted */
    int member_done; /* the current member ended (Z_STREAM_END) */
    int failed;      /* sticky error code, reported once the good bytes are read */
    rs_err err;
    uint8_t in[GZ_IN_BYTES];
} gz_src;

static int gz_src_open(void **r_state, rs_raw *raw, rs_err *err)
{
    (void)raw;
    gz_src *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for a gzip stream");
    if (inflateInit2(&st->zs, 16 + MAX_WBITS) != Z_OK) {
        free(st);
        return rs_fail(err, RS_ENOMEM, "cannot start a gzip decoder");
    }
    *r_state = st;
    return 0;
}

/* Make at least want bytes of input available unless the input ends. */
static int gz_src_fill(gz_src *st, rs_raw *raw, size_t want, rs_err *err)
{
    while (st->zs.avail_in < want && !st->in_eof) {
        size_t have = st->zs.avail_in, n;
        memmove(st->in, st->zs.next_in ? st->zs.next_in : st->in, have);
        int rc = raw_read(raw, st->in + have, sizeof st->in - have, &n, err);
        if (rc)
            return rc;
        if (n == 0)
            st->in_eof = 1;
        st->zs.next_in = st->in;
        st->zs.avail_in = (uInt)(have + n);
    }
    return 0;
}

/* Decompress into zs.next_out/avail_out until something is produced or
 * the stream ends; on error, what was produced before it is still there. */
static int gz_src_run(gz_src *st, rs_raw *raw, size_t cap, rs_err *err)
{
    int rc;

    for (;;) {
        if ((rc = gz_src_fill(st, raw, 1, err)))
            return rc;
        if (st->member_done) {
            if (st->zs.avail_in == 0)
                break; /* clean end after the last member */
            if ((rc = gz_src_fill(st, raw, 2, err)))
                return rc;
            if (st->zs.avail_in < 2 || st->zs.next_in[0] != 0x1f || st->zs.next_in[1] != 0x8b)
                return rs_fail(err, RS_EINPUT, "trailing garbage after the gzip stream");
            if (inflateReset(&st->zs) != Z_OK)
                return rs_fail(err, RS_EINTERNAL, "cannot restart the gzip decoder");
            st->member_done = 0;
        }
        int zr = inflate(&st->zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            st->member_done = 1;
        } else if (zr == Z_BUF_ERROR) {
            /* No progress: input and output were both available unless the
             * input has ended inside a member. */
            if (st->zs.avail_in == 0 && st->in_eof)
                return rs_fail(err, RS_EINPUT, "truncated gzip stream");
            return rs_fail(err, RS_EINPUT, "corrupt gzip stream: no progress");
        } else if (zr != Z_OK) {
            return rs_fail(err, zr == Z_MEM_ERROR ? RS_ENOMEM : RS_EINPUT,
                           "corrupt gzip stream: %s", st->zs.msg ? st->zs.msg : "inflate failed");
        }
        if (st->zs.avail_out < cap)
            return 0; /* produced something */
    }
    return 0;
}

/* Sticky, deferred errors: bytes decoded before an error are delivered
 * first and the error comes with the next read, so the reader reports it
 * at the line where the good bytes end, whatever its buffer size. */
static int sticky(int *failed, rs_err *saved, int rc, size_t produced, size_t *r_n, rs_err *err)
{
    if (rc && !*failed)
        *failed = rc;
    if (*failed && produced == 0) {
        if (err)
            *err = *saved;
        return *failed;
    }
    *r_n = produced;
    return 0;
}

static int gz_src_read(void *state, rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    gz_src *st = state;
    int rc = 0;

    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    st->zs.next_out = buf;
    st->zs.avail_out = (uInt)cap;
    if (!st->failed)
        rc = gz_src_run(st, raw, cap, &st->err);
    return sticky(&st->failed, &st->err, rc, cap - st->zs.avail_out, r_n, err);
}

static void gz_src_close(void *state)
{
    gz_src *st = state;
    if (st) {
        inflateEnd(&st->zs);
        free(st);
    }
}

static const rs_src_ops src_gzip = {
    .name = "gzip",
    .open = gz_src_open,
    .read = gz_src_read,
    .close = gz_src_close,
};

/* ---- zstd source ------------------------------------------------------ */

typedef struct zst_src {
    ZSTD_DStream *ds;
    ZSTD_inBuffer ib;
    int in_eof;
    int frame_open; /* inside a frame: the input may not end here */
    int failed;     /* sticky error code, as gz_src */
    rs_err err;
    size_t in_cap;
    uint8_t *in;
} zst_src;

static void zst_src_close(void *state)
{
    zst_src *st = state;
    if (st) {
        ZSTD_freeDStream(st->ds);
        free(st->in);
        free(st);
    }
}

static int zst_src_open(void **r_state, rs_raw *raw, rs_err *err)
{
    (void)raw;
    zst_src *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for a zstd stream");
    st->in_cap = ZSTD_DStreamInSize();
    st->in = malloc(st->in_cap);
    st->ds = ZSTD_createDStream();
    if (!st->in || !st->ds || ZSTD_isError(ZSTD_initDStream(st->ds))) {
        zst_src_close(st);
        return rs_fail(err, RS_ENOMEM, "cannot start a zstd decoder");
    }
    st->ib.src = st->in;
    st->frame_open = 1; /* the magic was seen: a frame must follow */
    *r_state = st;
    return 0;
}

static int zst_src_run(zst_src *st, rs_raw *raw, ZSTD_outBuffer *r_ob, rs_err *err)
{
    ZSTD_outBuffer ob = *r_ob;
    int rc = 0;

    for (;;) {
        if (st->ib.pos == st->ib.size && !st->in_eof) {
            size_t n;
            if ((rc = raw_read(raw, st->in, st->in_cap, &n, err)))
                break;
            st->ib.size = n;
            st->ib.pos = 0;
            if (n == 0)
                st->in_eof = 1;
        }
        int at_eof = st->ib.pos == st->ib.size && st->in_eof;
        if (at_eof && !st->frame_open)
            break; /* clean end after the last frame */
        int was_open = st->frame_open;
        size_t ret = ZSTD_decompressStream(st->ds, &ob, &st->ib);
        if (ZSTD_isError(ret)) {
            if (!was_open && ZSTD_getErrorCode(ret) == ZSTD_error_prefix_unknown)
                rc = rs_fail(err, RS_EINPUT, "trailing garbage after the zstd stream");
            else
                rc = rs_fail(err, ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation
                                      ? RS_ENOMEM : RS_EINPUT,
                             "corrupt zstd stream: %s", ZSTD_getErrorName(ret));
            break;
        }
        st->frame_open = ret != 0;
        if (ob.pos > 0)
            break;
        if (at_eof && st->frame_open) {
            rc = rs_fail(err, RS_EINPUT, "truncated zstd stream");
            break;
        }
    }
    *r_ob = ob;
    return rc;
}

static int zst_src_read(void *state, rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    zst_src *st = state;
    ZSTD_outBuffer ob = { .dst = buf, .size = cap, .pos = 0 };
    int rc = 0;

    if (!st->failed)
        rc = zst_src_run(st, raw, &ob, &st->err);
    return sticky(&st->failed, &st->err, rc, ob.pos, r_n, err);
}

static const rs_src_ops src_zstd = {
    .name = "zstd",
    .open = zst_src_open,
    .read = zst_src_read,
    .close = zst_src_close,
};

/* ---- source detection ------------------------------------------------ */

static int src_start(rs_src *src, rs_err *err)
{
    const uint8_t *p = src->raw.peek;
    size_t n;
    int rc = raw_peek(&src->raw, err);
    if (rc)
        return rc;
    n = src->raw.peek_len;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        src->ops = &src_gzip;
    else if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
        src->ops = &src_zstd;
    else
        src->ops = &src_plain;
    return src->ops->open(&src->state, &src->raw, err);
}

int rs_src_open_file(rs_src *r_src, const char *path, rs_err *err)
{
    memset(r_src, 0, sizeof *r_src);
    r_src->raw.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r_src->raw.fd < 0) /* a path that names nothing is bad input, not an I/O fault */
        return rs_fail(err, errno == ENOENT || errno == ENOTDIR ? RS_EINPUT : RS_EIO,
                       "cannot open '%s': %s", path, strerror(errno));
    r_src->own_fd = 1;
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(r_src->raw.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    int rc = src_start(r_src, err);
    if (rc) {
        close(r_src->raw.fd);
        memset(r_src, 0, sizeof *r_src);
        r_src->raw.fd = -1;
        return rs_err_prefix(err, "%s", path);
    }
    return 0;
}

int rs_src_open_mem(rs_src *r_src, const void *data, size_t len, rs_err *err)
{
    memset(r_src, 0, sizeof *r_src);
    r_src->raw.fd = -1;
    r_src->raw.mem = data;
    r_src->raw.mem_len = len;
    return src_start(r_src, err);
}

void rs_src_close(rs_src *src)
{
    view_close(&src->view);
    if (src->ops)
        src->ops->close(src->state);
    if (src->own_fd && src->raw.fd >= 0)
        close(src->raw.fd);
    memset(src, 0, sizeof *src);
    src->raw.fd = -1;
}

/* ---- reading in place ------------------------------------------------ */

/* Consumed pages of a mapping are given back (MADV_DONTNEED) this many bytes
 * at a time, so a replay's resident set holds at most this much of its trace
 * however long the trace is. */
#define VIEW_DROP_BYTES ((size_t)8 << 20)
#define GUARD_SLOTS 64 /* traces mapped at once in one process; more are read(2) */

/* The SIGBUS guard.  Reading a page of a mapping past the end of its file
 * (the file was truncated after it was mapped) raises SIGBUS, whose default
 * kills the process with no word of which file.  A signal handler can find
 * its state only through static storage, so this table is the reader's one
 * piece of process-wide state: each mapped trace holds a slot with its
 * address range while it is open.  The handler maps zero pages over the rest
 * of the faulting trace's range (so the faulting load completes and reads
 * zeros, which no encoding accepts as a record: op 0 is no op) and marks the
 * slot; the reader then reports the truncation at its next check
 * (rs_src_view_check: at every window, on any error and at the end).  A
 * SIGBUS anywhere else goes to the handler that was there before. */
enum { SLOT_FREE = 0, SLOT_TAKEN = 1, SLOT_LIVE = 2 };
typedef struct guard_slot {
    atomic_int state;
    atomic_uintptr_t start, end;
    atomic_int faulted;
} guard_slot;

static guard_slot guard_slots[GUARD_SLOTS];
static struct sigaction guard_prev;
static uintptr_t guard_page_bytes;
static int guard_installed;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < GUARD_SLOTS; i++) {
        guard_slot *g = &guard_slots[i];
        if (atomic_load(&g->state) != SLOT_LIVE)
            continue;
        uintptr_t start = atomic_load(&g->start), end = atomic_load(&g->end);
        if (a < start || a >= end)
            continue;
        uintptr_t page = a & ~(guard_page_bytes - 1);
        if (mmap((void *)page, end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
            MAP_FAILED)
            break;
        atomic_store(&g->faulted, 1);
        return;
    }
    /* not a mapped trace's page: what would have happened without this handler */
    if ((guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_sigaction) {
        guard_prev.sa_sigaction(sig, si, uc);
        return;
    }
    if (!(guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_handler != SIG_DFL &&
        guard_prev.sa_handler != SIG_IGN) {
        guard_prev.sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL); /* the faulting load runs again and the default ends the process */
    if (si->si_code <= 0)
        raise(sig); /* sent, not a fault: deliver it again */
}

static void guard_install(void)
{
    struct sigaction sa;
    long page = sysconf(_SC_PAGESIZE);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    guard_page_bytes = page > 0 ? (uintptr_t)page : 4096;
    guard_installed = sigaction(SIGBUS, &sa, &guard_prev) == 0;
}

static int guard_take(void)
{
    for (int i = 0; i < GUARD_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&guard_slots[i].state, &expect, SLOT_TAKEN))
            return i;
    }
    return -1;
}

static long long ts_ns(struct timespec t)
{
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

int rs_src_view(rs_src *src, int map_files, const uint8_t **r_p, size_t *r_len, rs_err *err)
{
    rs_view *v = &src->view;
    struct stat sb;

    (void)err;
    if (v->p) {
        *r_p = v->p;
        *r_len = v->len;
        return 1;
    }
    if (src->ops != &src_plain)
        return 0;
    if (src->raw.fd < 0) {
        *v = (rs_view){ .p = src->raw.mem, .len = src->raw.mem_len, .guard = -1 };
        if (!v->p) /* an empty memory block */
            v->p = (const uint8_t *)"";
        *r_p = v->p;
        *r_len = v->len;
        return 1;
    }
    if (!map_files || fstat(src->raw.fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
        (unsigned long long)sb.st_size > SIZE_MAX / 2)
        return 0;
    pthread_once(&guard_once, guard_install);
    int slot = guard_installed ? guard_take() : -1;
    if (slot < 0)
        return 0;
    size_t len = (size_t)sb.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, src->raw.fd, 0);
    if (map == MAP_FAILED) {
        atomic_store(&guard_slots[slot].state, SLOT_FREE);
        return 0;
    }
    (void)madvise(map, len, MADV_SEQUENTIAL);
    guard_slot *g = &guard_slots[slot];
    atomic_store(&g->faulted, 0);
    atomic_store(&g->start, (uintptr_t)map);
    atomic_store(&g->end, (uintptr_t)map + len);
    atomic_store(&g->state, SLOT_LIVE);
    *v = (rs_view){ .p = map, .len = len, .map = map, .guard = slot,
                    .dev = (long long)sb.st_dev, .ino = (long long)sb.st_ino,
                    .size = (long long)sb.st_size, .mtime_ns = ts_ns(sb.st_mtim) };
    *r_p = v->p;
    *r_len = v->len;
    return 1;
}

int rs_src_view_check(rs_src *src, rs_err *err)
{
    const rs_view *v = &src->view;
    struct stat sb;

    if (!v->map)
        return 0;
    if (v->guard >= 0 && atomic_load(&guard_slots[v->guard].faulted))
        return rs_fail(err, RS_EINPUT, "the file was truncated while it was being read "
                       "(it had %lld bytes when the replay started)", v->size);
    if (fstat(src->raw.fd, &sb) != 0)
        return rs_fail(err, RS_EIO, "cannot stat the file being read: %s", strerror(errno));
    if ((long long)sb.st_size != v->size || ts_ns(sb.st_mtim) != v->mtime_ns)
        return rs_fail(err, RS_EINPUT, "the file changed while it was being read (%lld bytes "
                       "when the replay started, %lld now%s)", v->size, (long long)sb.st_size,
                       (long long)sb.st_size == v->size ? ", modified" : "");
    return 0;
}

int rs_src_view_advance(rs_src *src, size_t consumed, rs_err *err)
{
    rs_view *v = &src->view;

    if (!v->map)
        return 0;
    if (consumed > v->len)
        consumed = v->len;
    if (consumed - v->dropped >= VIEW_DROP_BYTES) {
        size_t to = consumed & ~(size_t)(guard_page_bytes - 1);
        (void)madvise((uint8_t *)v->map + v->dropped, to - v->dropped, MADV_DONTNEED);
        v->dropped = to;
    }
    return rs_src_view_check(src, err);
}

static void view_close(rs_view *v)
{
    if (v->map) {
        if (v->guard >= 0)
            atomic_store(&guard_slots[v->guard].state, SLOT_TAKEN); /* the handler lets go first */
        munmap(v->map, v->len);
        if (v->guard >= 0)
            atomic_store(&guard_slots[v->guard].state, SLOT_FREE);
    }
    memset(v, 0, sizeof *v);
    v->guard = -1;
}

/* ---- sinks ------------------------------------------------------------ */

int rs_fd_write_all(int fd, const void *buf, size_t n, rs_err *err)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return rs_fail(err, RS_EIO, "write error: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int plain_sink_open(void **r_state, rs_err *err)
{
    (void)err;
    *r_state = NULL;
    return 0;
}

static int plain_sink_write(void *state, int fd, const uint8_t *buf, size_t n, rs_err *err)
{
    (void)state;
    return rs_fd_write_all(fd, buf, n, err);
}

static int plain_sink_finish(void *state, int fd, rs_err *err)
{
    (void)state;
    (void)fd;
    (void)err;
    return 0;
}

static const rs_sink_ops sink_plain = {
    .name = "none",
    .suffix = NULL,
    .open = plain_sink_open,
    .write = plain_sink_write,
    .finish = plain_sink_finish,
    .close = plain_close,
};

typedef struct gz_sink {
    z_stream zs;
    uint8_t out[GZ_OUT_BYTES];
} gz_sink;

static int gz_sink_open(void **r_state, rs_err *err)
{
    gz_sink *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for a gzip stream");
    /* Level 6 is gzip's default; zlib writes mtime 0, so output is reproducible. */
    if (deflateInit2(&st->zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(st);
        return rs_fail(err, RS_ENOMEM, "cannot start a gzip encoder");
    }
    *r_state = st;
    return 0;
}

static int gz_sink_run(gz_sink *st, int fd, int flush, rs_err *err)
{
    for (;;) {
        st->zs.next_out = st->out;
        st->zs.avail_out = sizeof st->out;
        int zr = deflate(&st->zs, flush);
        if (zr == Z_STREAM_ERROR)
            return rs_fail(err, RS_EINTERNAL, "gzip encoder failed");
        size_t have = sizeof st->out - st->zs.avail_out;
        int rc = rs_fd_write_all(fd, st->out, have, err);
        if (rc)
            return rc;
        if (flush == Z_FINISH ? zr == Z_STREAM_END : st->zs.avail_in == 0 && st->zs.avail_out != 0)
            return 0;
    }
}

static int gz_sink_write(void *state, int fd, const uint8_t *buf, size_t n, rs_err *err)
{
    gz_sink *st = state;
    while (n) {
        uInt chunk = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
        st->zs.next_in = (Bytef *)(uintptr_t)buf;
        st->zs.avail_in = chunk;
        int rc = gz_sink_run(st, fd, Z_NO_FLUSH, err);
        if (rc)
            return rc;
        buf += chunk;
        n -= chunk;
    }
    return 0;
}

static int gz_sink_finish(void *state, int fd, rs_err *err)
{
    gz_sink *st = state;
    st->zs.next_in = NULL;
    st->zs.avail_in = 0;
    return gz_sink_run(st, fd, Z_FINISH, err);
}

static void gz_sink_close(void *state)
{
    gz_sink *st = state;
    if (st) {
        deflateEnd(&st->zs);
        free(st);
    }
}

static const rs_sink_ops sink_gzip = {
    .name = "gzip",
    .suffix = ".gz",
    .open = gz_sink_open,
    .write = gz_sink_write,
    .finish = gz_sink_finish,
    .close = gz_sink_close,
};

typedef struct zst_sink {
    ZSTD_CCtx *cc;
    size_t out_cap;
    uint8_t *out;
} zst_sink;

static void zst_sink_close(void *state)
{
    zst_sink *st = state;
    if (st) {
        ZSTD_freeCCtx(st->cc);
        free(st->out);
        free(st);
    }
}

static int zst_sink_open(void **r_state, rs_err *err)
{
    zst_sink *st = calloc(1, sizeof *st);
    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory for a zstd stream");
    st->out_cap = ZSTD_CStreamOutSize();
    st->out = malloc(st->out_cap);
    st->cc = ZSTD_createCCtx();
    /* Level 3 is zstd's default; a content checksum catches corruption. */
    if (!st->out || !st->cc ||
        ZSTD_isError(ZSTD_CCtx_setParameter(st->cc, ZSTD_c_compressionLevel, 3)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(st->cc, ZSTD_c_checksumFlag, 1))) {
        zst_sink_close(st);
        return rs_fail(err, RS_ENOMEM, "cannot start a zstd encoder");
    }
    *r_state = st;
    return 0;
}

static int zst_sink_run(zst_sink *st, int fd, const uint8_t *buf, size_t n,
                        ZSTD_EndDirective mode, rs_err *err)
{
    ZSTD_inBuffer ib = { .src = buf, .size = n, .pos = 0 };
    for (;;) {
        ZSTD_outBuffer ob = { .dst = st->out, .size = st->out_cap, .pos = 0 };
        size_t left = ZSTD_compressStream2(st->cc, &ob, &ib, mode);
        if (ZSTD_isError(left))
            return rs_fail(err, RS_EINTERNAL, "zstd encoder failed: %s", ZSTD_getErrorName(left));
        int rc = rs_fd_write_all(fd, st->out, ob.pos, err);
        if (rc)
            return rc;
        if (mode == ZSTD_e_end ? left == 0 : ib.pos == ib.size)
            return 0;
    }
}

static int zst_sink_write(void *state, int fd, const uint8_t *buf, size_t n, rs_err *err)
{
    return zst_sink_run(state, fd, buf, n, ZSTD_e_continue, err);
}

static int zst_sink_finish(void *state, int fd, rs_err *err)
{
    return zst_sink_run(state, fd, NULL, 0, ZSTD_e_end, err);
}

static const rs_sink_ops sink_zstd = {
    .name = "zstd",
    .suffix = ".zst",
    .open = zst_sink_open,
    .write = zst_sink_write,
    .finish = zst_sink_finish,
    .close = zst_sink_close,
};

static const rs_sink_ops *const sinks[] = { &sink_gzip, &sink_zstd };

const rs_sink_ops *rs_sink_for_name(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++) {
        size_t k = strlen(sinks[i]->suffix);
        if (n > k && strcmp(path + n - k, sinks[i]->suffix) == 0)
            return sinks[i];
    }
    return &sink_plain;
}

int rs_sink_open(rs_sink *r_sink, const rs_sink_ops *ops, int fd, rs_err *err)
{
    r_sink->ops = ops;
    r_sink->fd = fd;
    r_sink->state = NULL;
    return ops->open(&r_sink->state, err);
}

void rs_sink_close(rs_sink *s)
{
    if (s->ops)
        s->ops->close(s->state);
    s->ops = NULL;
    s->state = NULL;
}
