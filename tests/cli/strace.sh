#!/bin/bash
# strace.sh — `rssim trace import --from strace` and scripts/record-fs-workload.
#  1. a hand-written strace file (mkdir, create, fork, chdir, rename, an
#     <unfinished ...>/<... resumed> pair, dup2, unlink, rmdir, a process
#     outside the root) imports to the records worked out by hand;
#  2. a real build recorded here: a Makefile compiling generated C files with
#     gcc under `make -j2` into obj/, a listing of what it built, then
#     `make clean`.  The trace is checked against counts taken outside it:
#     the workload's CREATEs are the files the build left (the listing), its
#     UNLINKs are the same inodes, obj/ is one MKDIR and one RMDIR, client 0
#     made exactly the files that were there before; it replays with
#     --preset mds-pacific without a bad record and with cached inodes;
#  3. bad input exits 2 naming FILE:LINE and the field, and leaves no OUT.
# Run by ctest as: bash strace.sh RSSIM_BINARY SOURCE_DIR
source "$(dirname "$0")/lib.sh"

for tool in strace gcc make; do
  command -v $tool >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup installs it)"; exit 1; }
done

# --- 1. by hand -------------------------------------------------------------
cat > "$T/hand.strace" <<'EOF'
100 10:00:00.000000 openat(AT_FDCWD</w>, "d", O_RDONLY|O_DIRECTORY) = -1 ENOENT (No such file or directory)
100 10:00:00.000001 mkdir("d", 0777) = 0
100 10:00:00.000002 openat(AT_FDCWD</w>, "d/a", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/d/a>
100 10:00:00.000003 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101
101 10:00:00.000004 chdir("d") = 0
101 10:00:00.000005 rename("a", "b") = 0
101 10:00:00.000006 stat("b", {st_mode=S_IFREG|0644, st_size=0, ...}) = 0
101 10:00:00.000007 +++ exited with 0 +++
100 10:00:00.000008 close(3</w/d/b>) = 0
100 10:00:00.000008 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 10:00:00.000009 openat(AT_FDCWD</w>, "d/b", O_RDONLY <unfinished ...>
102 10:00:00.000010 unlink("/elsewhere/x") = 0
100 10:00:00.000011 <... openat resumed>) = 4</w/d/b>
100 10:00:00.000012 dup2(4</w/d/b>, 5) = 5
100 10:00:00.000013 close(4</w/d/b>) = 0
100 10:00:00.000014 close(5</w/d/b>) = 0
100 10:00:00.000015 unlinkat(AT_FDCWD</w>, "d/b", 0) = 0
100 10:00:00.000016 unlinkat(AT_FDCWD</w>, "d", AT_REMOVEDIR) = 0
100 10:00:00.000017 exit_group(0) = ?
100 10:00:00.000017 +++ exited with 0 +++
EOF
# root /w is inode 1; d is 2, a (renamed b) is 3; one client (the default)
{
  printf '#rssim-trace\tv1\tdaemon=mds\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '0\tGETATTR\t1\t0\t1\t0\n'    # open of a missing d: the root searched
  printf '1000\tMKDIR\t2\t1\t1\t1\n'
  printf '2000\tCREATE\t3\t2\t1\t1\n'  # O_CREAT: no OPEN, so no CLOSE later
  printf '4000\tLOOKUP\t2\t1\t1\t1\n'  # the child's chdir
  printf '4000\tGETATTR\t2\t0\t1\t0\n'
  printf '5000\tUNLINK\t3\t2\t1\t1\n'  # rename a -> b: same inode, new dentry
  printf '5000\tCREATE\t3\t2\t1\t1\n'
  printf '6000\tLOOKUP\t3\t2\t1\t1\n'
  printf '6000\tGETATTR\t3\t0\t1\t0\n'
  printf '11000\tLOOKUP\t3\t2\t1\t1\n' # the resumed open, at the resumed line's time
  printf '11000\tOPEN\t3\t0\t1\t0\n'
  printf '14000\tCLOSE\t3\t0\t1\t0\n'  # the last of fds 4 and 5
  printf '15000\tUNLINK\t3\t2\t1\t1\n'
  printf '16000\tRMDIR\t2\t1\t1\t1\n'
} > "$T/hand.want"
expect_status 0 "hand import" "$RSSIM" trace import --from strace "$T/hand.strace" -o "$T/hand.tsv"
stdout_has "hand summary" "14 records (0 by client 0, the tree before the recording) from 16 calls (10 under the root) of 3 processes on 20 lines"
check "hand records as worked out" cmp -s "$T/hand.tsv" "$T/hand.want"
[ -s "$T/hand.tsv" ] && ! cmp -s "$T/hand.tsv" "$T/hand.want" && diff "$T/hand.want" "$T/hand.tsv" | head -20 >&2
# 300 processes alive at once (the pid table starts at 64 slots and grows
# by doubling, rehashing the live pids): each is found again for its
# mkdir and its exit, so the import sees 301 processes, not more
{
  echo '100 10:00:00.000000 mkdir("/w/p", 0777) = 0'
  for i in $(seq 1000 1299); do echo "100 10:00:00.000001 clone(child_stack=NULL, flags=SIGCHLD) = $i"; done
  for i in $(seq 1000 1299); do echo "$i 10:00:00.000002 mkdir(\"/w/p/d$i\", 0777) = 0"; done
  for i in $(seq 1299 -1 1000); do echo "$i 10:00:00.000003 +++ exited with 0 +++"; done
  for i in $(seq 1000 1299); do echo "100 10:00:00.000004 rmdir(\"/w/p/d$i\") = 0"; done
} > "$T/many.strace"
expect_status 0 "many processes" "$RSSIM" trace import --from strace "$T/many.strace" -o "$T/many.tsv" --root /w
stdout_has "many processes" "of 301 processes"
check "many processes: 301 MKDIR, 300 RMDIR" \
  test "$(grep -c MKDIR "$T/many.tsv")/$(grep -c RMDIR "$T/many.tsv")" = 301/300
# a path client 0 made as a file (access gives no mode) that turns out a
# folder is made again as one, same inode, before anything goes in it
printf '100 10:00:00.000000 access("/w/sub", F_OK) = 0\n100 10:00:00.000001 stat("/w/sub/f", {st_mode=S_IFREG|0644, st_size=0, ...}) = 0\n' \
  > "$T/retype.strace"
{
  printf '#rssim-trace\tv1\tdaemon=mds\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '0\tCREATE\t2\t1\t0\t3\n0\tLOOKUP\t2\t1\t1\t3\n0\tGETATTR\t2\t0\t1\t0\n'
  printf '1000\tUNLINK\t2\t1\t0\t3\n1000\tMKDIR\t2\t1\t0\t3\n'
  printf '1000\tCREATE\t3\t2\t0\t1\n1000\tLOOKUP\t3\t2\t1\t1\n1000\tGETATTR\t3\t0\t1\t0\n'
} > "$T/retype.want"
expect_status 0 "retype import" "$RSSIM" trace import --from strace "$T/retype.strace" -o "$T/retype.tsv" --root /w
check "a file that is a folder is made again as one" cmp -s "$T/retype.tsv" "$T/retype.want"
expect_status 0 "retype replays" "$RSSIM" replay "$T/retype.tsv" --preset mds-pacific --strict --db "$T/rt.db"
# strace writing to stderr: no pid while one process runs, then [pid N];
# the parent's own first [pid] line is the one resuming its clone
cat > "$T/stderr.strace" <<'EOF'
10:00:00.000000 chdir("/w") = 0
10:00:00.000001 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>
[pid   124] 10:00:00.000002 mkdir("c", 0777) = 0
[pid   123] 10:00:00.000003 <... clone resumed>) = 124
[pid   123] 10:00:00.000004 mkdir("p", 0777) = 0
[pid   124] 10:00:00.000005 +++ exited with 0 +++
10:00:00.000006 rmdir("p") = 0
10:00:00.000007 rename("/w/c", "/w/c/x") = -1 EINVAL (Invalid argument)
EOF
{
  printf '#rssim-trace\tv1\tdaemon=mds\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '0\tGETATTR\t1\t0\t1\t0\n2000\tMKDIR\t2\t1\t2\t1\n4000\tMKDIR\t3\t1\t1\t1\n6000\tRMDIR\t3\t1\t1\t1\n'
} > "$T/stderr.want"
expect_status 0 "stderr-mode import" "$RSSIM" trace import --from strace "$T/stderr.strace" -o "$T/stderr.tsv" \
  --root /w --clients pid
check "stderr mode: the child is client 2, the unprefixed parent client 1" cmp -s "$T/stderr.tsv" "$T/stderr.want"
# --root elsewhere: nothing of it is under the root
expect_status 2 "root outside" "$RSSIM" trace import --from strace "$T/hand.strace" -o "$T/none.tsv" --root /srv
stderr_has "root outside" "hand.strace:20: no file system call under the root '/srv'"
# options other importers read are refused, and the reverse
expect_status 2 "strace reads no --object-size" "$RSSIM" trace import --from strace "$T/hand.strace" \
  -o "$T/x.tsv" --object-size 1M
stderr_has "strace reads no --object-size" "reads no --object-size"
printf '0 8\n' > "$T/b.txt"
expect_status 2 "blocks reads no --root" "$RSSIM" trace import --from blocks "$T/b.txt" -o "$T/x.bin" --root /w
stderr_has "blocks reads no --root" "reads no --root"
expect_status 2 "bad --clients" "$RSSIM" trace import --from strace "$T/hand.strace" -o "$T/x.tsv" --clients 0
stderr_has "bad --clients" "bad --clients '0'"

# --- 2. a real build -----------------------------------------------------------
W=$T/w
mkdir -p "$W/src"
for i in $(seq 1 12); do
  printf '#include "common.h"\nint f%d(void) { return K + %d; }\n' "$i" "$i" > "$W/src/f$i.c"
done
printf '#define K 1\n' > "$W/src/common.h"
printf 'int main(void) { return 0; }\n' > "$W/src/main.c"
cat > "$W/Makefile" <<'EOF'
OBJS := $(patsubst src/%.c,obj/%.o,$(wildcard src/*.c))
prog: $(OBJS)
	gcc -o $@ $^
obj/%.o: src/%.c src/common.h | obj
	gcc -c -o $@ $<
obj:
	mkdir -p obj
clean:
	rm -rf obj prog
EOF
printf 'make -j2 && find obj prog -type f > ../built.txt && make clean\n' > "$W/rec.sh"
before=$(cd "$W" && find . -type f | wc -l)   # 13 sources, a header, Makefile, rec.sh
expect_status 0 "record a build" bash -c "cd '$W' && '$SRC/scripts/record-fs-workload' -o '$T/build.strace' \
  --trace '$T/build.tsv' --rssim '$RSSIM' -- sh rec.sh"
stdout_has "record: import summary" "wrote $T/build.tsv: [0-9]* records"
built=$(wc -l < "$T/built.txt")
check "the build made 13 objects and prog ($built)" [ "$built" = 14 ]
check "make clean removed them" [ ! -e "$W/obj" ] && [ ! -e "$W/prog" ]
recs() { awk -F'\t' -v op="$1" -v c="$2" 'NR > 2 && $2 == op && (c == "w" ? $5 != 0 : $5 == 0) { print $3 }' "$T/build.tsv"; }
creates=$(recs CREATE w | sort -u | wc -l)
check "workload CREATEs = files built ($creates, $built)" [ "$creates" = "$built" ]
check "workload UNLINKs the same inodes" [ "$(recs CREATE w | sort -u)" = "$(recs UNLINK w | sort -u)" ]
check "obj/ is one MKDIR and one RMDIR" [ "$(recs MKDIR w)" = "$(recs RMDIR w)" ] && [ "$(recs MKDIR w | wc -l)" = 1 ]
setup=$(recs CREATE 0 | wc -l)
check "client 0 made the files there before ($setup, $before)" [ "$setup" = "$before" ]
check "nothing outside the root: no CREATE of a /tmp file" [ "$(recs CREATE w | wc -l)" = "$built" ]
# same input, same trace
expect_status 0 "import again" "$RSSIM" trace import --from strace "$T/build.strace" -o "$T/again.tsv" \
  --root "$W" --cwd "$W"
check "import is deterministic" cmp -s "$T/build.tsv" "$T/again.tsv"
# clients by process tree: the command's children (make, find, make clean) take 1, 2, 1
expect_status 0 "import --clients 2" "$RSSIM" trace import --from strace "$T/build.strace" -o "$T/c2.tsv" \
  --root "$W" --cwd "$W" --clients 2
check "two clients and client 0" [ "$(awk -F'\t' 'NR > 2 { print $5 }' "$T/c2.tsv" | sort -u | tr '\n' ' ')" = "0 1 2 " ]
expect_status 0 "import --clients pid" "$RSSIM" trace import --from strace "$T/build.strace" -o "$T/cp.tsv" \
  --root "$W" --cwd "$W" --clients pid
procs=$(awk '{ print $1 }' "$T/build.strace" | sort -u | wc -l)
nclients=$(awk -F'\t' 'NR > 2 && $5 != 0 { print $5 }' "$T/cp.tsv" | sort -u | wc -l)
check "--clients pid: at most one client per pid ($nclients <= $procs), more than 2" \
  [ "$nclients" -le "$procs" ] && [ "$nclients" -gt 2 ]

DB=$T/r.db
expect_status 0 "replay mds-pacific" "$RSSIM" replay "$T/build.tsv" --preset mds-pacific --db "$DB"
stdout_has "replay ran" "run [0-9]* done"
m() { sql "$DB" "SELECT value FROM metrics WHERE name = '$1'"; }
check "replay: no bad record ($(m mds_bad_records_count))" [ "$(m mds_bad_records_count)" = 0.0 ]
check "replay: cached inodes > 0 ($(m mds_cached_inodes_count))" \
  awk -v v="$(m mds_cached_inodes_count)" 'BEGIN { exit !(v > 0) }'

# --- 3. bad input ----------------------------------------------------------------
bad_import() { # bad_import NAME "expected stderr" (input in $T/NAME.strace)
  expect_status 2 "$1" "$RSSIM" trace import --from strace "$T/$1.strace" -o "$T/$1.tsv" --root /w
  stderr_has "$1" "$2"
  check "$1: no OUT" [ ! -e "$T/$1.tsv" ] && [ ! -e "$T/$1.tsv.tmp" ]
}
ok_line='100 10:00:00.000000 mkdir("/w/d", 0777) = 0'
printf '%s\n100 10:00:00.000001 openat(AT_FDCWD, "/w/d/a", O_RDONLY = 3\n' "$ok_line" > "$T/noparen.strace"
bad_import noparen "noparen.strace:2: arguments of openat: no closing ')'"
printf '%s\n100 openat(AT_FDCWD, "/w/a", O_RDONLY) = 3\n' "$ok_line" > "$T/notime.strace"
bad_import notime "notime.strace:2: timestamp: expected HH:MM:SS.UUUUUU"
printf '%s\n100 10:00:00.000001 stat("/w/d", 0x1) 0\n' "$ok_line" > "$T/noret.strace"
bad_import noret "noret.strace:2: return value of stat: expected ' = '"
printf '%s\n100 10:00:00.000001 +++ exited with 0\n' "$ok_line" > "$T/noend.strace"
bad_import noend "noend.strace:2: process end: expected"
printf '%s\n100 10:00:00.000001 hello world\n' "$ok_line" > "$T/junk.strace"
bad_import junk "junk.strace:2: syscall: expected 'NAME('"
printf '%s\n100 10:00:00.000001 openat(AT_FDCWD, "/w/d/a", O_RDONLY <unfinished ...>\n101 10:00:00.000002 mkdir("/w/e", 0777) = 0\n' \
  "$ok_line" > "$T/unfinished.strace"
bad_import unfinished "unfinished.strace:2: syscall: 'openat' of pid 100 is <unfinished ...> and never resumed"
printf '%s\n100 10:00:00.000001 <... openat resumed>) = 3\n' "$ok_line" > "$T/resumed.strace"
bad_import resumed "resumed.strace:2: resumed call: 'openat' resumed but pid 100 has no unfinished call"
printf '%s\n100 10:00:00.000001 read(3, <unfinished ...>\n100 10:00:00.000002 <... close resumed>) = 0\n' \
  "$ok_line" > "$T/mismatch.strace"
bad_import mismatch "mismatch.strace:3: resumed call: 'close' resumed but pid 100's unfinished call (line 2) is 'read'"
{ echo "$ok_line"; printf '100 10:00:00.000001 stat("/w/%s", 0x1) = 0\n' "$(head -c 70000 /dev/zero | tr '\0' a)"; } \
  > "$T/long.strace"
bad_import long "long.strace:2: line too long (more than 65535 bytes, RS_STRACE_MAX_LINE)"
printf '%s\n100 1700000000.000001 stat("/w/d", 0x1) = 0\n' "$ok_line" > "$T/clock.strace"
bad_import clock "clock.strace:2: timestamp: -ttt here, -tt on the first line"
printf '%s\n100 10:00:00.000001 close(3) = -1\n' "$ok_line" > "$T/noerr.strace"
bad_import noerr "noerr.strace:2: return value of close: -1 without an error name"
# what strace itself writes besides calls is understood
printf 'strace: Process 100 attached\n%s\n100 10:00:00.000001 --- SIGCHLD {si_signo=SIGCHLD} ---\n100 10:00:00.000002 +++ killed by SIGKILL +++\n' \
  "$ok_line" > "$T/notes.strace"
expect_status 0 "strace notes" "$RSSIM" trace import --from strace "$T/notes.strace" -o "$T/notes.tsv" --root /w
stdout_has "strace notes" "1 records (0 by client 0"
finish
