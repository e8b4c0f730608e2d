/*
 * cmd_gen.c — `rssim gen NAME [--key value ...] -o FILE`: write a synthetic
 * trace with a generator plug-in.
 *
 * Generic over generators: NAME is looked up in rs_reg_gen, every
 * `--key value` (or `--key=value`) goes into a config made with the
 * generator's own parameter table, which is validated before the writer is
 * opened; `rssim gen NAME -h` prints that table (defaults and docs), so a new
 * generator needs no change here.
 */
#include <stdio.h>
#include <string.h>

#include "../../traces/gen/gen.h"
#include "../config.h"
#include "../registry.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim gen NAME [--key value ...] -o FILE [--format text|binary]\n\n"
               "Write a synthetic trace.  'rssim gen NAME -h' lists NAME's options.\n\n"
               "generators:\n");
    for (size_t i = 0; i < rs_reg_gen.count; i++) {
        const rs_gen_ops *g = rs_reg_gen.entries[i];
        fprintf(f, "  %-14s %s\n", g->name, g->doc);
    }
}

static const char *metavar(rs_ptype type)
{
    static const char *const names[] = {
        [RS_PT_SIZE] = "SIZE", [RS_PT_DURATION] = "TIME", [RS_PT_INT] = "INT",
        [RS_PT_DOUBLE] = "NUM", [RS_PT_BOOL] = "BOOL", [RS_PT_STRING] = "STR",
    };
    return (unsigned)type < sizeof names / sizeof names[0] && names[type] ? names[type] : "VALUE";
}

static void gen_help(const rs_gen_ops *g)
{
    printf("usage: rssim gen %s [--key value ...] -o FILE [--format text|binary]\n\n"
           "%s (daemon %s).\n\n"
           "  -o, --output FILE   the trace to write (.gz / .zst compress it)\n"
           "  --format FMT        text or binary; default text when FILE (without .gz/.zst)\n"
           "                      ends in .tsv or .txt, else binary\n\n"
           "options (default in the second column; sizes take K/M/G/T):\n",
           g->name, g->doc, g->daemon);
    for (const rs_param *p = g->params; p && p->key; p++) {
        char opt[64];
        snprintf(opt, sizeof opt, "--%s %s", p->key, metavar(p->type));
        printf("  %-22s %-10s %s\n", opt, p->def, p->doc);
    }
}

/* text when the name (minus .gz/.zst) ends in .tsv or .txt, else binary. */
static const char *format_for_name(const char *path)
{
    static const char *const zip[] = { ".gz", ".zst" }, *const text[] = { ".tsv", ".txt" };
    size_t n = strlen(path);

    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(zip[i]);
        if (n > k && !strcmp(path + n - k, zip[i]))
            n -= k;
    }
    for (size_t i = 0; i < 2; i++)
        if (n > 4 && !strncmp(path + n - 4, text[i], 4))
            return "text";
    return "binary";
}

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int cmd_gen(int argc, char **argv)
{
    const rs_gen_ops *g;
    const void *ops;
    const char *out = NULL, *format = NULL;
    rs_config *cfg = NULL;
    rs_trace_writer *w = NULL;
    rs_err err = { 0 };
    int rc, status = 0;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    if (rs_registry_get(&rs_reg_gen, argv[1], &ops, &err))
        return rs_cli_report(&err);
    g = ops;
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            gen_help(g);
            return 0;
        }
    if ((rc = rs_config_new_with(&cfg, g->params, &err)))
        return rs_cli_report(&err);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *value;
        char key[128], origin[160], kv[1024];
        size_t klen;

        if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--format")) {
            if (i + 1 == argc) {
                status = rs_cli_usage_error("gen", "%s needs a value", a);
                goto out;
            }
            *(a[1] == 'f' || a[2] == 'f' ? &format : &out) = argv[++i];
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || !a[2]) {
            status = rs_cli_usage_error("gen", "unexpected argument '%s'", a);
            goto out;
        }
        const char *eq = strchr(a + 2, '=');
        klen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (klen >= sizeof key) {
            status = rs_cli_usage_error("gen", "option too long: '%s'", a);
            goto out;
        }
        memcpy(key, a + 2, klen);
        key[klen] = '\0';
        if (!eq && (!strcmp(key, "output") || !strcmp(key, "format")))
            continue; /* handled above */
        if (eq && (!strcmp(key, "output") || !strcmp(key, "format"))) {
            *(key[0] == 'f' ? &format : &out) = eq + 1;
            continue;
        }
        if (!rs_config_param(cfg, key)) {
            status = rs_cli_usage_error("gen", "unknown option '--%s' for generator '%s'", key,
                                        g->name);
            goto out;
        }
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            status = rs_cli_usage_error("gen", "--%s needs a value", key);
            goto out;
        }
        snprintf(origin, sizeof origin, "--%s", key);
        snprintf(kv, sizeof kv, "%s=%s", key, value);
        if ((rc = rs_config_set_kv(cfg, kv, origin, &err)))
            goto fail;
    }
    if (!out) {
        status = rs_cli_usage_error("gen", "needs -o FILE");
        goto out;
    }
    if (!format)
        format = format_for_name(out);
    if ((rc = rs_registry_get(&rs_reg_trace_format, format, &ops, &err)) ||
        (rc = rs_config_validate(cfg, &err)) || (rc = rs_cli_mkdir_parent(out, &err)) ||
        (rc = rs_trace_writer_open(&w, out, format, g->daemon, &err)))
        goto fail;
    if ((rc = g->generate(cfg, w, &err))) {
        rs_trace_writer_abort(w);
        goto fail;
    }
    if ((rc = rs_trace_writer_close(w, &err)))
        goto fail;
    goto out;
fail:
    status = rs_cli_report(&err);
out:
    rs_config_free(cfg);
    return status;
}
