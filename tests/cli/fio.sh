# fio: `rssim gen fio` from the command line: its help, the replay note on
# stderr (fio's iodepth cannot travel in the trace), a trace whose counts
# `trace stats` confirms (one pass over each job's file, whole objects per
# job), and a bad option refused with exit 2 and no output left.  Replayed
# without the closed loop, every record is at t 0: the run is a burst, said
# on stderr and stored as burst_records_count; with it, neither.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

expect_status 0 "gen fio -h" "$RSSIM" gen fio -h
stdout_has "help names rw" "--rw STR"
stdout_has "help names iodepth" "client_iodepth"
expect_status 0 "gen -h lists fio" "$RSSIM" gen -h
stdout_has "gen -h lists fio" "fio "

# 3 jobs x (12M / 64K = 192 blocks), one pass each; a 12M file is 3 objects
expect_status 0 "gen fio" "$RSSIM" gen fio --rw randwrite --bs 64K --size 12M --numjobs 3 --iodepth 16 --seed 4 -o f.tsv.gz
stderr_has "replay note" "rssim gen fio: 576 records; replay with --set client_iodepth=16"
expect_status 0 "stats" "$RSSIM" trace stats f.tsv.gz
stat_is daemon osd
stat_is compression gzip
stat_is records 576
stat_is op_WRITE 576
stat_is distinct_keys 9
stat_is bytes_total 37748736
stat_is t_last_ns 0
expect_status 0 "same seed, same bytes" "$RSSIM" gen fio --rw randwrite --bs 64K --size 12M --numjobs 3 --iodepth 16 --seed 4 -o g.tsv.gz
check "deterministic" cmp -s f.tsv.gz g.tsv.gz

expect_status 0 "open-loop replay" "$RSSIM" replay f.tsv.gz --preset osd-pacific --db b.db
stderr_has "burst said" "run 1: all 576 records of f.tsv.gz are at one time (t_ns 0)"
stderr_has "the way out named" "--set client_iodepth=D"
check "burst stored" test "$(sql b.db "select cast(value as int) from metrics where run_id=1 and name='burst_records_count'")" = 576
expect_status 0 "closed-loop replay" "$RSSIM" replay f.tsv.gz --preset osd-pacific --set client_iodepth=16 --db b.db
check "no burst note when paced" sh -c '! grep -q burst "$1"' _ "$T/err"
check "no burst metric when paced" test "$(sql b.db "select count(*) from metrics where run_id=2 and name='burst_records_count'")" = 0
# any daemon: a kv trace whose records share one time is a burst too
{ printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '5\tSET\t1\t100\t0\t0\n5\tSET\t2\t100\t0\t0\n'; } > kv1.tsv
expect_status 0 "kv burst" "$RSSIM" replay kv1.tsv --preset kv-small --db b.db
stderr_has "kv burst said" "run 3: all 2 records of kv1.tsv are at one time (t_ns 5)"
{ printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '5\tSET\t1\t100\t0\t0\n6\tSET\t2\t100\t0\t0\n'; } > kv2.tsv
expect_status 0 "kv over time" "$RSSIM" replay kv2.tsv --preset kv-small --db b.db
check "no note for records over time" sh -c '! grep -q burst "$1"' _ "$T/err"

expect_status 2 "bad rw" "$RSSIM" gen fio --rw randtrim -o bad.bin
stderr_has "bad rw named" "bad value 'randtrim' for key 'rw'"
expect_status 2 "bad zipf" "$RSSIM" gen fio --random-distribution zipf:-1 -o bad.bin
check "no output from refused runs" test ! -e bad.bin -a ! -e bad.bin.tmp

finish
