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
        printf("%s%-28s %-9s %s\n", indent, p->key, p->def, p->doc);
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
            if (*reg == &rs_reg_daemon)
                print_slots((*reg)->entries[i]);
            print_params(rs_registry_params(*reg, i), "      ");
        }
    }
    if (!found)
        return rs_cli_usage_error("list", "unknown kind '%s'", only);
    return 0;
}
