# validate: the allocator models against the real allocators on raw alloc
# traces (docs/validation.md's fragmentation experiment at 200k objects, a burst then idle, large
# objects), each within the issue's bar: steady-state resident error <= 5 %
# and mean per-sample error <= 10 %.  Also the stored runs, the metrics and
# the plot.  Real replays cannot be measured under AddressSanitizer (it owns
# malloc), so an ASan build skips them, saying so.
. "$(dirname "$0")/lib.sh"

REAL=$(dirname "$RSSIM")/rssim-real
if ldd "$REAL" 2>/dev/null | grep -q asan; then
  echo "skip: rssim-real is an AddressSanitizer build (malloc is ASan's)"
  expect_status 2 "validate needs --alloc" "$RSSIM" validate "$T/x.bin"
  finish
  exit $?
fi

expect_status 0 "gen free-random" "$RSSIM" gen alloc --pattern free-random --count 200000 --seed 1 -o "$T/free-random.bin"
expect_status 0 "gen free-oldest" "$RSSIM" gen alloc --pattern free-oldest --count 200000 --seed 1 -o "$T/free-oldest.bin"
expect_status 0 "gen burst-idle" "$RSSIM" gen alloc --pattern burst-idle --count 100000 --size-min 32 --size-max 4K --idle 2s --seed 2 -o "$T/burst-idle.bin"
expect_status 0 "gen large" "$RSSIM" gen alloc --pattern churn --count 100 --steps 2000 --size-min 64K --size-max 4M --gap 100us --seed 3 -o "$T/large.bin"

for t in free-random free-oldest burst-idle large; do
  for a in glibc jemalloc tcmalloc; do
    expect_status 0 "validate $t $a" "$RSSIM" validate "$T/$t.bin" --alloc $a --set sample_interval=10ms --db "$T/v.db"
    read -r mean max steady < <(awk '$1 == "resident_bytes" { gsub("%", ""); print $2, $3, $4 }' "$T/out")
    check "$t $a: steady resident error ${steady}% <= 5%" awk -v v="$steady" 'BEGIN { exit !(v != "" && v <= 5) }'
    check "$t $a: mean resident error ${mean}% <= 10%" awk -v v="$mean" 'BEGIN { exit !(v != "" && v <= 10) }'
  done
done

m=$(sql "$T/v.db" "select max(id) from runs where kind='measured'")
p=$(sql "$T/v.db" "select value from metrics where run_id=$m and name='predicted_run_id'")
check "measured run names its predicted run" test "$(sql "$T/v.db" "select kind from runs where id=${p%.*}")" = predicted
check "error metrics stored" test -n "$(sql "$T/v.db" "select value from metrics where run_id=$m and name='validate_resident_steady_error_pct'")"
expect_status 0 "plot validate" "$RSSIM" plot validate --db "$T/v.db" --run "$m" -o "$T/v.png"
check "validate png" test "$(wc -c < "$T/v.png")" -gt 10240
expect_status 2 "plot validate of a predicted run" "$RSSIM" plot validate --db "$T/v.db" --run "${p%.*}" -o "$T/x.png"

# bad uses
expect_status 2 "unknown allocator" "$RSSIM" validate "$T/large.bin" --alloc mimalloc --db "$T/v.db"
expect_status 0 "gen kv" "$RSSIM" gen kv --keys 100 --events 1000 -o "$T/kv.bin"
expect_status 2 "kv trace without preset" "$RSSIM" validate "$T/kv.bin" --alloc glibc --db "$T/v.db"
stderr_has "needs a preset" "needs --preset"
finish
