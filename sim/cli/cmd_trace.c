/*
 * cmd_trace.c — `rssim trace convert|stats`: re-encode a trace (text <->
 * binary, plain/.gz/.zst) or print its statistics.
 *
 * Both stream the trace (bounded memory; stats keeps one hash-set entry per
 * distinct key).  convert writes OUT.tmp and renames it on success, so a
 * failed conversion leaves no OUT behind.  Bad input exits 2 with
 * "rssim: FILE:LINE: what".
 */
#include <stdio.h>
#include <string.h>

#include "../../traces/trace.h"
#include "../registry.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim trace convert IN OUT [--format text|binary]\n"
               "       rssim trace stats IN\n\n"
               "convert  re-encode a trace; the format defaults to the other one of IN's,\n"
               "         compression follows OUT's name (.gz gzip, .zst zstd, else none)\n"
               "stats    records, time span, op counts, keys and bytes of a trace\n\n"
               "Input format and compression are detected from the content.\n"
               "See docs/trace-format.md.\n");
}

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static int convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *format = NULL;
    rs_err err = { 0 };
    rs_trace *tr = NULL;
    rs_trace_writer *w = NULL;
    const void *ops;
    rs_rec rec;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            printf("usage: rssim trace convert IN OUT [--format text|binary]\n\n"
                   "Re-encode trace IN as OUT.  --format defaults to the other format of IN\n"
                   "(text -> binary, binary -> text).  OUT is compressed by its name: .gz\n"
                   "(gzip), .zst (zstd), anything else plain.  OUT is written as OUT.tmp and\n"
                   "renamed when complete; on any error no OUT is left.\n");
            return 0;
        } else if (!strcmp(argv[i], "--format")) {
            if (++i == argc)
                return rs_cli_usage_error("trace convert", "--format needs a value");
            format = argv[i];
        } else if (!strncmp(argv[i], "--format=", 9)) {
            format = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return rs_cli_usage_error("trace convert", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            return rs_cli_usage_error("trace convert", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!in || !out)
        return rs_cli_usage_error("trace convert", "needs IN and OUT");
    if (format && rs_registry_get(&rs_reg_trace_format, format, &ops, &err))
        return rs_cli_report(&err);
    if ((rc = rs_trace_open(&tr, in, &err)))
        return rs_cli_report(&err);
    if (!format)
        format = strcmp(rs_trace_format(tr), "text") == 0 ? "binary" : "text";
    if ((rc = rs_cli_mkdir_parent(out, &err)) ||
        (rc = rs_trace_writer_open(&w, out, format, rs_trace_daemon(tr), &err))) {
        rs_trace_close(tr);
        return rs_cli_report(&err);
    }
    while ((rc = rs_trace_next(tr, &rec, &err)) == 1)
        if ((rc = rs_trace_write(w, &rec, &err)))
            break;
    rs_trace_close(tr);
    if (rc) {
        rs_trace_writer_abort(w);
        return rs_cli_report(&err);
    }
    if ((rc = rs_trace_writer_close(w, &err)))
        return rs_cli_report(&err);
    return 0;
}

static void line_u64(const char *name, unsigned long long v)
{
    printf("%-15s %llu\n", name, v);
}

static void line_str(const char *name, const char *v)
{
    printf("%-15s %s\n", name, v);
}

static int stats(int argc, char **argv)
{
    const char *in = NULL;
    rs_trace_summary sum;
    rs_err err = { 0 };
    rs_trace *tr;
    char name[32];

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            printf("usage: rssim trace stats IN\n\n"
                   "Print one aligned 'name value' line each: file, format, compression,\n"
                   "daemon, records, t_first_ns, t_last_ns, duration_s, op_<OP> for every op\n"
                   "present, distinct_keys, bytes_total (sum of size_bytes) and\n"
                   "bytes_distinct (sum over distinct keys of their last nonzero size).\n");
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return rs_cli_usage_error("trace stats", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return rs_cli_usage_error("trace stats", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!in)
        return rs_cli_usage_error("trace stats", "needs IN");
    if (rs_trace_open(&tr, in, &err))
        return rs_cli_report(&err);
    if (rs_trace_summarize_from(tr, &sum, &err)) {
        rs_trace_close(tr);
        return rs_cli_report(&err);
    }
    unsigned long long span_ns = sum.t_last_ns - sum.t_first_ns;
    line_str("file", in);
    line_str("format", rs_trace_format(tr));
    line_str("compression", rs_trace_compression(tr));
    line_str("daemon", rs_trace_daemon(tr));
    rs_trace_close(tr);
    line_u64("records", sum.records);
    line_u64("t_first_ns", sum.t_first_ns);
    line_u64("t_last_ns", sum.t_last_ns);
    printf("%-15s %llu.%09llu\n", "duration_s", span_ns / 1000000000ull, span_ns % 1000000000ull);
    for (unsigned op = 0; op <= RS_OP__MAX; op++) {
        if (!sum.op_count[op] || !rs_op_name(op))
            continue;
        snprintf(name, sizeof name, "op_%s", rs_op_name(op));
        line_u64(name, sum.op_count[op]);
    }
    line_u64("distinct_keys", sum.distinct_keys);
    line_u64("bytes_total", sum.bytes_total);
    line_u64("bytes_distinct", sum.bytes_distinct);
    return 0;
}

static const rs_command subcommands[] = {
    { .name = "convert", .run = convert, .summary = "re-encode a trace" },
    { .name = "stats", .run = stats, .summary = "print a trace's statistics" },
};

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    return rs_cli_usage_error("trace", "unknown subcommand '%s' (convert, stats)", argv[1]);
}
