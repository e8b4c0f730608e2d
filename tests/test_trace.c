/*
 * test_trace.c — the trace reader and writer: round trips through every
 * encoding and compression, tiny reader buffers (records and lines split
 * across refills), every validation rule with its exact message, the
 * writer's tmp-then-rename contract, summaries, and SHA-256 against the
 * FIPS 180-2 / NIST example vectors.  Files go to a fresh folder under
 * $TMPDIR (or /tmp), removed at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "check.h"
#include "scratch.h"
#include "traces/format.h"
#include "traces/trace.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(data, 1, n, f) == n);
    fclose(f);
}

static uint8_t *read_file(const char *path, size_t *r_n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    size_t n = 0, cap = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            p = realloc(p, cap);
        }
        size_t got = fread(p + n, 1, cap - n, f);
        if (!got)
            break;
        n += got;
    }
    fclose(f);
    *r_n = n;
    return p;
}

/* A deterministic kv record stream exercising every field's range. */
static rs_rec sample_rec(uint64_t i)
{
    static const uint8_t ops_kv[3] = { RS_OP_GET, RS_OP_SET, RS_OP_DEL };
    rs_rec r = { 0 };
    r.t_ns = i * 1000 + (i % 7 == 0 ? 0 : 3);
    r.op = ops_kv[i % 3];
    r.key = i % 5 == 0 ? UINT64_MAX - i : i * 2654435761u;
    /* a kv value is at most RS_REC_VALUE_MAX_BYTES; a DEL's size (ignored)
     * may be anything, so the field's whole range still round-trips */
    r.size_bytes = r.op == RS_OP_DEL ? (i % 11 == 0 ? UINT64_MAX : 0)
                                     : (i % 11 == 0 ? RS_REC_VALUE_MAX_BYTES : 1 + i % 9000);
    r.thread = (uint16_t)(i % 13 == 0 ? 65535 : i % 4);
    r.aux = i % 17 == 0 ? UINT32_MAX : (uint32_t)i;
    return r;
}

static int rec_eq(const rs_rec *a, const rs_rec *b)
{
    return a->t_ns == b->t_ns && a->key == b->key && a->size_bytes == b->size_bytes &&
           a->aux == b->aux && a->thread == b->thread && a->op == b->op && a->flags == b->flags;
}

static void write_sample(const char *path, const char *format, uint64_t n)
{
    rs_err err = { 0 };
    rs_trace_writer *w;
    int rc = rs_trace_writer_open(&w, path, format, "kv", &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc)
        return;
    for (uint64_t i = 0; i < n; i++) {
        rs_rec r = sample_rec(i);
        rc = rs_trace_write(w, &r, &err);
        if (rc) {
            CHECK_MSG(rc == 0, "%s", err.msg);
            rs_trace_writer_abort(w);
            return;
        }
    }
    CHECK_MSG(rs_trace_writer_close(w, &err) == 0, "%s", err.msg);
}

/* Read all of tr, checking records against sample_rec; returns the count. */
static uint64_t read_check(rs_trace *tr, uint64_t n_expected)
{
    rs_err err = { 0 };
    rs_rec r;
    uint64_t n = 0;
    int rc, bad = 0;
    while ((rc = rs_trace_next(tr, &r, &err)) == 1) {
        rs_rec want = sample_rec(n);
        if (!rec_eq(&r, &want) && !bad++)
            CHECK_MSG(0, "record %llu differs", (unsigned long long)n);
        n++;
    }
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_EQ_U64(n, n_expected);
    return n;
}

static void test_names(void)
{
    CHECK(strcmp(rs_op_name(RS_OP_GET), "GET") == 0);
    CHECK(strcmp(rs_op_name(RS_OP_FREE), "FREE") == 0);
    CHECK(rs_op_name(0) == NULL && rs_op_name(6) == NULL && rs_op_name(300) == NULL);
    CHECK(rs_op_parse("SET", 3) == RS_OP_SET);
    CHECK(rs_op_parse("MALLOCX", 6) == RS_OP_MALLOC);
    CHECK(rs_op_parse("get", 3) == -1);
    CHECK(rs_op_parse("", 0) == -1);
    CHECK(rs_trace_daemon_id("kv") == 1 && rs_trace_daemon_id("alloc") == 2);
    CHECK(rs_trace_daemon_id("mds") == 3 && rs_trace_daemon_id("osd") == 4);
    CHECK(rs_trace_daemon_id("rgw") == -1);
    CHECK(strcmp(rs_trace_daemon_name(4), "osd") == 0);
    CHECK(rs_trace_daemon_name(0) == NULL && rs_trace_daemon_name(5) == NULL);
}

static void test_round_trips(void)
{
    static const char *const names[] = { "rt.tsv", "rt.tsv.gz", "rt.tsv.zst",
                                         "rt.bin", "rt.bin.gz", "rt.bin.zst" };
    static const char *const comp[] = { "none", "gzip", "zstd" };
    const uint64_t n = 70000; /* > 1 MiB as text and binary: several refills */

    for (int i = 0; i < 6; i++) {
        const char *fmt = i < 3 ? "text" : "binary";
        const char *p = path_in(names[i]);
        rs_err err = { 0 };
        rs_trace *tr;
        write_sample(p, fmt, n);
        CHECK(!exists(path_in(i < 3 ? "rt.tsv.tmp" : "rt.bin.tmp")));
        int rc = rs_trace_open(&tr, p, &err);
        CHECK_MSG(rc == 0, "%s: %s", names[i], err.msg);
        if (rc)
            continue;
        CHECK(strcmp(rs_trace_format(tr), fmt) == 0);
        CHECK(strcmp(rs_trace_compression(tr), comp[i % 3]) == 0);
        CHECK(strcmp(rs_trace_daemon(tr), "kv") == 0);
        read_check(tr, n);
        rs_trace_close(tr);

        /* the same bytes through tiny buffers: every record and line split */
        size_t len;
        uint8_t *data = read_file(p, &len);
        CHECK(data != NULL);
        for (size_t buf = 97; data && buf <= 130; buf += 33) { /* > longest line */
            rc = rs_trace_open_mem(&tr, data, len, names[i], buf, &err);
            CHECK_MSG(rc == 0, "%s", err.msg);
            if (!rc) {
                read_check(tr, n);
                rs_trace_close(tr);
            }
        }
        free(data);
    }
    /* deterministic encodings: the same records give the same bytes */
    write_sample(path_in("rt2.bin.zst"), "binary", n);
    write_sample(path_in("rt2.tsv.gz"), "text", n);
    size_t a_n, b_n;
    uint8_t *a = read_file(path_in("rt.bin.zst"), &a_n), *b = read_file(path_in("rt2.bin.zst"), &b_n);
    CHECK(a && b && a_n == b_n && memcmp(a, b, a_n) == 0);
    free(a);
    free(b);
    a = read_file(path_in("rt.tsv.gz"), &a_n);
    b = read_file(path_in("rt2.tsv.gz"), &b_n);
    CHECK(a && b && a_n == b_n && memcmp(a, b, a_n) == 0);
    free(a);
    free(b);
}

/* Expect opening + reading data to fail with a message containing want,
 * with text's fast path on and off. */
static void expect_fail_buf(const void *data, size_t n, size_t buf, const char *want, int line)
{
    for (int slow = 0; slow < 2; slow++) {
        rs_err err = { 0 };
        rs_trace *tr;
        rs_rec r;
        int rc = rs_trace_open_mem(&tr, data, n, "T", buf, &err);
        if (rc == 0) {
            tr->no_fast_path = slow;
            while ((rc = rs_trace_next(tr, &r, &err)) == 1)
                ;
            rs_trace_close(tr);
        }
        if (rc >= 0 || err.code != RS_EINPUT || !strstr(err.msg, want)) {
            check_failed++;
            fprintf(stderr, "%s:%d: expected error containing \"%s\", got rc %d: \"%s\"%s\n",
                    __FILE__, line, want, rc, err.msg, slow ? " (no fast path)" : "");
        } else {
            check_passed++;
        }
    }
    /* the same error through rs_trace_next_many, batches of 1, 3 and 16 */
    static const size_t batches[] = { 1, 3, 16 };
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        size_t batch = batches[b];
        rs_err err = { 0 };
        rs_trace *tr;
        rs_rec r[16];
        uint64_t lines[16];
        size_t got;
        int rc = rs_trace_open_mem(&tr, data, n, "T", buf, &err);
        if (rc == 0) {
            while ((rc = rs_trace_next_many(tr, r, lines, batch, &got, &err)) == 1)
                ;
            rs_trace_close(tr);
        }
        if (rc >= 0 || err.code != RS_EINPUT || !strstr(err.msg, want)) {
            check_failed++;
            fprintf(stderr, "%s:%d: expected error containing \"%s\", got rc %d: \"%s\" (batches of %zu)\n",
                    __FILE__, line, want, rc, err.msg, batch);
        } else {
            check_passed++;
        }
    }
}

#define EXPECT_FAIL(text, want) expect_fail_buf(text, strlen(text), 0, want, __LINE__)
#define HDR "#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n"

static void test_text_errors(void)
{
    EXPECT_FAIL("", "T:1: empty file: not an rssim trace");
    EXPECT_FAIL("hello\n", "T:1: wrong header: not an rssim trace");
    EXPECT_FAIL("#rssim-trace v1 daemon=kv\n", "T:1: wrong header: expected '#rssim-trace<TAB>v1<TAB>daemon=KIND', got '#rssim-trace v1 daemon=kv'");
    EXPECT_FAIL("#rssim-trace\tv2\tdaemon=kv\n", "T:1: unsupported version 'v2' (this rssim reads v1)");
    EXPECT_FAIL("#rssim-trace\tv1\tkind=kv\n", "T:1: wrong header: expected 'daemon=KIND'");
    EXPECT_FAIL("#rssim-trace\tv1\tdaemon=rgw\n", "T:1: unknown daemon kind 'rgw' (known: kv, alloc, mds, osd)");
    EXPECT_FAIL("#rssim-trace\tv1\tdaemon=kv\n", "T:2: missing column names");
    EXPECT_FAIL("#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\n", "T:2: wrong column names");
    EXPECT_FAIL(HDR "1\tGET\t1\n", "T:3: wrong field count: 3 fields, expected 4");
    EXPECT_FAIL(HDR "1\tGET\t1\t2\t3\n", "T:3: wrong field count: 5 fields");
    EXPECT_FAIL(HDR "1\tGET\t1\t2\t3\t4\t5\t6\n", "T:3: wrong field count: 8 fields");
    EXPECT_FAIL(HDR "x1\tGET\t1\t2\n", "T:3: non-numeric t_ns 'x1'");
    EXPECT_FAIL(HDR "1\tGET\t1a\t2\n", "T:3: non-numeric key '1a'");
    EXPECT_FAIL(HDR "1\tGET\t1\t\t0\t0\n", "T:3: non-numeric size_bytes ''");
    EXPECT_FAIL(HDR "1\tGET\t1\t2\t+1\t0\n", "T:3: non-numeric thread '+1'");
    EXPECT_FAIL(HDR "1\tGET\t1\t2\t0\t0x1\n", "T:3: non-numeric aux '0x1'");
    EXPECT_FAIL(HDR "1\tGET\t1\t-5\n", "T:3: negative size_bytes '-5'");
    EXPECT_FAIL(HDR "-1\tGET\t1\t5\n", "T:3: negative t_ns '-1'");
    EXPECT_FAIL(HDR "1\tGET\t1\t5\t65536\t0\n", "T:3: thread '65536' out of range (max 65535)");
    EXPECT_FAIL(HDR "1\tGET\t1\t5\t0\t4294967296\n", "T:3: aux '4294967296' out of range (max 4294967295)");
    EXPECT_FAIL(HDR "18446744073709551616\tGET\t1\t5\n", "T:3: t_ns '18446744073709551616' out of range");
    EXPECT_FAIL(HDR "1\tPUT\t1\t5\n", "T:3: unknown op 'PUT'");
    EXPECT_FAIL(HDR "1\tget\t1\t5\n", "T:3: unknown op 'get'");
    EXPECT_FAIL(HDR "1\tMALLOC\t1\t5\n", "T:3: op 'MALLOC' is not allowed in a kv trace");
    EXPECT_FAIL(HDR "1\tGET\t1\t0\n", "T:3: zero size_bytes for GET (must be > 0)");
    EXPECT_FAIL(HDR "5\tGET\t1\t1\n# c\n\n4\tGET\t1\t1\n", "T:6: time goes backwards: t_ns 4 after 5");
    EXPECT_FAIL(HDR "1\tGET\t1\t\x01\n", "T:3: non-numeric size_bytes '\\x01'");
    /* a line longer than the reader's buffer */
    char big[400];
    memset(big, '1', sizeof big);
    memcpy(big, HDR, strlen(HDR));
    expect_fail_buf(big, sizeof big, 64, "T:3: line too long (more than 64 bytes)", __LINE__);
}

static void test_text_accepts(void)
{
    static const char text[] = HDR
        "# a comment\n"
        "\n"
        "10\tGET\t7\t100\r\n"
        "10\tDEL\t18446744073709551615\t18446744073709551615\t65535\t4294967295\n"
        "#\n"
        "11\tDEL\t7\t0\t3\t9"; /* no final newline */
    rs_err err = { 0 };
    rs_trace *tr;
    rs_rec r;
    int rc = rs_trace_open_mem(&tr, text, sizeof text - 1, "T", 0, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc)
        return;
    CHECK(rs_trace_next(tr, &r, &err) == 1);
    CHECK(r.t_ns == 10 && r.op == RS_OP_GET && r.key == 7 && r.size_bytes == 100 && r.thread == 0 &&
          r.aux == 0 && r.flags == 0);
    CHECK(rs_trace_next(tr, &r, &err) == 1);
    CHECK(r.key == UINT64_MAX && r.size_bytes == UINT64_MAX && r.thread == 65535 && r.aux == UINT32_MAX);
    CHECK(rs_trace_next(tr, &r, &err) == 1);
    CHECK(r.t_ns == 11 && r.op == RS_OP_DEL && r.size_bytes == 0 && r.thread == 3 && r.aux == 9);
    CHECK(rs_trace_next(tr, &r, &err) == 0);
    CHECK(rs_trace_next(tr, &r, &err) == 0);
    rs_trace_close(tr);

    /* alloc traces hold MALLOC/FREE; header-only traces are empty, not errors */
    static const char alloc[] = "#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n"
                                "1\tMALLOC\t1\t24\n2\tFREE\t1\t0\n";
    rc = rs_trace_open_mem(&tr, alloc, sizeof alloc - 1, "A", 0, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (!rc) {
        CHECK(strcmp(rs_trace_daemon(tr), "alloc") == 0);
        CHECK(rs_trace_next(tr, &r, &err) == 1 && r.op == RS_OP_MALLOC);
        CHECK(rs_trace_next(tr, &r, &err) == 1 && r.op == RS_OP_FREE);
        CHECK(rs_trace_next(tr, &r, &err) == 0);
        rs_trace_close(tr);
    }
    rc = rs_trace_open_mem(&tr, HDR, strlen(HDR), "E", 0, &err);
    CHECK(rc == 0);
    if (!rc) {
        CHECK(rs_trace_next(tr, &r, &err) == 0);
        rs_trace_close(tr);
    }
}

static size_t bin_header(uint8_t *p, uint32_t version, uint32_t daemon)
{
    memcpy(p, "RSSIMTRC", 8);
    memcpy(p + 8, &version, 4); /* tests run on little-endian hosts */
    memcpy(p + 12, &daemon, 4);
    return 16;
}

static size_t bin_rec(uint8_t *p, uint64_t t, uint64_t key, uint64_t size, uint8_t op, uint8_t flags)
{
    rs_rec r = { .t_ns = t, .key = key, .size_bytes = size, .op = op, .flags = flags };
    memcpy(p, &r, 32);
    return 32;
}

/* rs_trace_next_many gives what as many rs_trace_next calls give: the
 * records, their lines, the end, and the records before a bad one, whatever
 * the batch and the reader's buffer (records split across refills). */
static void test_next_many(void)
{
    uint8_t b[16 + 40 * 32];
    size_t n = bin_header(b, 1, 1);
    for (uint64_t i = 0; i < 40; i++)
        n += bin_rec(b + n, 10 + i, i, 1 + i, RS_OP_GET, 0);
    for (int bad = 0; bad < 2; bad++) {
        if (bad) /* record 30 goes back in time */
            bin_rec(b + 16 + 29 * 32, 1, 29, 30, RS_OP_GET, 0);
        for (size_t buf = 64; buf <= 4096; buf *= 8)
            for (size_t batch = 1; batch <= 17; batch += 4) {
                rs_err e1 = { 0 }, e2 = { 0 };
                rs_trace *t1, *t2;
                CHECK(rs_trace_open_mem(&t1, b, n, "T", buf, &e1) == 0);
                CHECK(rs_trace_open_mem(&t2, b, n, "T", buf, &e2) == 0);
                rs_rec r1, r2[17];
                uint64_t lines[17];
                size_t got, seen = 0;
                int rc1 = 1, rc2;
                do {
                    rc2 = rs_trace_next_many(t2, r2, lines, batch, &got, &e2);
                    CHECK(got <= batch && (rc2 != 1 || got == batch));
                    for (size_t i = 0; i < got; i++, seen++) {
                        CHECK((rc1 = rs_trace_next(t1, &r1, &e1)) == 1);
                        CHECK(!memcmp(&r1, &r2[i], sizeof r1));
                        CHECK_EQ_U64(lines[i], rs_trace_line(t1));
                    }
                } while (rc2 == 1);
                CHECK_EQ_U64(seen, bad ? 29 : 40);
                CHECK((rc1 = rs_trace_next(t1, &r1, &e1)) == rc2);
                CHECK(!strcmp(e1.msg, e2.msg));
                rs_trace_close(t1);
                rs_trace_close(t2);
            }
    }
}

static void test_binary_errors(void)
{
    uint8_t b[256];
    size_t n;

    n = bin_header(b, 1, 1);
    expect_fail_buf(b, 12, 0, "T:1: truncated header (12 of 16 bytes)", __LINE__);
    n = bin_header(b, 2, 1);
    expect_fail_buf(b, n, 0, "T:1: unsupported version 2 (this rssim reads version 1)", __LINE__);
    n = bin_header(b, 1, 9);
    expect_fail_buf(b, n, 0, "T:1: unknown daemon id 9", __LINE__);
    n = bin_header(b, 1, 0);
    expect_fail_buf(b, n, 0, "T:1: unknown daemon id 0", __LINE__);

    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 10, RS_OP_GET, 0);
    n += bin_rec(b + n, 6, 1, 10, RS_OP_GET, 0);
    expect_fail_buf(b, n - 12, 0, "T:3: record 2: truncated record (20 of 32 bytes)", __LINE__);
    expect_fail_buf(b, n - 12, 64, "T:3: record 2: truncated record (20 of 32 bytes)", __LINE__);

    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 10, RS_OP_GET, 0);
    n += bin_rec(b + n, 4, 1, 10, RS_OP_GET, 0);
    expect_fail_buf(b, n, 0, "T:3: record 2: time goes backwards: t_ns 4 after 5", __LINE__);

    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 10, 42, 0);
    expect_fail_buf(b, n, 0, "T:2: record 1: unknown op 42", __LINE__);
    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 10, RS_OP_FREE, 0);
    expect_fail_buf(b, n, 0, "T:2: record 1: op 'FREE' is not allowed in a kv trace", __LINE__);
    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 0, RS_OP_SET, 0);
    expect_fail_buf(b, n, 0, "T:2: record 1: zero size_bytes for SET", __LINE__);
    n = bin_header(b, 1, 1);
    n += bin_rec(b + n, 5, 1, 3, RS_OP_SET, 0x80);
    expect_fail_buf(b, n, 0, "T:2: record 1: nonzero flags 0x80 (reserved, must be 0)", __LINE__);
    n = bin_header(b, 1, 3);
    n += bin_rec(b + n, 5, 1, 3, RS_OP_GET, 0);
    expect_fail_buf(b, n, 0, "T:2: record 1: op 'GET' is not allowed in a mds trace", __LINE__);
}

static size_t gz_compress(const void *src, size_t n, uint8_t *dst, size_t cap)
{
    z_stream zs = { 0 };
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = dst;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    size_t out = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

static void test_compressed_streams(void)
{
    static const char text[] = HDR "1\tGET\t1\t10\n2\tSET\t2\t20\n";
    static const char more[] = "3\tGET\t3\t30\n";
    uint8_t c[4096], joined[4096];
    size_t n, m;
    rs_err err = { 0 };
    rs_trace *tr;
    rs_rec r;

    /* gzip: concatenated members are one stream; truncation and garbage fail */
    n = gz_compress(text, sizeof text - 1, c, sizeof c);
    m = gz_compress(more, sizeof more - 1, c + n, sizeof c - n);
    CHECK(rs_trace_open_mem(&tr, c, n + m, "G", 64, &err) == 0);
    if (tr) {
        int k = 0;
        while (rs_trace_next(tr, &r, &err) == 1)
            k++;
        CHECK(k == 3 && err.code == 0);
        CHECK(strcmp(rs_trace_compression(tr), "gzip") == 0);
        rs_trace_close(tr);
    }
    expect_fail_buf(c, n - 5, 0, "truncated gzip stream", __LINE__);
    memcpy(joined, c, n);
    memcpy(joined + n, "junk", 4);
    expect_fail_buf(joined, n + 4, 0, "trailing garbage after the gzip stream", __LINE__);
    expect_fail_buf(joined, n + 1, 0, "trailing garbage after the gzip stream", __LINE__);
    memcpy(joined, c, n);
    joined[20] ^= 0xff;
    expect_fail_buf(joined, n, 0, "gzip stream", __LINE__);

    /* zstd: concatenated frames, truncation, trailing garbage */
    n = ZSTD_compress(c, sizeof c, text, sizeof text - 1, 3);
    m = ZSTD_compress(c + n, sizeof c - n, more, sizeof more - 1, 3);
    CHECK(!ZSTD_isError(n) && !ZSTD_isError(m));
    tr = NULL;
    CHECK(rs_trace_open_mem(&tr, c, n + m, "Z", 64, &err) == 0);
    if (tr) {
        int k = 0;
        while (rs_trace_next(tr, &r, &err) == 1)
            k++;
        CHECK(k == 3 && err.code == 0);
        CHECK(strcmp(rs_trace_compression(tr), "zstd") == 0);
        rs_trace_close(tr);
    }
    expect_fail_buf(c, n - 3, 0, "truncated zstd stream", __LINE__);
    memcpy(joined, c, n);
    memcpy(joined + n, "junkjunk", 8);
    expect_fail_buf(joined, n + 8, 0, "trailing garbage after the zstd stream", __LINE__);
    expect_fail_buf(c, 4, 0, "truncated zstd stream", __LINE__);
    /* decompressor errors come after the good bytes, at the line where they
     * end, whatever the reader's buffer size */
    n = gz_compress(text, sizeof text - 1, c, sizeof c);
    expect_fail_buf(c, n - 5, 64, "T:5: truncated gzip stream", __LINE__);
    expect_fail_buf(c, n - 5, 0, "T:5: truncated gzip stream", __LINE__);
    n = ZSTD_compress(c, sizeof c, text, sizeof text - 1, 3); /* a raw block: streams out partly */
    expect_fail_buf(c, n - 3, 64, "T:4: truncated zstd stream", __LINE__);
    expect_fail_buf(c, n - 3, 0, "T:4: truncated zstd stream", __LINE__);
}

static void test_writer(void)
{
    rs_err err = { 0 };
    rs_trace_writer *w;
    const char *p = path_in("w.bin"), *tmp = path_in("w.bin.tmp");
    rs_rec r = { .t_ns = 10, .key = 1, .size_bytes = 5, .op = RS_OP_GET };

    CHECK(rs_trace_writer_open(&w, p, "binary", "kv", &err) == 0);
    CHECK(exists(tmp) && !exists(p));
    CHECK(rs_trace_write(w, &r, &err) == 0);
    r.t_ns = 9;
    CHECK(rs_trace_write(w, &r, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "w.bin: record 2: time goes backwards: t_ns 9 after 10") != NULL);
    r.t_ns = 10;
    r.op = RS_OP_MALLOC;
    CHECK(rs_trace_write(w, &r, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "op 'MALLOC' is not allowed in a kv trace") != NULL);
    rs_trace_writer_abort(w);
    CHECK(!exists(tmp) && !exists(p));

    CHECK(rs_trace_writer_open(&w, p, "xml", "kv", &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "unknown trace format 'xml' (known: binary, text)") != NULL);
    CHECK(rs_trace_writer_open(&w, p, "msr", "osd", &err) == RS_EINPUT); /* an importer only */
    CHECK(strstr(err.msg, "cannot write the import-only trace format 'msr'") != NULL);
    CHECK(rs_trace_writer_open(&w, p, "text", "rgw", &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "unknown daemon kind 'rgw'") != NULL);
    CHECK(rs_trace_writer_open(&w, path_in("no/such/dir/x.bin"), "text", "kv", &err) == RS_EINPUT); /* a missing folder is bad input */

    /* close renames; an existing file is replaced only then */
    write_file(p, "old", 3);
    CHECK(rs_trace_writer_open(&w, p, "text", "osd", &err) == 0);
    size_t n;
    uint8_t *data = read_file(p, &n);
    CHECK(data && n == 3);
    free(data);
    CHECK(rs_trace_writer_close(w, &err) == 0);
    CHECK(!exists(tmp));
    data = read_file(p, &n);
    static const char want[] = "#rssim-trace\tv1\tdaemon=osd\nt_ns\top\tkey\tsize_bytes\tthread\taux\n";
    CHECK(data && n == sizeof want - 1 && memcmp(data, want, n) == 0);
    free(data);
}

static void test_summary(void)
{
    static const char text[] = HDR
        "100\tGET\t1\t10\n"
        "200\tSET\t1\t30\n"
        "300\tGET\t2\t5\n"
        "300\tDEL\t1\t0\n"
        "950\tSET\t18446744073709551615\t7\n";
    const char *p = path_in("sum.tsv");
    rs_trace_summary s;
    rs_err err = { 0 };

    write_file(p, text, sizeof text - 1);
    CHECK_MSG(rs_trace_summarize(p, &s, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(s.records, 5);
    CHECK_EQ_U64(s.t_first_ns, 100);
    CHECK_EQ_U64(s.t_last_ns, 950);
    CHECK_EQ_U64(s.op_count[RS_OP_GET], 2);
    CHECK_EQ_U64(s.op_count[RS_OP_SET], 2);
    CHECK_EQ_U64(s.op_count[RS_OP_DEL], 1);
    CHECK_EQ_U64(s.distinct_keys, 3);
    CHECK_EQ_U64(s.bytes_total, 52);
    CHECK_EQ_U64(s.bytes_distinct, 30 + 5 + 7); /* the DEL does not reset key 1's size */

    CHECK(rs_trace_summarize(path_in("missing.tsv"), &s, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "cannot open '") && strstr(err.msg, "missing.tsv': No such file or directory"));
    write_file(p, HDR "1\tGET\t1\n", strlen(HDR) + 8);
    CHECK(rs_trace_summarize(p, &s, &err) == RS_EINPUT);
    CHECK(strstr(err.msg, "sum.tsv:3: wrong field count") != NULL);

    /* many keys: the hash set grows */
    write_sample(path_in("many.bin"), "binary", 50000);
    CHECK_MSG(rs_trace_summarize(path_in("many.bin"), &s, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(s.records, 50000);
    CHECK_EQ_U64(s.distinct_keys, 50000);
}

static void test_sha256(void)
{
    static const struct {
        const char *in;
        const char *hex;
    } v[] = {
        { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
    };
    char hex[65];
    rs_err err = { 0 };
    const char *p = path_in("sha");

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        write_file(p, v[i].in, strlen(v[i].in));
        CHECK(rs_file_sha256(p, hex, &err) == 0);
        CHECK_MSG(strcmp(hex, v[i].hex) == 0, "sha256('%s') = %s", v[i].in, hex);
    }
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    write_file(p, million, 1000000);
    free(million);
    CHECK(rs_file_sha256(p, hex, &err) == 0);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    /* padding edge cases: 55, 56, 63, 64 bytes of 'a' */
    static const char *const edges[4] = {
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
        "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
    };
    static const size_t lens[4] = { 55, 56, 63, 64 };
    char as[64];
    memset(as, 'a', sizeof as);
    for (int i = 0; i < 4; i++) {
        write_file(p, as, lens[i]);
        CHECK(rs_file_sha256(p, hex, &err) == 0);
        CHECK_MSG(strcmp(hex, edges[i]) == 0, "sha256(%zu x 'a') = %s", lens[i], hex);
    }
    CHECK(rs_file_sha256(path_in("nope"), hex, &err) == RS_EINPUT);
}

static void cleanup(void)
{
    static const char *const files[] = {
        "rt.tsv", "rt.tsv.gz", "rt.tsv.zst", "rt.bin", "rt.bin.gz", "rt.bin.zst", "rt2.bin.zst",
        "rt2.tsv.gz", "w.bin", "sum.tsv", "many.bin", "sha",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(path_in(files[i]));
    CHECK_MSG(rmdir(dir) == 0, "leftover files in %s", dir);
}

int main(void)
{
    if (scratch_dir("trace"))
        return 1;
    test_names();
    test_round_trips();
    test_text_errors();
    test_text_accepts();
    test_binary_errors();
    test_next_many();
    test_compressed_streams();
    test_writer();
    test_summary();
    test_sha256();
    cleanup();
    return check_done();
}
