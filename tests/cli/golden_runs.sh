# golden_runs: every preset's tiny-trace run, metric and sample rows bit for
# bit against tests/golden/runs/ (scripts/golden --update rewrites them).
source "$(dirname "$0")/lib.sh"
if bash "$SRC/scripts/golden" --rssim "$RSSIM" --check >"$T/golden.out" 2>&1; then ok; else
  bad "golden runs differ:"; cat "$T/golden.out" >&2; fi
# the check can fail: one changed digit in a copy of a golden file is caught
mkdir -p "$T/src/tests" "$T/src/models"
cp -r "$SRC/scripts" "$T/src/"; cp -r "$SRC/models/presets" "$T/src/models/"; cp -r "$SRC/tests/golden" "$T/src/tests/"
f=$T/src/tests/golden/runs/kv-small.metrics.csv
sed -i '2s/,\([0-9]\)/,9\1/' "$f"
if bash "$T/src/scripts/golden" --rssim "$RSSIM" --check >"$T/golden2.out" 2>&1; then
  bad "a changed golden value went unnoticed"; else
  grep -q 'kv-small: metrics differ' "$T/golden2.out" && ok || bad "no message naming kv-small"; fi
finish
