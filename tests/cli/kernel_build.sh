#!/bin/bash
# kernel_build.sh — `rssim gen kernel-build` from the command line: -h lists
# the options, a tiny listing gives a text trace and the summary line on
# stderr, the shipped listings are found from any directory, and a malformed
# listing line exits 2 with "FILE:LINE: what" and leaves no output.
# (tests/test_kernel_build.c checks the trace itself.)
# Run by ctest as: bash kernel_build.sh RSSIM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh"
cd "$T"

expect_status 0 "help" "$RSSIM" gen kernel-build -h
stdout_has "help lists --clients" "--clients"
stdout_has "help lists --tree" "--tree"

printf 'path\tsize\ttype\nd\t0\td\nd/a.c\t10\tf\n' > tree.tsv
printf 'path\tsize\ttype\tphase\nd/.a.o.cmd\t3000\tf\tbuild\nd/a.o\t5\tf\tbuild\n' > outs.tsv
expect_status 0 "tiny listing" "$RSSIM" gen kernel-build --tree tree.tsv --outputs outs.tsv \
  --clients 2 --builds 2 --seed 3 -o small.tsv
stderr_has "summary" "records, 4 streams (2 clients x 2 builds), peak"
check "text trace header" grep -q "daemon=mds" small.tsv

expect_status 0 "shipped listing from another directory" "$RSSIM" gen kernel-build \
  --clients 1 --builds 1 --events 1000 -o first.bin
stderr_has "capped at --events" "^rssim gen kernel-build: 1000 records"

printf 'path\tsize\ttype\nd\t0\td\nd/a.c\tten\tf\n' > bad.tsv
expect_status 2 "malformed listing line" "$RSSIM" gen kernel-build --tree bad.tsv \
  --outputs outs.tsv -o bad.bin
stderr_has "FILE:LINE" "bad.tsv:3: bad size 'ten'"
check "no output after an error" test ! -e bad.bin -a ! -e bad.bin.tmp

expect_status 2 "bad option value" "$RSSIM" gen kernel-build --clients 0 -o x.bin
stderr_has "names the key" "clients"
finish
