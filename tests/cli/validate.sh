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

# sampling and scale: --samples N spreads N samples over the trace, a short
# run warns, the units follow the numbers, rss and peak errors are printed
expect_status 0 "validate --samples 50" "$RSSIM" validate "$T/large.bin" --alloc jemalloc --samples 50 --db "$T/s.db"
m=$(sql "$T/s.db" "select max(id) from runs where kind='measured'")
n=$(sql "$T/s.db" "select count(*) from samples where run_id=$m")
check "--samples 50 gives 50 samples (got $n)" test "$n" -ge 49 -a "$n" -le 51
check "no warning with 50 samples" sh -c "! grep -q warning '$T/err'"
stdout_has "rss error printed" '^rss_bytes '
stdout_has "peak column" 'peak pred'
check "peak error stored" test -n "$(sql "$T/s.db" "select value from metrics where run_id=$m and name='validate_rss_peak_error_pct'")"
expect_status 0 "validate --sample-interval" "$RSSIM" validate "$T/large.bin" --alloc glibc --sample-interval 20ms --db "$T/s.db"
stdout_has "interval shown" 'one every 20 ms'
expect_status 0 "gen tiny" "$RSSIM" gen alloc --pattern churn --count 40 --steps 100 --size-min 32 --size-max 512 --gap 1ms --seed 4 -o "$T/tiny.bin"
expect_status 0 "validate tiny, default interval" "$RSSIM" validate "$T/tiny.bin" --alloc tcmalloc --db "$T/s.db"
stderr_has "few samples warned" 'warning: only [0-9]* samples compared'
expect_status 0 "validate tiny, --samples 30" "$RSSIM" validate "$T/tiny.bin" --alloc tcmalloc --samples 30 --db "$T/s.db"
check "a few KiB in KiB" awk '/^ +% err/ { exit !($NF == "KiB") }' "$T/out"
expect_status 2 "--samples and --sample-interval" "$RSSIM" validate "$T/tiny.bin" --alloc glibc --samples 30 --sample-interval 1ms --db "$T/s.db"
expect_status 2 "--samples and --set sample_interval" "$RSSIM" validate "$T/tiny.bin" --alloc glibc --samples 30 --set sample_interval=1ms --db "$T/s.db"
stderr_has "both named" 'sample_interval=1ms and --samples'
expect_status 2 "--samples 1" "$RSSIM" validate "$T/tiny.bin" --alloc glibc --samples 1 --db "$T/s.db"
printf '#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n0\tMALLOC\t1\t64\t0\t0\n5\tFREE\t1\t0\t0\t0\n' > "$T/short.tsv"
expect_status 2 "--samples beyond the trace's span" "$RSSIM" validate "$T/short.tsv" --alloc glibc --samples 30 --db "$T/s.db"
stderr_has "span named" 'too short for that many samples'

# bad uses
expect_status 2 "unknown allocator" "$RSSIM" validate "$T/large.bin" --alloc mimalloc --db "$T/v.db"
expect_status 0 "gen kv" "$RSSIM" gen kv --keys 100 --events 1000 -o "$T/kv.bin"
expect_status 2 "kv trace without preset" "$RSSIM" validate "$T/kv.bin" --alloc glibc --db "$T/v.db"
stderr_has "needs a preset" "needs --preset"
finish
