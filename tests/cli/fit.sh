# fit: `rssim fit` on an observed run made in the test from synthetic
# captures with known parameters (RSS = 310 MiB + 1.48 x accounted, Gaussian
# noise of sd 16 MiB, accounted 0.25-4.25 GiB, 150 captures): the true base
# and slope lie within the printed 95 % intervals, the intervals are narrow,
# the residual deviation is near the noise's, the prediction at the
# captured limit is said; and the refusals.
. "$(dirname "$0")/lib.sh"

DB=$T/f.db
S=$T/caps; mkdir "$S"
# awk's rand() with a fixed seed: the same noise every run; Box-Muller
awk -v dir="$S" 'BEGIN {
  srand(42); pi = atan2(0, -1); mib = 1048576
  for (i = 0; i < 150; i++) {
    t = 1764620000 + 10 * i
    acc = int((256 + 4096 * rand()) * mib)
    u1 = rand(); if (u1 < 1e-12) u1 = 1e-12
    noise = sqrt(-2 * log(u1)) * cos(2 * pi * rand()) * 16 * mib
    rss_kib = int((310 * mib + 1.48 * acc + noise) / 1024)
    f = dir "/" t "-cache_status.json"
    printf "{\n    \"pool\": {\n        \"items\": %.0f,\n        \"bytes\": %.0f\n    }\n}\n", int(acc / 600), acc > f; close(f)
    f = dir "/" t "-proc_status.txt"
    printf "Name:\tceph-mds\nVmHWM:\t%8.0f kB\nVmRSS:\t%8.0f kB\n", rss_kib, rss_kib > f; close(f)
  }
  f = dir "/1764620000-config_get.json"
  printf "{\n    \"mds_cache_memory_limit\": \"17179869184\"\n}\n" > f }'
expect_status 0 "import synthetic captures" "$RSSIM" observe import "$S" -o "$DB"
expect_status 0 "fit" "$RSSIM" fit 1 --db "$DB"
stdout_has "sentence" "^RSS = [0-9.]* MiB (±[0-9.]* MiB) + 1\.[0-9]* × accounted (±0\.[0-9]*); residual σ"
stdout_has "at the captured limit" "^at mds_cache_memory_limit 16.00 GiB: RSS ≈ 2[0-9].[0-9]* GiB"
stdout_has "extrapolation said" "beyond the largest accounted observed"
kv() { sed -n "s/.*\b$1=\([-0-9.e+]*\).*/\1/p" "$T/out" | tail -1; }
base=$(kv base_bytes) base_ci=$(kv base_ci_bytes) k=$(kv k) k_ci=$(kv k_ci) sigma=$(kv sigma_bytes)
within() { awk -v v="$1" -v c="$2" -v w="$3" 'BEGIN { exit !(v - c <= w && c - v <= w) }'; }
check "true base 310 MiB within $base ± $base_ci" within $((310 * 1048576)) "$base" "$base_ci"
check "true slope 1.48 within $k ± $k_ci" within 1.48 "$k" "$k_ci"
check "slope interval narrow ($k_ci)" awk -v c="$k_ci" 'BEGIN { exit !(c > 0 && c < 0.02) }'
check "base interval below 10 MiB ($base_ci)" awk -v c="$base_ci" 'BEGIN { exit !(c > 0 && c < 10 * 1048576) }'
check "residual sd near 16 MiB ($sigma)" within $((16 * 1048576)) "$sigma" $((3 * 1048576))
check "150 samples" [ "$(kv n)" = 150 ]
expect_status 0 "fit --at" "$RSSIM" fit 1 --db "$DB" --at 2G
stdout_has "at accounted 2 GiB" "^at accounted 2048.0 MiB: RSS ≈ 3[0-9][0-9][0-9].[0-9] MiB"
check "no extrapolation inside the range" sh -c "! grep -q beyond \"$T/out\""

# refusals
expect_status 2 "no run" "$RSSIM" fit --db "$DB"
expect_status 2 "bad id" "$RSSIM" fit x --db "$DB"
expect_status 2 "unknown run" "$RSSIM" fit 9 --db "$DB"
stderr_has "names the run" "no run 9"
expect_status 2 "bad --at" "$RSSIM" fit 1 --at lots --db "$DB"
expect_status 2 "missing database" "$RSSIM" fit 1 --db "$T/none.db"
# a steady cache gives no slope
C=$T/flat; mkdir "$C"
for i in 0 1 2; do
  printf '{"pool": {"items": 1, "bytes": 1000}}\n' > "$C/$((1764620000 + i))-cache_status.json"
  printf 'VmRSS:\t%d kB\n' $((5000 + i)) > "$C/$((1764620000 + i))-proc_status.txt"
done
"$RSSIM" observe import "$C" -o "$DB" > /dev/null
expect_status 2 "steady cache refused" "$RSSIM" fit 2 --db "$DB"
stderr_has "says why" "accounted bytes are 1000 in every sample"
# a prediction is refused
"$RSSIM" runs init --db "$DB" > /dev/null
sql "$DB" "INSERT INTO runs(id, kind, status, created_at, version, seed) VALUES (7, 'predicted', 'done', 'now', 'x', 1)"
expect_status 2 "prediction refused" "$RSSIM" fit 7 --db "$DB"
stderr_has "says to fit observed runs" "is a prediction"
finish
