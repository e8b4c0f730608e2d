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
#include "../base/config.h"
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
    rs_err err = { 0 };
    char cmd[96], summary[512];
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
    snprintf(cmd, sizeof cmd, "gen %s", g->name);
    if ((rc = rs_config_new_with(&cfg, g->params, &err)))
        return rs_cli_report(&err);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *value, *eq;
        char key[128], origin[160], kv[1024];
        size_t klen;

        if (strncmp(a, "--", 2) != 0 && strcmp(a, "-o") != 0) {
            status = rs_cli_usage_error(cmd, "unexpected argument '%s'", a);
            goto out;
        }
        /* -o FILE, --name value, --name=value */
        const char *name = strcmp(a, "-o") == 0 ? "output" : a + 2;
        eq = strchr(name, '=');
        klen = eq ? (size_t)(eq - name) : strlen(name);
        if (klen == 0 || klen >= sizeof key) {
            status = rs_cli_usage_error(cmd, "bad option '%s'", a);
            goto out;
        }
        memcpy(key, name, klen);
        key[klen] = '\0';
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            status = rs_cli_usage_error(cmd, "%s needs a value", a);
            goto out;
        }
        if (strcmp(key, "output") == 0) {
            out = value;
            continue;
        }
        if (strcmp(key, "format") == 0) {
            format = value;
            continue;
        }
        if (!rs_config_param(cfg, key)) {
            status = rs_cli_usage_error(cmd, "unknown option '--%s' for generator '%s'", key,
                                        g->name);
            goto out;
        }
        snprintf(origin, sizeof origin, "--%s", key);
        snprintf(kv, sizeof kv, "%s=%s", key, value);
        if ((rc = rs_config_set_kv(cfg, kv, origin, &err)))
            goto fail;
    }
    if (!out) {
        status = rs_cli_usage_error(cmd, "needs -o FILE");
        goto out;
    }
    if (!format)
        format = rs_cli_format_for_name(out);
    if ((rc = rs_registry_get(&rs_reg_trace_format, format, &ops, &err)) ||
        (rc = rs_config_validate(cfg, &err)) || (rc = rs_cli_mkdir_parent(out, &err)) ||
        (rc = rs_gen_to_file(g, cfg, rs_cli_data_dir(RS_CLI_TRACES), out, format, summary,
                                   sizeof summary, &err)))
        goto fail;
    if (summary[0])
        fprintf(stderr, "rssim gen %s: %s\n", g->name, summary);
    goto out;
fail:
    status = rs_cli_report(&err);
out:
    rs_config_free(cfg);
    return status;
}
