# tests/cli/install.sh — `cmake --install` of the build folder the tested
# rssim is in, into a scratch prefix, then the installed programs with the
# source tree out of reach: run from a scratch folder, with no RSSIM_PRESETS,
# RSSIM_SCRIPTS or RSSIM_TRACES, and no rssim-source-dir beside them, so
# their data can only come from <prefix>/share/rssim.  Checks --version,
# `rssim list` (presets found in the prefix), gen kv + replay --preset +
# plot (a PNG), gen kernel-build from the installed tree listing, the
# recorder, the man page, and the bash completion; and that the build
# folder's own rssim, without the variables, reads the source tree.
# Run by ctest as: bash install.sh RSSIM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh"
unset RSSIM_PRESETS RSSIM_SCRIPTS RSSIM_TRACES

B=$(dirname "$RSSIM")
P=$T/prefix
if [ ! -f "$B/CMakeCache.txt" ]; then
  bad "no CMakeCache.txt beside $RSSIM: not a build folder"
  finish
  exit
fi
expect_status 0 "cmake --install" cmake --install "$B" --prefix "$P"
for f in bin/rssim bin/rssim-real lib/librssim-record.so share/rssim/presets/kv-small.conf \
         share/rssim/scripts/timeseries.gp share/rssim/traces/linux-6.1-tree.tsv.zst \
         share/rssim/traces/linux-6.1-build-outputs.tsv.zst share/man/man1/rssim.1 \
         share/bash-completion/completions/rssim share/doc/rssim/LICENSE bin/rssim-slurm-sweep; do
  check "installed $f" test -s "$P/$f"
done
check "no source marker in the prefix" test ! -e "$P/bin/rssim-source-dir"
# debug info may name the source; the program's constants must not
if command -v readelf >/dev/null; then
  if readelf -s "$P/bin/rssim" | grep -q '__asan_init'; then
    # a sanitizer build keeps its sources' file names for its reports: look
    # for a data folder compiled in as a whole string
    for d in models/presets scripts traces; do
      check "no '$d' source path in rssim's constants" \
        bash -c '! readelf -p .rodata "$1" | sed "s/^ *\[ *[0-9a-f]*\]  //" | grep -qxF "$2"' \
        _ "$P/bin/rssim" "$SRC/$d"
    done
  else
    check "no source path in rssim's constants" \
      bash -c '! readelf -p .rodata "$1" | grep -qF "$2"' _ "$P/bin/rssim" "$SRC"
  fi
else
  bad "readelf not found (binutils)"
fi

mkdir "$T/w"
cd "$T/w" || exit 1
R=$P/bin/rssim

expect_status 0 "--version" "$R" --version
check "version line" grep -qE '^rssim [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{7,}(-dirty)?|unknown)\)$' "$T/out"
check "same version as the build" test "$(cat "$T/out")" = "$("$RSSIM" --version)"
expect_status 0 "rssim-real --version" "$P/bin/rssim-real" --version
stdout_has "rssim-real version line" "^rssim-real [0-9.]* (git "
expect_status 0 "--help mentions --version" "$R" --help
stdout_has "--help mentions --version" "--version"

expect_status 0 "list" "$R" list
stdout_has "list: plug-ins" "^  jemalloc "
stdout_has "list: presets from the prefix" "^presets (in $P/share/rssim/presets):"
stdout_has "list: a preset" "^  kv-small "

# the build folder's own program, from elsewhere, reads the source tree
expect_status 0 "build folder: list presets" "$RSSIM" list presets
stdout_has "build folder: presets from the source tree" "^presets (in $SRC/models/presets):"

expect_status 0 "gen kv" "$R" gen kv --keys 2000 --events 20000 --seed 5 -o kv.bin
expect_status 0 "replay --preset kv-small" "$R" replay kv.bin --preset kv-small --db runs.db
stdout_has "replay done" "^run 1 done"
expect_status 0 "plot timeseries" "$R" plot timeseries --run 1 --db runs.db -o ts.png
check "a PNG" test "$(head -c 8 ts.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a

expect_status 0 "gen kernel-build (installed listing)" "$R" gen kernel-build --events 1000 -o kb.bin
stderr_has "kernel-build summary" "^rssim gen kernel-build: 1000 records"
# the listing really comes from the traces folder: an empty one fails
mkdir empty
RSSIM_TRACES=$T/w/empty expect_status 2 "gen kernel-build, empty RSSIM_TRACES" \
  "$R" gen kernel-build --events 1000 -o kb2.bin
stderr_has "names the overridden folder" "$T/w/empty/linux-6.1-tree.tsv.zst"
RSSIM_PRESETS=$T/w/empty expect_status 2 "replay, empty RSSIM_PRESETS" \
  "$R" replay kv.bin --preset kv-small --db runs.db
stderr_has "names the overridden preset" "$T/w/empty/kv-small.conf"

expect_status 0 "record with the installed recorder" \
  env RSSIM_RECORD="$T/w/rec.bin" LD_PRELOAD="$P/lib/librssim-record.so" sort /dev/null
expect_status 0 "recorded trace parses" "$R" trace stats rec.bin
stdout_has "recorded an alloc trace" "daemon *alloc"

expect_status 2 "installed rssim-reproduce-mds-19954 refuses a bad argument" \
  "$P/bin/rssim-reproduce-mds-19954" --bad
stderr_has "reproduce usage" "usage: reproduce-mds-19954"
expect_status 2 "installed rssim-capture-observations names the daemon" \
  "$P/bin/rssim-capture-observations" client.admin "$T/cap"
stderr_has "capture: DAEMON is mds or osd" "DAEMON is mds.NAME or osd.ID"
expect_status 2 "installed rssim-slurm-sweep wants --tasks" "$P/bin/rssim-slurm-sweep"

if command -v man >/dev/null; then
  expect_status 0 "man page renders" env MANWIDTH=80 MANPAGER=cat man -l "$P/share/man/man1/rssim.1"
  stdout_has "man: commands" "replay"
  stdout_has "man: environment" "RSSIM_PRESETS"
else
  bad "man not found (man-db)"
fi

# completion: source it and call its function as bash would
complete_words() { # complete_words WORD...: COMPREPLY for the last word, one line
  PATH=$P/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _rssim; echo "${COMPREPLY[*]}"' _ "$P/share/bash-completion/completions/rssim" "$@"
}
check "complete 'rssim rep'" test "$(complete_words rssim rep)" = "replay report"
check "complete 'rssim runs e'" test "$(complete_words rssim runs e)" = export
check "complete a preset" test "$(complete_words rssim replay kv.bin --preset kv-s)" = kv-small
check "complete --set alloc=" test "$(complete_words rssim replay kv.bin --set alloc = tc)" = tcmalloc
check "complete an option" test "$(complete_words rssim replay kv.bin --pre)" = --preset
finish
