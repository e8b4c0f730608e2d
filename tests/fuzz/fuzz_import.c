/*
 * fuzz_import.c — libFuzzer target over the trace importers.
 *
 * Every importer in the codec list (the codecs with import_line or
 * import_file, so a new one is fuzzed without an edit here) reads each
 * input, written to a scratch file (the importers read files, plain or gzip,
 * through zlib), and writes a trace of its daemon kind that is then thrown
 * away.  Every foreign reader (the codecs with open_foreign: oracleGeneral,
 * csv, txt, mtrace, msr, blocks) reads the same bytes in memory with its
 * example spec, to the end: each either reads to the end or fails as bad
 * input naming the input ("NAME:LINE: ...").  Besides "no crash, no
 * leak, no UB" (ASan/UBSan), it checks that an import either succeeds with
 * at least one I/O and at least one record per I/O, or fails as bad input
 * naming the file ("PATH:LINE: ..."), and that a trace it wrote reads back
 * with as many records.  Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "traces/import_block.h"
#include "traces/trace.h"

static void import_one(const rs_trace_codec_ops *c, const char *in, const char *out)
{
    rs_import_opts opts = { .from = c->name, .object_bytes = 1u << 16, .block_bytes = 512,
                            .interval_ns = 1000 };
    rs_import_stats st;
    rs_trace_writer *w;
    rs_trace *tr;
    rs_err err = { 0 };
    rs_rec r;

    if (rs_trace_writer_open(&w, out, "binary", rs_import_daemon(c), &err))
        __builtin_trap();
    int rc = rs_import_block(in, &opts, w, &st, &err);
    if (rc) {
        rs_trace_writer_abort(w);
        if (rc != RS_EINPUT || strncmp(err.msg, in, strlen(in)) != 0 || err.msg[strlen(in)] != ':')
            __builtin_trap(); /* bad input must fail as such, naming the file */
        return;
    }
    if (st.ios == 0 || st.records < st.ios || rs_trace_writer_close(w, &err))
        __builtin_trap();
    uint64_t n = 0;
    if (rs_trace_open(&tr, out, &err))
        __builtin_trap(); /* an importer wrote a trace the reader refuses */
    while ((rc = rs_trace_next(tr, &r, &err)) == 1)
        n++;
    rs_trace_close(tr);
    if (rc != 0 || n != st.records)
        __builtin_trap();
    unlink(out);
}

static void foreign_one(const rs_trace_codec_ops *c, const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz-input";
    char spec[512];
    rs_err err = { 0 };
    rs_trace *tr;
    rs_rec r;
    int rc;

    snprintf(spec, sizeof spec, "%s%s%s", c->name, *c->example_spec ? ":" : "", c->example_spec);
    if ((rc = rs_trace_open_foreign_mem(&tr, data, size, name, spec, &err)) == 0) {
        while ((rc = rs_trace_next(tr, &r, &err)) == 1)
            ;
        rs_trace_close(tr);
    }
    if (rc != 0 && (rc != RS_EINPUT || strncmp(err.msg, name, sizeof name - 1) != 0 ||
                    err.msg[sizeof name - 1] != ':'))
        __builtin_trap(); /* bad input must fail as such, naming the input */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[64], out[64];
    /* on tmpfs when there is one: a file created, written and unlinked per
     * importer on a disk's file system was a tenth of an input's time */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(in, sizeof in, "%s/rssim-fuzz-import-%ld.in", dir, (long)getpid());
    snprintf(out, sizeof out, "%s/rssim-fuzz-import-%ld.bin", dir, (long)getpid());
    FILE *f = fopen(in, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        __builtin_trap();
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c; c++)
        if ((*c)->import_line || (*c)->import_file)
            import_one(*c, in, out);
    unlink(in);
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c; c++)
        if ((*c)->open_foreign)
            foreign_one(*c, data, size);
    return 0;
}
