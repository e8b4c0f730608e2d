/*
 * cmd_list.c — `rssim list [KIND]`: every registry, its plug-ins and their
 * parameters with defaults, generated from the ops tables themselves, and
 * the presets found in the presets folder (paths.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../schema.h"
#include "../base/config.h"
#include "../registry.h"
#include "cli.h"

/* Column widths of one table (the core parameters, or one kind's plug-ins):
 * plug-in names; the parameters' indent, keys and defaults. */
typedef struct widths {
    int name, param[3];
} widths;

static void widen(widths *w, const rs_param *p)
{
    for (; p && p->key; p++) {
        if ((int)strlen(p->key) > w->param[1])
            w->param[1] = (int)strlen(p->key);
        if ((int)strlen(p->def) > w->param[2])
            w->param[2] = (int)strlen(p->def);
    }
}

static void print_params(const widths *w, const rs_param *p)
{
    int skip = w->param[0] ? 0 : 1; /* no indent cell: the core table */
    for (; p && p->key; p++) {
        const char *cells[3] = { "", p->key, p->def };
        char doc[1024];
        snprintf(doc, sizeof doc, "%s%s%s%s", p->doc, p->choices ? " [" : "",
                 p->choices ? p->choices : "", p->choices ? "]" : "");
        rs_cli_help_row(stdout, cells + skip, w->param + skip, 3 - skip, doc);
    }
}

/* A daemon's components: each slot's key, kind, default and the choices. */
static void print_slots(const rs_daemon_ops *d)
{
    if (!d->slots || !d->slots[0].param.key) {
        printf("      components: none (it drives the allocator directly)\n");
        return;
    }
    printf("      components (key = default; choices):\n");
    for (const rs_daemon_slot *sl = d->slots; sl->param.key; sl++) {
        const rs_registry *reg = rs_registry_of_component(sl->kind);
        printf("        %s = %s (%s; ", sl->param.key, sl->param.def, reg->kind);
        if (sl->param.choices)
            printf("%s", sl->param.choices); /* the daemon takes only these */
        for (size_t i = 0; !sl->param.choices && i < reg->count; i++)
            printf("%s%s", i ? "|" : "", rs_registry_name(reg, i));
        printf(")\n");
    }
    printf("      keys: the core keys, these, the allocator's, and those of the components chosen\n");
}

/* The word `rssim list` takes for a registry: its config key, else the
 * first word of its kind ("trace" for "trace format"), at most cap - 1 bytes. */
static const char *kind_word(const rs_registry *reg, char *buf, size_t cap)
{
    const char *k = reg->key ? reg->key : reg->kind;
    snprintf(buf, cap, "%.*s", (int)strcspn(k, " "), k);
    return buf;
}

static int is_conf(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 5 && d->d_name[0] != '.' && !strcmp(d->d_name + n - 5, ".conf");
}

/* A preset's description: its first line without "# " and the "NAME — "
 * it starts with (presets open with "# name — what it is"); and the value
 * of its `exact` key (the kv daemon checks it when a run starts), or "". */
static void preset_doc(const char *dir, const char *file, char *r_doc, size_t cap, char *r_exact,
                       size_t exact_cap)
{
    char path[4096], line[1100] = "";
    FILE *f;
    const char *s = line, *dash;

    r_doc[0] = '\0';
    r_exact[0] = '\0';
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path || !(f = fopen(path, "r")))
        return;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        s += strspn(s, "# ");
        if ((dash = strstr(s, " \xe2\x80\x94 "))) /* " — " */
            s = dash + 5;
        snprintf(r_doc, cap, "%s", s);
    }
    while (fgets(line, sizeof line, f)) {
        char *k = line + strspn(line, " \t");
        if (strncmp(k, "exact", 5) || !strchr(" \t=", k[5]))
            continue;
        k += 5 + strspn(k + 5, " \t");
        if (*k != '=')
            continue;
        k += 1 + strspn(k + 1, " \t");
        snprintf(r_exact, exact_cap, "%.*s", (int)strcspn(k, " \t\r\n#"), k);
    }
    fclose(f);
}

/* The presets, sorted by name; 0, or 1 when the folder cannot be read. */
static int list_presets(void)
{
    const char *dir = rs_cli_data_dir(RS_CLI_PRESETS);
    struct dirent **names;
    int n = scandir(dir, &names, is_conf, alphasort);

    if (n < 0) {
        fprintf(stderr, "rssim: cannot read the presets folder '%s': %s (set %s)\n", dir,
                strerror(errno), rs_cli_data_env(RS_CLI_PRESETS));
        return 1;
    }
    printf("presets (in %s):\n", dir);
    for (int i = 0; i < n; i++) {
        char doc[512], exact[32];
        const char *file = names[i]->d_name;
        preset_doc(dir, file, doc, sizeof doc, exact, sizeof exact);
        printf("  %-20.*s exact=%-5s %s\n", (int)(strlen(file) - 5), file,
               exact[0] && strcmp(exact, "none") ? exact : "-", doc);
        free(names[i]);
    }
    free(names);
    printf("(exact=P: the preset is an exact P cache simulator, checked when a run starts; "
           "docs/models.md)\n");
    return 0;
}

static void usage(void)
{
    char word[64];

    printf("usage: rssim list [KIND]\n\nList plug-ins by kind, each with its parameters and their defaults,\n"
           "the core parameters, or the presets (--preset NAME); all of them without KIND.\n\n"
           "kinds: core");
    for (const rs_registry *const *reg = rs_registries; *reg; reg++)
        printf(" %s", kind_word(*reg, word, sizeof word));
    printf(" presets\n");
}

int cmd_list(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int found = 0;

    if (only && (!strcmp(only, "-h") || !strcmp(only, "--help"))) {
        usage();
        return 0;
    }
    if (!only || !strcmp(only, "core")) {
        widths w = { .param = { 0, 0, 0 } };
        widen(&w, rs_core_params);
        printf("core parameters:\n");
        print_params(&w, rs_core_params);
        found = 1;
    }
    for (const rs_registry *const *reg = rs_registries; *reg; reg++) {
        const char *k = (*reg)->key ? (*reg)->key : (*reg)->kind;
        if (only && strcmp(only, k) && strcmp(only, (*reg)->kind) && strncmp(only, k, 4))
            continue;
        found = 1;
        printf("\n%s%s%s%s:\n", (*reg)->kind, (*reg)->key ? " (key '" : "",
               (*reg)->key ? (*reg)->key : "", (*reg)->key ? "')" : "");
        widths w = { .param = { 2, 0, 0 } };
        for (size_t i = 0; i < (*reg)->count; i++) {
            const char *const *ops = (*reg)->entries[i];
            if ((int)strlen(ops[0]) > w.name)
                w.name = (int)strlen(ops[0]);
            widen(&w, rs_registry_params(*reg, i));
        }
        for (size_t i = 0; i < (*reg)->count; i++) {
            /* every ops table has name then doc */
            const char *const *ops = (*reg)->entries[i];
            rs_cli_help_row(stdout, &ops[0], &w.name, 1, ops[1]);
            if (*reg == &rs_reg_daemon)
                print_slots((*reg)->entries[i]);
            print_params(&w, rs_registry_params(*reg, i));
        }
    }
    if (!only || !strcmp(only, "presets")) {
        if (!only)
            printf("\n");
        fflush(stdout);
        if (list_presets() && only)
            return 1;
        found = 1;
    }
    if (!found)
        return rs_cli_usage_error("list", "unknown kind '%s'", only);
    return 0;
}
