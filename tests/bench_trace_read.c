/*
 * bench_trace_read.c — the cost of reading a trace alone, by each path the
 * reader has: read(2) into its buffer (rs_trace_open, the default) and a
 * read-only mapping decoded in place (rs_trace_open_mapped).  CPU time per
 * record of opening, decoding every record and closing, median of RUNS
 * alternating runs.  A program, not a ctest (scripts/bench prints it).
 *
 *   bench_trace_read TRACE [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../traces/trace.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU ns per record of one full read; -1 on error. */
static double read_once(const char *path, int mapped, uint64_t *r_sum)
{
    rs_trace *tr;
    rs_err err = { 0 };
    rs_rec r;
    uint64_t n = 0;
    int rc;
    double t0 = cpu_s();

    if ((mapped ? rs_trace_open_mapped : rs_trace_open)(&tr, path, &err)) {
        fprintf(stderr, "bench_trace_read: %s\n", err.msg);
        return -1;
    }
    while ((rc = rs_trace_next(tr, &r, &err)) == 1) {
        n++;
        *r_sum += r.key ^ r.size_bytes;
    }
    rs_trace_close(tr);
    if (rc < 0) {
        fprintf(stderr, "bench_trace_read: %s\n", err.msg);
        return -1;
    }
    return n ? (cpu_s() - t0) * 1e9 / (double)n : 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_trace_read TRACE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 5;
    if (runs < 1 || runs > 100)
        runs = 5;
    double t[2][100];
    uint64_t sum[2] = { 0, 0 };
    for (int i = 0; i < runs; i++)
        for (int m = 0; m < 2; m++)
            if ((t[m][i] = read_once(argv[1], m, &sum[m])) < 0)
                return 2;
    if (sum[0] != sum[1]) {
        fprintf(stderr, "bench_trace_read: the two paths read different records\n");
        return 1;
    }
    for (int m = 0; m < 2; m++)
        qsort(t[m], (size_t)runs, sizeof t[m][0], cmp_d);
    printf("read_ns_per_record %.1f mapped_ns_per_record %.1f\n", t[0][runs / 2], t[1][runs / 2]);
    return 0;
}
