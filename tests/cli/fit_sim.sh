# fit_sim: `rssim fit RUN --trace T --preset P --param KEY=LO,HI` fits the
# simulator's own unknowns to an observed series.  The observations are made
# here: a replay with base_bytes = 50 MiB (kv-small, one SET of a new
# 4000-byte key every 100 us, 2 s, kv_cache_limit 4M), its RSS plus
# Gaussian noise of sd 0.5 MiB written as capture files and imported.  The
# fit from the range 0..200 MiB must hold 50 MiB within its 95 % interval,
# with a residual near the noise; then the refusals.
. "$(dirname "$0")/lib.sh"

awk 'BEGIN { printf "#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n"
             for (i = 0; i < 20000; i++) printf "%d\tSET\t%d\t4000\n", i * 100000 + 50000, i + 1 }' > "$T/t.tsv"
"$RSSIM" replay "$T/t.tsv" --preset kv-small --set base_bytes=50M --set kv_cache_limit=4M \
  --db "$T/s.db" > /dev/null
mkdir "$T/obs"
sql "$T/s.db" "SELECT t_ns || ' ' || accounted_bytes || ' ' || rss_bytes FROM samples WHERE run_id = 1 ORDER BY t_ns" |
  awk -v dir="$T/obs" 'BEGIN { srand(7); pi = atan2(0, -1) }
    { u1 = rand(); if (u1 < 1e-12) u1 = 1e-12
      noise = sqrt(-2 * log(u1)) * cos(2 * pi * rand()) * 0.5 * 1048576
      t = sprintf("%.3f", 1764620000 + $1 / 1e9)
      f = dir "/" t "-cache_status.json"; printf "{\"pool\": {\"items\": 1, \"bytes\": %.0f}}\n", $2 > f; close(f)
      f = dir "/" t "-proc_status.txt"; printf "VmRSS:\t%.0f kB\n", ($3 + noise) / 1024 > f; close(f) }'
DB=$T/o.db
expect_status 0 "import the observations" "$RSSIM" observe import "$T/obs" -o "$DB"
fit() { "$RSSIM" fit 1 --db "$DB" --trace "$T/t.tsv" --preset kv-small --set kv_cache_limit=4M "$@"; }
expect_status 0 "fit base_bytes" fit --param base_bytes=0,200M
stdout_has "names the key" "^base_bytes = [0-9.]* MiB (±[0-9.]* MiB)$"
stdout_has "converged" "converged$"
kv() { sed -n "s/.*\b$1=\([-0-9.e+]*\).*/\1/p" "$T/out" | tail -1; }
v=$(kv base_bytes) ci=$(kv base_bytes_ci) sigma=$(kv sigma_mib)
within() { awk -v v="$1" -v c="$2" -v w="$3" 'BEGIN { exit !(v - c <= w && c - v <= w) }'; }
check "50 MiB within $v ± $ci" within 52428800 "$v" "$ci"
check "interval under 1 MiB ($ci)" awk -v c="$ci" 'BEGIN { exit !(c > 0 && c < 1048576) }'
check "residual near the 0.5 MiB noise ($sigma)" within 0.5 "$sigma" 0.25
expect_status 0 "fit from another start" fit --param base_bytes=0,200M@150M
v2=$(kv base_bytes)
check "same answer from 150 MiB ($v2)" within "$v" "$v2" "$ci"

# refusals (exit 2, before any replay)
expect_status 2 "unknown key" fit --param no_such=1,2
stderr_has "unknown key named" "unknown key 'no_such'"
expect_status 2 "string key" fit --param alloc=1,2
stderr_has "string key named" "'alloc' is a string"
expect_status 2 "bad range" fit --param base_bytes=200M,0
stderr_has "range named" "LO < HI"
expect_status 2 "start outside" fit --param base_bytes=0,200M@1G
expect_status 2 "four keys" fit --param base_bytes=0,1M --param kv_cache_limit=1M,2M \
  --param kv_key_bytes=8,64 --param trim_interval=1ms,1s
stderr_has "1 to 3" "fit 1 to 3 keys"
expect_status 2 "same key twice" fit --param base_bytes=0,1M --param base_bytes=0,2M
expect_status 2 "bad column" fit --param base_bytes=0,1M --column x
expect_status 2 "trace without param" "$RSSIM" fit 1 --db "$DB" --trace "$T/t.tsv" --preset kv-small
expect_status 2 "--at with --trace" fit --param base_bytes=0,1M --at 1G
expect_status 2 "two runs with --trace" "$RSSIM" fit 1 1 --db "$DB" --trace "$T/t.tsv" --preset kv-small --param base_bytes=0,1M
expect_status 2 "a prediction as the observation" "$RSSIM" fit 1 --db "$T/s.db" --trace "$T/t.tsv" --preset kv-small --param base_bytes=0,1M
stderr_has "not observed" "not a done observed or measured run"
finish
