# calibrate: fit one parameter with GSL's Brent on a trace whose answer is
# known in closed form, plus the bad input that must be refused (exit 2).
#
# The trace: one SET of a new 4000-byte key every 100 us, half-way between
# ticks (so no insert ties a trim), 2 s.  Under kv-small (periodic trim down
# to the limit; 4000 accounted bytes per object) the accounted peak is
#   (floor(limit / 4000) + inserts per interval) x 4000,
# inserts per interval = interval / 100 us, so the change of the peak from
# limit A to limit B (or interval A to B) is known at every point and steps
# where one more object fits.  A target between two steps has its root at
# the step.
. "$(dirname "$0")/lib.sh"

awk 'BEGIN { printf "#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n"
             for (i = 0; i < 20000; i++) printf "%d\tSET\t%d\t4000\n", i * 100000 + 50000, i + 1 }' > "$T/t.tsv"
cal() { "$RSSIM" calibrate "$T/t.tsv" --preset kv-small "$@"; }
# value in base units (ns or bytes) of the first stdout line KEY=VALUE
value_of() {
  sed -n '1s/^[a-z_]*=//p' "$T/out" | awk '{ v = $0 + 0; u = $0; sub(/^[0-9.]+/, "", u)
    m["ns"] = 1; m["us"] = 1e3; m["ms"] = 1e6; m["s"] = 1e9
    m[""] = 1; m["K"] = 1024; m["M"] = 1048576; m["G"] = 1073741824
    printf "%.0f\n", v * m[u] }'
}
within() { # within VALUE LO HI
  awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

# 1. trim_interval, limit 1M -> 2M (262 -> 524 objects): change(n) =
# 100 (524 - 262) / (262 + n); a target between n = 500 and 501 has its
# root where a 501st insert fits in an interval: 50 ms (+- one insert).
target=$(awk 'BEGIN { printf "%.6f", 100 * (524 - 262) / (262 + 500.5) }')
expect_status 0 "calibrate trim_interval" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M,2M --metric accounted_peak_bytes --target "$target" --tol 0.01ms
stdout_has "KEY=VALUE line" "^trim_interval=[0-9.]*ms$"
stdout_has "achieved change" "^change +34.3"
stdout_has "converged" "converged$"
stderr_has "evaluations on stderr" "calibrate: trim_interval=10ms .* change +"
v=$(value_of)
check "trim_interval $v ns within one insert of 50 ms" within "$v" 49900000 50100000
n=$(sed -n 's/.*; \([0-9]*\) evaluations.*/\1/p' "$T/out")
check "one stderr line per evaluation ($n)" test "$(grep -c '^calibrate: trim_interval=' "$T/err")" = "$n"
# the change printed is the one evaluated at that value
check "printed change is an evaluated one" grep -q "^calibrate: $(head -1 "$T/out") .* change $(sed -n '2s/^change \([^ ]*\) .*/\1/p' "$T/out") " "$T/err"

# 2. a size: kv_cache_limit, interval 20 ms -> 50 ms (200 -> 500 inserts):
# change(L) = 100 (500 - 200) / (L + 200) objects; between L = 399 and 400
# the root is 400 x 4000 = 1600000 bytes (+- one object); stored in a db
target=$(awk 'BEGIN { printf "%.6f", 100 * (500 - 200) / (399.5 + 200) }')
size_args=(--param kv_cache_limit --range 512K,8M --compare trim_interval=20ms,50ms
           --metric accounted_peak_bytes --target "$target" --tol 1000)
expect_status 0 "calibrate kv_cache_limit" cal "${size_args[@]}" --db "$T/db"
stdout_has "size KEY=VALUE" "^kv_cache_limit=[0-9.]*[KM]\?$"
v=$(value_of)
check "kv_cache_limit $v within one object of 1600000" within "$v" 1596000 1604000
cp "$T/out" "$T/first"
n=$(sed -n 's/.*; \([0-9]*\) evaluations.*/\1/p' "$T/out")
check "every evaluation stored as two done runs" \
  test "$(sql "$T/db" "select count(*) from runs where status='done' and label like 'calibrate kv_cache_limit=%'")" = $((2 * n))
check "stored runs carry the compared value" \
  test "$(sql "$T/db" "select count(*) from params where key='trim_interval' and value='50ms'")" = "$n"
# deterministic, and storing changes nothing
expect_status 0 "calibrate again without db" cal "${size_args[@]}"
check "same inputs, same output" cmp -s "$T/first" "$T/out"

# 3. max-iter stops the search early: still an answer, said to be unconverged
expect_status 0 "max-iter 1" cal "${size_args[@]}" --max-iter 1
stdout_has "unconverged answer" "not converged$"
stderr_has "unconverged warning" "not converged after 1 iterations"

# 4. bad input: exit 2, naming the option and the value
common=(--range 10ms,200ms --compare kv_cache_limit=1M,2M --metric accounted_peak_bytes --target 30)
expect_status 2 "unknown key" cal --param no_such_key "${common[@]}"
stderr_has "unknown key named" "--param: unknown key 'no_such_key'"
expect_status 2 "string key" cal --param trim "${common[@]}"
stderr_has "string key named" "'trim' is a string"
expect_status 2 "reversed range" cal --param trim_interval --range 200ms,10ms \
  --compare kv_cache_limit=1M,2M --metric accounted_peak_bytes --target 30
stderr_has "reversed range named" "--range: .*'200ms,10ms'"
expect_status 2 "bad range value" cal --param trim_interval --range 10ms,soon \
  --compare kv_cache_limit=1M,2M --metric accounted_peak_bytes --target 30
stderr_has "bad range value named" "'10ms,soon'"
expect_status 2 "compare without two values" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M --metric accounted_peak_bytes --target 30
stderr_has "compare named" "--compare: .*'kv_cache_limit=1M'"
expect_status 2 "compare unknown key" cal --param trim_interval --range 10ms,200ms \
  --compare no_such=1,2 --metric accounted_peak_bytes --target 30
stderr_has "compare key named" "unknown key 'no_such'"
expect_status 2 "compare bad value" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M,lots --metric accounted_peak_bytes --target 30
stderr_has "compare value named" "'lots'"
expect_status 2 "bad target" cal --param trim_interval "${common[@]}" --target much
stderr_has "target named" "--target: .*'much'"
expect_status 2 "bad tol" cal --param trim_interval "${common[@]}" --tol 0
stderr_has "tol named" "--tol: .*'0'"
expect_status 2 "bad max-iter" cal --param trim_interval "${common[@]}" --max-iter 0
expect_status 2 "missing options" cal --param trim_interval
expect_status 2 "missing trace" "$RSSIM" calibrate "$T/nope.tsv" --preset kv-small --param trim_interval "${common[@]}"
expect_status 2 "unknown metric" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M,2M --metric no_such_metric --target 30
stderr_has "metric named" "no metric 'no_such_metric'"
# the excess over the limit does not depend on the limit (about -0.1 %
# from rounding to whole objects): a +10 % target is never crossed
expect_status 2 "no sign change" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M,2M --metric excess_peak_bytes --target 10
stderr_has "no sign change names both ends" "trim_interval=10ms gives .* and trim_interval=200ms gives .*--target +10"
expect_status 0 "calibrate -h" "$RSSIM" calibrate -h
# --target-value: the metric itself, one replay per evaluation.  At
# kv_cache_limit=1M (262 objects) the accounted peak is (262 + n) x 4000
# with n = trim_interval / 100 us inserts per interval; a target between
# n = 500 and 501 has its root at 50 ms (+- one insert).
tv=$(awk 'BEGIN { printf "%.0f", (262 + 500.5) * 4000 }')
expect_status 0 "calibrate to an absolute value" cal --param trim_interval --range 10ms,200ms \
  --set kv_cache_limit=1M --metric accounted_peak_bytes --target-value "$tv" --tol 0.01ms --db "$T/abs.db"
stdout_has "absolute: KEY=VALUE" "^trim_interval=[0-9.]*ms$"
stdout_has "absolute: the metric said" "^accounted_peak_bytes 305[0-9]* (target 3050000); [0-9]* evaluations.*converged$"
v=$(value_of)
check "absolute: trim_interval $v ns within one insert of 50 ms" within "$v" 49900000 50100000
n=$(sed -n 's/.*; \([0-9]*\) evaluations.*/\1/p' "$T/out")
check "absolute: one stored run per evaluation" \
  test "$(sql "$T/abs.db" "select count(*) from runs where status='done' and label like 'calibrate trim_interval=%'")" = "$n"
expect_status 2 "target-value with compare" cal --param trim_interval --range 10ms,200ms \
  --compare kv_cache_limit=1M,2M --metric accounted_peak_bytes --target-value 3e6
stderr_has "target-value alone" "without --compare and --target"
expect_status 2 "bad target-value" cal --param trim_interval --range 10ms,200ms \
  --metric accounted_peak_bytes --target-value lots
stderr_has "target-value named" "--target-value: expected a number, got 'lots'"
expect_status 2 "absolute target out of reach" cal --param trim_interval --range 10ms,200ms \
  --set kv_cache_limit=1M --metric accounted_peak_bytes --target-value 1
stderr_has "no sign change, absolute" "no sign change: trim_interval=10ms gives accounted_peak_bytes .* --target-value 1; widen --range"

finish
