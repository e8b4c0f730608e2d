/*
 * paths.h — where the rssim program finds its data: the presets (.conf
 * files of models/presets), the gnuplot templates (.gp files of scripts)
 * and the bundled listings `gen kernel-build` reads (traces, .tsv.zst).
 *
 * Each kind of data is one folder, found once per process, first match wins:
 *   1. its environment variable (RSSIM_PRESETS, RSSIM_SCRIPTS, RSSIM_TRACES)
 *      when set and not empty, taken as is;
 *   2. a build folder: when the program's folder holds the file
 *      `rssim-source-dir` (CMake writes it there; one line, the source
 *      tree), that tree's models/presets, scripts or traces;
 *   3. an installed copy: <program folder>/RSSIM_BIN_TO_DATA/<kind>, i.e.
 *      <prefix>/share/rssim/{presets,scripts,traces} beside <prefix>/bin.
 * When neither 2 nor 3 exists, 3 is returned anyway, so an error names the
 * place the data was expected.  The program's folder is /proc/self/exe's,
 * so an installed tree can be moved as a whole; no absolute path of the
 * source tree is compiled in.
 *
 * Only the CLI reads the environment and /proc: library code that needs one
 * of these folders is handed it (traces/gen/gen.h's data_dir).
 */
#ifndef RS_CLI_PATHS_H
#define RS_CLI_PATHS_H

typedef enum rs_cli_data {
    RS_CLI_PRESETS, /* *.conf run presets */
    RS_CLI_SCRIPTS, /* *.gp gnuplot templates */
    RS_CLI_TRACES,  /* bundled trace listings (kernel-build's tree) */
} rs_cli_data;

/* The folder of one kind of data (see above); never NULL, valid for the
 * life of the process. */
const char *rs_cli_data_dir(rs_cli_data kind);
/* The environment variable that overrides kind's folder ("RSSIM_PRESETS"). */
const char *rs_cli_data_env(rs_cli_data kind);
/* rs_cli_data_dir(RS_CLI_SCRIPTS). */
const char *rs_cli_scripts_dir(void);

#endif
