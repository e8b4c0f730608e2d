/*
 * cmd_list.c — `rssim list [KIND]`: every registry, its plug-ins and their
 * parameters with defaults, generated from the ops tables themselves.
 */
#include <stdio.h>
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
        rs_cli_help_row(stdout, cells + skip, w->param + skip, 3 - skip, p->doc);
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
        for (size_t i = 0; i < reg->count; i++)
            printf("%s%s", i ? ", " : "", rs_registry_name(reg, i));
        printf(")\n");
    }
    printf("      keys: the core keys, these, the allocator's, and those of the components chosen\n");
}

int cmd_list(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int found = 0;

    if (only && (!strcmp(only, "-h") || !strcmp(only, "--help"))) {
        printf("usage: rssim list [KIND]\n\n"
               "List the core parameters and the plug-ins of each kind (daemon, cache,\n"
               "layout, alloc, trim, trace, generator), each with its parameters, their\n"
               "defaults and what they do; KIND (core, or a kind) lists only that one.\n");
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
    if (!found)
        return rs_cli_usage_error("list", "unknown kind '%s'", only);
    return 0;
}
