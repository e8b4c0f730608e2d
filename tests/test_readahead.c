/*
 * test_readahead.c — the readahead thread hands out exactly what
 * rs_trace_next would: the same records and lines, across block boundaries,
 * then the same end or the same error; and it can be stopped mid-trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../traces/readahead.h"
#include "check.h"

/* A text kv trace of n records; with bad_at > 0, time goes backwards at
 * record bad_at.  Comment lines every 1000 records make lines != records. */
static void write_text(const char *path, unsigned n, unsigned bad_at)
{
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fprintf(f, "#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n");
    for (unsigned i = 1; i <= n; i++) {
        if (i % 1000 == 0)
            fprintf(f, "# a comment\n");
        fprintf(f, "%u\tGET\t%u\t%u\t0\t0\n", i == bad_at ? 0 : i * 10, i % 777, 1 + i % 500);
    }
    fclose(f);
}

static void compare(const char *path, unsigned stop_after)
{
    rs_trace *a = NULL, *b = NULL;
    rs_readahead *ra = NULL;
    rs_err ea = { 0 }, eb = { 0 };
    rs_rec ra_rec, rb_rec;
    int rca, rcb, diffs = 0;
    unsigned n = 0;

    CHECK(rs_trace_open(&a, path, &ea) == 0);
    CHECK(rs_trace_open(&b, path, &eb) == 0);
    CHECK(rs_readahead_start(&ra, b, &eb) == 0);
    do {
        rca = rs_trace_next(a, &ra_rec, &ea);
        rcb = rs_readahead_next(ra, &rb_rec, &eb);
        if (rca != rcb || (rca == 1 && (memcmp(&ra_rec, &rb_rec, sizeof ra_rec) != 0 ||
                                        rs_trace_line(a) != rs_readahead_line(ra))))
            diffs++;
        n += rca == 1;
    } while (rca == 1 && rcb == 1 && n != stop_after);
    CHECK_MSG(diffs == 0, "%d differences after %u records", diffs, n);
    if (!stop_after) {
        CHECK(rca == rcb);
        if (rca < 0)
            CHECK_MSG(strcmp(ea.msg, eb.msg) == 0, "'%s' vs '%s'", ea.msg, eb.msg);
    }
    rs_readahead_stop(ra);
    rs_trace_close(a);
    rs_trace_close(b);
}

int main(void)
{
    char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/rssim-test-readahead-%d.tsv", dir && *dir ? dir : "/tmp",
             (int)getpid());
    unsigned B = RS_READAHEAD_BLOCK;
    write_text(path, 5 * B + 17, 0);   /* ends mid-block, after the ring wrapped */
    compare(path, 0);
    write_text(path, 4 * B, 0);        /* ends exactly at a block's end */
    compare(path, 0);
    write_text(path, 0, 0);            /* no records */
    compare(path, 0);
    write_text(path, 6 * B, 3 * B + 5); /* an error mid-trace */
    compare(path, 0);
    write_text(path, 6 * B, B);        /* an error as a block's first record */
    compare(path, 0);
    write_text(path, 9 * B, 0);        /* stopped while the reader is ahead */
    compare(path, B + 3);
    unlink(path);
    return check_done();
}
