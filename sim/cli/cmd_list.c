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

static void print_params(const rs_param *p, const char *indent)
{
    for (; p && p->key; p++)
        printf("%s%-28s %-9s %s%s%s%s\n", indent, p->key, p->def, p->doc,
               p->choices ? " [" : "", p->choices ? p->choices : "", p->choices ? "]" : "");
}

int cmd_list(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int found = 0;

    if (only && (!strcmp(only, "-h") || !strcmp(only, "--help"))) {
        printf("usage: rssim list [KIND]\n\nList plug-ins by kind (daemon, cache, layout, alloc,\n"
               "trim, trace, gen), each with its parameters and their defaults.\n");
        return 0;
    }
    if (!only || !strcmp(only, "core")) {
        printf("core parameters:\n");
        print_params(rs_core_params, "  ");
        found = 1;
    }
    for (const rs_registry *const *reg = rs_registries; *reg; reg++) {
        const char *k = (*reg)->key ? (*reg)->key : (*reg)->kind;
        if (only && strcmp(only, k) && strcmp(only, (*reg)->kind) && strncmp(only, k, 4))
            continue;
        found = 1;
        printf("\n%s%s%s%s:\n", (*reg)->kind, (*reg)->key ? " (key '" : "",
               (*reg)->key ? (*reg)->key : "", (*reg)->key ? "')" : "");
        for (size_t i = 0; i < (*reg)->count; i++) {
            /* every ops table has name then doc */
            const char *const *ops = (*reg)->entries[i];
            printf("  %-14s %s\n", ops[0], ops[1]);
            print_params(rs_registry_params(*reg, i), "      ");
        }
    }
    if (!found)
        return rs_cli_usage_error("list", "unknown kind '%s'", only);
    return 0;
}
