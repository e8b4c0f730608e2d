# ceph: a real one-node Pacific cluster (scripts/ceph-local) in a scratch
# folder, a small workload on each daemon (scripts/ceph-measure: an MDS trace
# replayed through libcephfs, fio on an RBD image), the measured runs stored
# through `rssim runs import-measured` with plausible values, the daemons'
# own dumps captured (scripts/capture-observations) and imported (`rssim
# observe import`), then stop, and
# no daemon left.  About 1.5-2 minutes on 2 cores.
# Skipped, saying why, without root, without a usable loopback, or without
# Debian's ceph packages: scripts/setup does not install them (105 packages,
# ~2 minutes more per suite run); RSSIM_TEST_CEPH=1 lets ceph-local install
# them.
. "$(dirname "$0")/lib.sh"

skip() {
  echo "skipped: $*"
  finish
  exit $?
}
[ "$(id -u)" -eq 0 ] || skip "needs root (the daemons, apt-get)"
/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))' 2>/dev/null ||
  skip "no loopback (cannot bind 127.0.0.1)"
installed=1
for p in ceph-mon ceph-mgr ceph-osd ceph-mds ceph-common python3-cephfs python3-rados fio; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || installed=0
done
[ "$installed" = 1 ] || [ "${RSSIM_TEST_CEPH:-}" = 1 ] ||
  skip "Debian's ceph packages are not installed (RSSIM_TEST_CEPH=1 installs them; scripts/ceph-local start does too)"

C=$T/cluster
trap '"$SRC/scripts/ceph-local" stop "$C" >/dev/null 2>&1; rm -rf "$T"' EXIT
# a mon port pair of its own: a cluster may already run on Ceph's 3300/6789
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=0
for _ in $(seq 50); do
  p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  if port_free "$p" && port_free $((p + 1)); then port=$p; break; fi
done
[ "$port" != 0 ] || skip "no free port pair on 127.0.0.1"
limit_mds=$((64 << 20)) target_osd=$((1 << 30))
t0=$(date +%s)
if ! timeout 170 "$SRC/scripts/ceph-local" start "$C" --mon-port "$port" --block-size $((4 << 30)) \
     --mds-cache-memory-limit $limit_mds --osd-memory-target $target_osd --timeout 120 >"$T/up.log" 2>&1; then
  if grep -q "cannot install" "$T/up.log"; then skip "packages not installable: $(tail -1 "$T/up.log")"; fi
  bad "cluster did not come up: $(tail -3 "$T/up.log")"
  tail -5 "$C"/log/ceph-*.log >&2 2>/dev/null
  finish
  exit 1
fi
ok
echo "cluster up in $(($(date +%s) - t0)) s"
pids=$(cat "$C"/run/*.pid)
check "4 daemons" test "$(echo "$pids" | wc -w)" = 4
expect_status 0 "status" "$SRC/scripts/ceph-local" status "$C"
stdout_has "status: HEALTH_OK" "HEALTH_OK"
expect_status 0 "start again: reported, not restarted" "$SRC/scripts/ceph-local" start "$C" --mon-port "$port"
stdout_has "already runs" "already runs"
check "same daemons" test "$(cat "$C"/run/*.pid)" = "$pids"

DB=$T/m.db
plausible() { # plausible RUN LIMIT: samples >= 3, rss > accounted > 0, accounted <= 4 x limit
  local n rss acc
  n=$(sql "$DB" "select count(*) from samples where run_id = $1")
  rss=$(sql "$DB" "select min(rss_bytes > accounted_bytes) from samples where run_id = $1")
  acc=$(sql "$DB" "select max(accounted_bytes) from samples where run_id = $1")
  check "run $1: $n samples >= 3" test "$n" -ge 3
  check "run $1: rss > accounted in every sample" test "$rss" = 1
  check "run $1: accounted $acc > 0" test "$acc" -gt 0
  check "run $1: accounted $acc <= 4 x limit" test "$acc" -le $((4 * $2))
  check "run $1: measured, done" test "$(sql "$DB" "select kind || status from runs where id = $1")" = measureddone
  check "run $1: rss_steady metric" test "$(sql "$DB" "select value > 0 from metrics where run_id = $1 and name = 'rss_steady_bytes'")" = 1
}

# MDS: 3000 records of a kernel-build trace (creates) through libcephfs
"$RSSIM" gen kernel-build --clients 2 --builds 1 --events 3000 -o "$T/kb.tsv" >/dev/null 2>&1
expect_status 0 "measure mds" timeout 60 "$SRC/scripts/ceph-measure" mds "$C" --trace "$T/kb.tsv" \
  --interval 0.5 --mounts 2 --db "$DB" --rssim "$RSSIM" --settle 1
stdout_has "mds: 3000 ops replayed" "3000 ops in"
stdout_has "mds: imported" "run 1 (measured)"
plausible 1 $limit_mds
check "mds: the limit param" test "$(sql "$DB" "select value from params where run_id = 1 and key = 'mds_cache_memory_limit'")" = $limit_mds
check "mds: mds_co as a metric" test "$(sql "$DB" "select value > 0 from metrics where run_id = 1 and name = 'mp_mds_co_peak'")" = 1

# OSD: fio rbd 64K random reads on a prefilled 128 MiB image, 5 s
expect_status 0 "measure osd" timeout 90 "$SRC/scripts/ceph-measure" osd "$C" --trace "$T/fio.tsv" \
  --rw randread --bs 64K --size 128M --prefill --runtime 5 --interval 0.5 --db "$DB" --rssim "$RSSIM"
stdout_has "osd: imported" "run 2 (measured)"
plausible 2 $target_osd
check "osd: its trace written" test "$(head -1 "$T/fio.tsv" | cut -f3)" = "daemon=osd"
check "osd: the target param" test "$(sql "$DB" "select value from params where run_id = 2 and key = 'osd_memory_target'")" = $target_osd
expect_status 0 "runs list" "$RSSIM" runs list --db "$DB"
check "runs list: 2 measured runs" test "$(grep -c ' measured ' "$T/out")" = 2

# the daemons' own dumps: scripts/capture-observations, then rssim observe
# import reads the real Pacific shapes (the fixtures of tests/observe are
# written from Ceph's source; this checks them against the daemons)
ODB=$T/obs.db
expect_status 0 "capture mds" env CEPH_CONF="$C/ceph.conf" "$SRC/scripts/capture-observations" mds.a "$T/cap-mds" --count 2 --interval 0.5
expect_status 0 "import mds capture" "$RSSIM" observe import "$T/cap-mds" -o "$ODB" --daemon mds --release pacific
stdout_has "mds capture: 2 samples" "run 1 (observed): 2 samples from 14 files"
check "mds capture: limit from config get" test "$(sql "$ODB" "select value from params where run_id = 1 and key = 'mds_cache_memory_limit'")" = $limit_mds
check "mds capture: rss > accounted > 0" test "$(sql "$ODB" "select min(rss_bytes > accounted_bytes and accounted_bytes > 0) from samples where run_id = 1")" = 1
expect_status 0 "capture osd" env CEPH_CONF="$C/ceph.conf" "$SRC/scripts/capture-observations" osd.0 "$T/cap-osd" --count 2 --interval 0.5
expect_status 0 "import osd capture" "$RSSIM" observe import "$T/cap-osd" -o "$ODB" --daemon osd --release pacific
stdout_has "osd capture: 2 samples" "run 2 (observed): 2 samples from 10 files"
check "osd capture: limit = meta + data > 0" test "$(sql "$ODB" "select min(limit_bytes > 0 and rss_bytes > accounted_bytes) from samples where run_id = 2")" = 1
expect_status 2 "pacific osd read as reef" "$RSSIM" observe import "$T/cap-osd" -o "$ODB" --daemon osd --release reef
stderr_has "names the pool" "bluestore_cache_buffer"

expect_status 0 "stop" "$SRC/scripts/ceph-local" stop "$C"
left=""
# a pid whose /proc entry vanishes between the two looks (it exited just
# then) is gone, not left: only a readable state other than zombie counts
for p in $pids; do
  state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) || state=
  [ -n "$state" ] && [ "$state" != Z ] && left="$left $p"
done
check "no daemon left after stop:$left" test -z "$left"
expect_status 0 "stop again: nothing to do" "$SRC/scripts/ceph-local" stop "$C"
expect_status 1 "status of a stopped cluster" "$SRC/scripts/ceph-local" status "$C"
echo "ceph test took $(($(date +%s) - t0)) s"
finish
