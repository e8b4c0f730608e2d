/*
 * test_trace_mapped.c — a trace read in place (rs_trace_open_mapped, a
 * read-only mapping of a plain file) gives exactly what rs_trace_open's
 * read(2) path gives: the same records and lines, the same end, the same
 * error for a record cut short or a bad field; and a file that changes
 * under the mapping fails the read with a message instead of being read
 * as whatever it became: truncated inside the window being decoded (a
 * SIGBUS, caught by the guard), truncated or rewritten further on (seen at
 * the next window).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../traces/trace.h"
#include "check.h"
#include "scratch.h"

enum { REC = 32, HDR = 16 };

/* A binary kv trace of n GET records. */
static void write_bin(const char *path, unsigned n)
{
    rs_trace_writer *w;
    rs_err err = { 0 };
    CHECK(rs_trace_writer_open(&w, path, "binary", "kv", &err) == 0);
    for (unsigned i = 0; i < n; i++) {
        rs_rec r = { .t_ns = 10ull * i, .key = i % 977, .size_bytes = 1 + i % 300, .op = RS_OP_GET };
        CHECK(rs_trace_write(w, &r, &err) == 0);
    }
    CHECK_MSG(rs_trace_writer_close(w, &err) == 0, "%s", err.msg);
}

/* Read path with both readers side by side; 0 = same records, end and error. */
static void compare(const char *path, const char *what)
{
    rs_trace *a = NULL, *b = NULL;
    rs_err ea = { 0 }, eb = { 0 };
    rs_rec x, y;
    int rca, rcb, diffs = 0;
    unsigned long n = 0;

    rca = rs_trace_open(&a, path, &ea);
    rcb = rs_trace_open_mapped(&b, path, &eb);
    if (rca || rcb) { /* a bad header: the same failure */
        CHECK_MSG(rca == rcb && strcmp(ea.msg, eb.msg) == 0, "%s: open '%s' vs '%s'", what, ea.msg, eb.msg);
        rs_trace_close(a);
        rs_trace_close(b);
        return;
    }
    CHECK_MSG(strcmp(rs_trace_compression(b), "none") == 0, "%s", what);
    do {
        rca = rs_trace_next(a, &x, &ea);
        rcb = rs_trace_next(b, &y, &eb);
        if (rca != rcb || (rca == 1 && (memcmp(&x, &y, sizeof x) != 0 || rs_trace_line(a) != rs_trace_line(b))))
            diffs++;
        n += rca == 1;
    } while (rca == 1 && rcb == 1);
    CHECK_MSG(diffs == 0 && rca == rcb, "%s: %d differences after %lu records (rc %d/%d)", what, diffs, n,
              rca, rcb);
    if (rca < 0)
        CHECK_MSG(strcmp(ea.msg, eb.msg) == 0, "%s: '%s' vs '%s'", what, ea.msg, eb.msg);
    CHECK_MSG(rs_trace_next(b, &y, &eb) == rcb, "%s: the end is not sticky", what);
    rs_trace_close(a);
    rs_trace_close(b);
}

static void poke(const char *path, off_t at, uint8_t byte)
{
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, &byte, 1, at) == 1);
    close(fd);
}

/* Open mapped, read `first` records, let `change` alter the file, read on:
 * the read must fail as bad input with a message holding `want`. */
static void changed(const char *path, unsigned first, void (*change)(const char *), const char *want)
{
    rs_trace *tr = NULL;
    rs_err err = { 0 };
    rs_rec r;
    int rc;

    CHECK_MSG(rs_trace_open_mapped(&tr, path, &err) == 0, "%s", err.msg);
    if (!tr)
        return;
    for (unsigned i = 0; i < first; i++)
        CHECK(rs_trace_next(tr, &r, &err) == 1);
    change(path);
    while ((rc = rs_trace_next(tr, &r, &err)) == 1)
        ;
    CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want) && strncmp(err.msg, path, strlen(path)) == 0,
              "rc %d, '%s' (want '%s')", rc, err.msg, want);
    rs_trace_close(tr);
}

/* Truncated to 64 KiB: inside the 1 MiB window being decoded, so the next
 * page read is past the end of the file (SIGBUS without the guard). */
static void cut_in_window(const char *path)
{
    CHECK(truncate(path, 64 << 10) == 0);
}

/* Truncated to 3 MiB: two windows on, found by the check at a window. */
static void cut_later(const char *path)
{
    CHECK(truncate(path, 3 << 20) == 0);
}

/* The same size, one byte rewritten 4 MiB in and the mtime moved. */
static void rewrite(const char *path)
{
    struct timespec ts[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
    poke(path, 4 << 20, 0x7f);
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

int main(void)
{
    if (scratch_dir("mapped"))
        return 1;
    const char *p = path_in("t.bin");
    unsigned n = 300000; /* 9.6 MB: several windows and several dropped ranges */

    write_bin(p, n);
    compare(p, "whole trace");
    /* a record cut short at the end */
    CHECK(truncate(p, HDR + (off_t)REC * 1000 + 7) == 0);
    compare(p, "cut record");
    /* a bad field: an unknown op in record 500, flags in record 700 */
    write_bin(p, 2000);
    poke(p, HDR + REC * 499 + 30, 0xee);
    poke(p, HDR + REC * 699 + 31, 1);
    compare(p, "bad op");
    /* a header alone; a truncated header */
    write_bin(p, 0);
    compare(p, "no records");
    CHECK(truncate(p, 11) == 0);
    compare(p, "short header");
    /* a text trace read in place */
    FILE *f = fopen(p, "w");
    fprintf(f, "#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1\tGET\t2\t3\t0\t0\n");
    fclose(f);
    compare(p, "text");

    write_bin(p, n);
    changed(p, 10, cut_in_window, "truncated while it was being read");
    write_bin(p, n);
    changed(p, 10, cut_later, "changed while it was being read");
    write_bin(p, n);
    changed(p, 10, rewrite, "changed while it was being read");

    unlink(p);
    rmdir(dir);
    return check_done();
}
