/*
 * test_store_image.c — databases held in memory: rs_store_open_image (read
 * only and writable), rs_store_image and rs_store_merge_image, against the
 * same database as a file (rs_store_open_ro, rs_store_merge).
 *
 * Works in a fresh folder under $TMPDIR (or /tmp) and removes it at the end.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "sim/query.h"
#include "sim/schema.h"
#include "sim/store.h"

static char dir_path[4096];

static void path_in_dir(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir_path, name);
}

static void *read_file(const char *path, size_t *r_size)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (f && buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap && !(buf = realloc(buf, cap *= 2)))
            break;
    }
    if (f)
        fclose(f);
    *r_size = n;
    return buf;
}

static int count_sample(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    (void)run_id;
    (void)err;
    uint64_t *sum = ctx;
    sum[0]++;
    sum[1] += smp->rss_bytes;
    return 0;
}

/* Samples of run_id and the sum of their rss (0, 0 when the query fails). */
static void samples_of(rs_store *st, int64_t run_id, uint64_t sum[2])
{
    rs_query_scope one = { .run_id = run_id };
    rs_err err = { 0 };
    sum[0] = sum[1] = 0;
    CHECK_MSG(rs_query_samples(st, &one, NULL, 0, count_sample, sum, &err) == 0, "%s", err.msg);
}

/* A file database with two done runs (n and 2n samples). */
static void make_db(const char *path, size_t n)
{
    rs_store *st = NULL;
    rs_config *cfg = NULL;
    rs_err err = { 0 };
    rs_run_meta meta = { .kind = "predicted", .trace_path = "t.tsv",
                         .trace_sha256 = "0123456789abcdef0123456789abcdef"
                                         "0123456789abcdef0123456789abcdef",
                         .preset = "kv-small", .seed = 1, .point_index = -1 };

    CHECK_MSG(rs_store_open(&st, path, &err) == 0, "%s", err.msg);
    CHECK(rs_config_new(&cfg, &err) == 0);
    rs_config_set(cfg, "alloc", "tcmalloc", &err);
    for (int r = 1; st && r <= 2; r++) {
        rs_result res;
        int64_t id = 0;
        rs_result_init(&res);
        for (size_t i = 0; i < n * (size_t)r; i++) {
            rs_sample s = { 0 };
            s.t_ns = (uint64_t)i * 1000000u;
            s.resident_bytes = 4096u * (i + 1) * (uint64_t)r;
            s.rss_bytes = s.resident_bytes;
            rs_result_add_sample(&res, &s, &err);
        }
        meta.seed = (uint64_t)r;
        CHECK_MSG(rs_store_run_begin(st, &meta, cfg, &id, &err) == 0, "%s", err.msg);
        CHECK_MSG(rs_store_run_finish(st, id, &res, 10, 20, &err) == 0, "%s", err.msg);
        rs_result_release(&res);
    }
    rs_config_free(cfg);
    rs_store_close(st);
}

static void test_read_image(void)
{
    char db[4200];
    size_t size = 0;
    rs_store *file = NULL, *mem = NULL;
    rs_err err = { 0 };
    uint64_t a[2], b[2];

    path_in_dir(db, sizeof db, "runs.db");
    make_db(db, 50);
    unsigned char *img = read_file(db, &size);
    CHECK(img && size > 100);
    if (!img)
        return;
    /* rssim's files are in WAL mode: header bytes 18 and 19 are 2 */
    CHECK(img[18] == 2 && img[19] == 2);
    CHECK_MSG(rs_store_open_ro(&file, db, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_store_open_image(&mem, "runs-image", img, size, 0, &err) == 0, "%s", err.msg);
    if (file && mem) {
        for (int64_t id = 1; id <= 2; id++) {
            samples_of(file, id, a);
            samples_of(mem, id, b);
            CHECK_EQ_U64(a[0], 50 * (uint64_t)id);
            CHECK_EQ_U64(b[0], a[0]);
            CHECK_EQ_U64(b[1], a[1]);
        }
        char status[16];
        CHECK(rs_store_run_status(mem, 2, status, &err) == 0 && !strcmp(status, "done"));
        /* read only: no write, and the message names the image */
        rs_run_meta m = { .kind = "predicted", .trace_path = "t", .trace_sha256 = "x",
                          .preset = "p", .point_index = -1 };
        int64_t id = 0;
        CHECK(rs_store_run_begin(mem, &m, NULL, &id, &err) == RS_EDB);
        CHECK_MSG(strstr(err.msg, "runs-image") && strstr(err.msg, "read-only"), "%s", err.msg);
    }
    rs_store_close(file);
    rs_store_close(mem);

    /* the caller's bytes are copied: freeing them leaves the store whole */
    unsigned char *dup = malloc(size);
    memcpy(dup, img, size);
    CHECK(rs_store_open_image(&mem, "copy", dup, size, 0, &err) == 0);
    memset(dup, 0, size);
    free(dup);
    if (mem) {
        samples_of(mem, 2, b);
        CHECK_EQ_U64(b[0], 100);
        rs_store_close(mem);
    }

    /* not a database, not an rssim database, an empty image: bad input */
    CHECK(rs_store_open_image(&mem, "junk", "not a database at all, just text.........", 40, 0,
                              &err) == RS_EINPUT && mem == NULL);
    CHECK_MSG(strstr(err.msg, "junk") != NULL, "%s", err.msg);
    CHECK(rs_store_open_image(&mem, "nothing", NULL, 0, 0, &err) == RS_EINPUT && mem == NULL);
    CHECK_MSG(strstr(err.msg, "not an rssim database") && strstr(err.msg, "nothing"), "%s",
              err.msg);
    sqlite3 *raw = NULL;
    sqlite3_int64 n = 0;
    sqlite3_open(":memory:", &raw);
    sqlite3_exec(raw, "CREATE TABLE t(a); INSERT INTO t VALUES(1)", NULL, NULL, NULL);
    unsigned char *other = sqlite3_serialize(raw, "main", &n, 0);
    CHECK(other && n > 0);
    CHECK(rs_store_open_image(&mem, "other", other, (size_t)n, 0, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "not an rssim database") != NULL, "%s", err.msg);
    sqlite3_free(other);
    sqlite3_close(raw);
    free(img);
}

static void test_writable_image(void)
{
    char db[4200];
    size_t size = 0, out_size = 0;
    void *out = NULL;
    rs_store *mem = NULL, *back = NULL;
    rs_err err = { 0 };
    uint64_t s[2];

    /* an empty image is a new database with the schema */
    CHECK_MSG(rs_store_open_image(&mem, "new", NULL, 0, 1, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_store_image(mem, &out, &out_size, &err) == 0, "%s", err.msg);
    CHECK(out && out_size > 0);
    rs_store_close(mem);
    CHECK_MSG(rs_store_open_image(&back, "new-back", out, out_size, 0, &err) == 0, "%s", err.msg);
    rs_store_close(back);
    free(out);

    /* writes stay in the store, not in the caller's bytes */
    path_in_dir(db, sizeof db, "w.db");
    make_db(db, 7);
    unsigned char *img = read_file(db, &size);
    unsigned char *keep = malloc(size);
    memcpy(keep, img, size);
    CHECK_MSG(rs_store_open_image(&mem, "w", img, size, 1, &err) == 0, "%s", err.msg);
    if (mem) {
        rs_run_meta m = { .kind = "predicted", .trace_path = "t.tsv",
                          .trace_sha256 = "0123456789abcdef0123456789abcdef"
                                          "0123456789abcdef0123456789abcdef",
                          .preset = "kv-small", .seed = 3, .point_index = -1 };
        rs_result res;
        int64_t id = 0;
        rs_result_init(&res);
        rs_sample x = { .t_ns = 1, .rss_bytes = 5, .resident_bytes = 5 };
        rs_result_add_sample(&res, &x, &err);
        CHECK_MSG(rs_store_run_begin(mem, &m, NULL, &id, &err) == 0, "%s", err.msg);
        CHECK(id == 3);
        CHECK_MSG(rs_store_run_finish(mem, id, &res, 1, 1, &err) == 0, "%s", err.msg);
        rs_result_release(&res);
        CHECK(memcmp(img, keep, size) == 0);
        CHECK_MSG(rs_store_image(mem, &out, &out_size, &err) == 0, "%s", err.msg);
        rs_store_close(mem);
        CHECK_MSG(rs_store_open_image(&back, "w-back", out, out_size, 0, &err) == 0, "%s",
                  err.msg);
        if (back) {
            samples_of(back, 3, s);
            CHECK_EQ_U64(s[0], 1);
            CHECK_EQ_U64(s[1], 5);
            samples_of(back, 2, s);
            CHECK_EQ_U64(s[0], 14);
            rs_store_close(back);
        }
        free(out);
    }
    free(keep);
    free(img);
}

static void test_merge_image(void)
{
    char db[4200], dst_path[4200];
    size_t size = 0;
    rs_store *a = NULL, *b = NULL;
    rs_err err = { 0 };
    uint64_t ca = 0, cb = 0, sa[2], sb[2];

    path_in_dir(db, sizeof db, "src.db");
    make_db(db, 30);
    unsigned char *img = read_file(db, &size);
    path_in_dir(dst_path, sizeof dst_path, "dst.db");
    CHECK_MSG(rs_store_open(&a, dst_path, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_store_open_image(&b, "dst", NULL, 0, 1, &err) == 0, "%s", err.msg);
    if (!a || !b || !img)
        goto out;
    CHECK_MSG(rs_store_merge(a, db, &ca, &err) == 0, "%s", err.msg);
    CHECK_MSG(rs_store_merge_image(b, "src-image", img, size, &cb, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(ca, 2);
    CHECK_EQ_U64(cb, ca);
    for (int64_t id = 1; id <= 2; id++) {
        samples_of(a, id, sa);
        samples_of(b, id, sb);
        CHECK_EQ_U64(sa[0], 30 * (uint64_t)id);
        CHECK_EQ_U64(sb[0], sa[0]);
        CHECK_EQ_U64(sb[1], sa[1]);
    }
    /* a bad image fails as bad input, naming it, and leaves the store
     * usable: a second merge of the same runs copies nothing new */
    CHECK(rs_store_merge_image(b, "bad-image", "garbage", 7, &cb, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "bad-image") != NULL, "%s", err.msg);
    CHECK_MSG(rs_store_merge_image(b, "src-image", img, size, &cb, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(cb, 0);
    CHECK_MSG(rs_store_merge(a, db, &ca, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(ca, cb);
    char status[16];
    CHECK(rs_store_run_status(b, 2, status, &err) == 0 && !strcmp(status, "done"));
    CHECK(rs_store_run_status(b, 3, status, &err) == RS_ENOTFOUND); /* not copied again */
out:
    rs_store_close(a);
    rs_store_close(b);
    free(img);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char cmd[4200];
    snprintf(dir_path, sizeof dir_path, "%s/rssim-test-store-image-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir_path)) {
        perror("mkdtemp");
        return 1;
    }
    test_read_image();
    test_writable_image();
    test_merge_image();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove '%s'\n", dir_path);
    return check_done();
}
