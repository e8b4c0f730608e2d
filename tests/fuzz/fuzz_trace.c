/*
 * fuzz_trace.c — libFuzzer target over the trace reader.
 *
 * The input bytes are a trace file (any encoding, any compression: the
 * reader detects them), so every codec that reads (trace.h, RS_TRACE_CODECS
 * with sniff) is reached by sniffing; the importers are fuzz_import.c's.  Each input is read to the end twice, through a
 * 64 KiB buffer (larger than any input scripts/fuzz allows, so it acts as the
 * default 1 MiB one without a 1 MiB allocation per run) and through a
 * 97-byte one, so every record and line also straddles refills.  Besides "no crash, no leak, no UB" (ASan/UBSan),
 * it checks that the outcome does not depend on the buffer: the same
 * records, the same return code and the same message — except that a line
 * longer than the small buffer fails there with "line too long", and a
 * corrupt zstd frame may be caught at a different line (see below) — that an
 * input error names the trace ("fuzz:LINE: ..."), and that a finished trace
 * stays finished.  A third read with text's one-pass fast path switched off
 * must match the first exactly: the fast path may only ever take lines the
 * diagnosing parser accepts, with the same values.
 * Build: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "traces/format.h"

typedef struct outcome {
    int rc;
    uint64_t records, hash;
    rs_err err;
} outcome;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xbf58476d1ce4e5b9ull;
}

static void read_all(const uint8_t *data, size_t size, size_t buf_bytes, int slow, outcome *o)
{
    rs_trace *tr;
    rs_rec r;

    memset(o, 0, sizeof *o);
    o->rc = rs_trace_open_mem(&tr, data, size, "fuzz", buf_bytes, &o->err);
    if (o->rc)
        return;
    tr->no_fast_path = slow;
    while ((o->rc = rs_trace_next(tr, &r, &o->err)) == 1) {
        o->records++;
        o->hash = mix(o->hash, r.t_ns);
        o->hash = mix(o->hash, r.key);
        o->hash = mix(o->hash, r.size_bytes);
        o->hash = mix(o->hash, (uint64_t)r.aux << 32 | (uint64_t)r.thread << 16 |
                                   (uint64_t)r.op << 8 | r.flags);
        if (r.flags != 0 || !rs_op_name(r.op))
            __builtin_trap(); /* the reader let a bad record through */
    }
    if (o->rc == 0 && rs_trace_next(tr, &r, &o->err) != 0)
        __builtin_trap(); /* the end is not sticky */
    rs_trace_close(tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static outcome big, small, slow;

    read_all(data, size, (size_t)1 << 16, 0, &big);
    read_all(data, size, 97, 0, &small);
    read_all(data, size, (size_t)1 << 16, 1, &slow);
    if (big.rc != slow.rc || big.records != slow.records || big.hash != slow.hash ||
        strcmp(big.err.msg, slow.err.msg) != 0)
        __builtin_trap(); /* text's fast path and diagnosing parser disagree */
    if (big.rc == RS_EINPUT && strncmp(big.err.msg, "fuzz:", 5) != 0)
        __builtin_trap(); /* an input error must name the file (and line) */
    if (big.rc == 1 || small.rc == 1)
        __builtin_trap();
    if (strstr(small.err.msg, "line too long"))
        return 0;
    /* libzstd checks a frame's checksum in the call that decodes its last
     * block and then does not report that block's output, so how much of a
     * corrupt frame is seen before the error depends on the buffer: only
     * require that both fail as bad input. */
    if (strstr(big.err.msg, "corrupt zstd stream") || strstr(small.err.msg, "corrupt zstd stream")) {
        if (big.rc != RS_EINPUT || small.rc != RS_EINPUT)
            __builtin_trap();
        return 0;
    }
    if (big.rc != small.rc || big.records != small.records || big.hash != small.hash ||
        strcmp(big.err.msg, small.err.msg) != 0)
        __builtin_trap(); /* the outcome depends on the buffer size */
    return 0;
}
