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
    int w = 0;
    for (size_t i = 0; i < rs_reg_gen.count; i++) {
        const rs_gen_ops *g = rs_reg_gen.entries[i];
        if ((int)strlen(g->name) > w)
            w = (int)strlen(g->name);
    }
    for (size_t i = 0; i < rs_reg_gen.count; i++) {
        const rs_gen_ops *g = rs_reg_gen.entries[i];
        rs_cli_help_row(f, &g->name, &w, 1, g->doc);
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
    /* one width per column for the whole screen: the widest "--key TYPE"
     * (or "-o, --output FILE") and the widest default */
    char opt[64];
    int w[2] = { (int)strlen("-o, --output FILE"), 0 };
    for (const rs_param *p = g->params; p && p->key; p++) {
        int n = snprintf(opt, sizeof opt, "--%s %s", p->key, metavar(p->type));
        if (n > w[0])
            w[0] = n;
        if ((int)strlen(p->def) > w[1])
            w[1] = (int)strlen(p->def);
    }
    printf("usage: rssim gen %s [--key value ...] -o FILE [--format text|binary]\n\n",
           g->name);
    char line[512];
    snprintf(line, sizeof line, "%s (daemon %s).", g->doc, g->daemon);
    rs_cli_help_row(stdout, NULL, NULL, 0, line);
    putchar('\n');
    rs_cli_help_row(stdout, (const char *[]){ "-o, --output FILE", "" }, w, 2,
                    "the trace to write (.gz / .zst compress it)");
    rs_cli_help_row(stdout, (const char *[]){ "--format FMT", "" }, w, 2,
                    "text or binary; default text when FILE (without .gz/.zst) ends in .tsv "
                    "or .txt, else binary");
    char dflt[32];
    snprintf(dflt, sizeof dflt, "%llu", (unsigned long long)RS_TRACE_MAX_RECORDS);
    rs_cli_help_row(stdout, (const char *[]){ "--max-records N", dflt }, w, 2,
                    "the most records FILE may hold; more is refused and leaves no FILE");
    printf("\noptions (default in the second column; sizes take K/M/G/T):\n");
    for (const rs_param *p = g->params; p && p->key; p++) {
        snprintf(opt, sizeof opt, "--%s %s", p->key, metavar(p->type));
        rs_cli_help_row(stdout, (const char *[]){ opt, p->def }, w, 2, p->doc);
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
    int64_t max_records = (int64_t)RS_TRACE_MAX_RECORDS;
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
        if (strcmp(key, "max-records") == 0) {
            if (rs_parse_int(value, &max_records) != 0 || max_records < 1) {
                status = rs_cli_usage_error(cmd, "bad --max-records '%s': expected a count >= 1", value);
                goto out;
            }
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
        (rc = rs_config_validate(cfg, &err)) || (rc = rs_cli_mkdir_parent(out, &err)))
        goto fail;
    /* the output is bounded: a generator whose events option asks for more
     * records than --max-records is refused before writing; any other
     * stops at the limit (rs_gen_to_file) */
    if (rs_config_param(cfg, "events") && rs_config_int(cfg, "events") > max_records) {
        rc = rs_fail(&err, RS_EINPUT, "--events %lld: more than %lld records (--max-records %lld; "
                     "--max-records N raises it)", (long long)rs_config_int(cfg, "events"),
                     (long long)max_records, (long long)max_records);
        goto fail;
    }
    rs_cli_tmp_guard(out); /* a killed gen leaves no OUT.tmp */
    rc = rs_gen_to_file(g, cfg, rs_cli_data_dir(RS_CLI_TRACES), out, format, (uint64_t)max_records,
                        summary, sizeof summary, &err);
    rs_cli_tmp_unguard();
    if (rc)
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
