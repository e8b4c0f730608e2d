# import: `rssim trace import` of block traces.  A small MSR-Cambridge CSV
# (hand-made rows in the published column order) and a start_block list
# round trip through `rssim trace stats` and `trace convert` with counts,
# times, keys and splits worked out by hand; a gzip input reads the same;
# one bad file per validation rule exits 2 with "rssim: FILE:LINE:" and
# leaves neither OUT nor OUT.tmp behind.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

expect_status 0 "import -h" "$RSSIM" trace import -h
stdout_has "import -h names the formats" "--from msr"
expect_status 0 "trace -h lists import" "$RSSIM" trace -h
stdout_has "trace -h lists import" "rssim trace import"

# --- a good MSR file: 4 I/Os, the second crosses the 4 MiB boundary
# (4190208 = 4 MiB - 4096, 8192 bytes long), two share a timestamp
cat > msr.csv <<'EOF'
128166372003061629,hm,1,Read,383496192,32768,1421
128166372003071629,hm,1,Write,4190208,8192,200
128166372003081629,hm,1,Read,0,512,10
128166372003081629,hm,1,Write,8388608,4096,10
EOF
expect_status 0 "msr import" "$RSSIM" trace import --from msr msr.csv -o msr.bin
stdout_has "msr import summary" "4 I/Os (2 reads, 2 writes) as 5 records from 4 lines"
expect_status 0 "msr stats" "$RSSIM" trace stats msr.bin
stat_is daemon osd
stat_is records 5
stat_is t_first_ns 0
stat_is t_last_ns 2000000          # (81629 - 61629) filetime ticks of 100 ns
stat_is op_READ 2
stat_is op_WRITE 3                 # the boundary-crossing write is 2 records
stat_is distinct_keys 4            # objects 91, 0, 1, 2
stat_is bytes_total 45568
expect_status 0 "msr to text" "$RSSIM" trace convert msr.bin msr.tsv
check "msr row 1: object 91 at 1814528" grep -qP '^0\tREAD\t91\t32768\t0\t1814528$' msr.tsv
check "msr split, first piece" grep -qP '^1000000\tWRITE\t0\t4096\t0\t4190208$' msr.tsv
check "msr split, second piece" grep -qP '^1000000\tWRITE\t1\t4096\t0\t0$' msr.tsv
check "msr last row" grep -qP '^2000000\tWRITE\t2\t4096\t0\t0$' msr.tsv

# a header line, CR LF line ends and gzip give the same trace
{ printf 'Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\r\n'; sed 's/$/\r/' msr.csv; } | gzip -c > msr2.csv.gz
expect_status 0 "msr gzip import" "$RSSIM" trace import --from msr msr2.csv.gz -o msr2.bin
check "gzip, header and CR LF: same bytes" cmp -s msr.bin msr2.bin
# a smaller object size splits more
# (32768 at 12288 into a 16K object: 3 pieces; the write 2; the others 1)
expect_status 0 "msr 16K objects" "$RSSIM" trace import --from msr msr.csv -o msr16k.tsv --object-size 16K
check "16K objects: 7 records" test "$(grep -c -P '^\d' msr16k.tsv)" = 7

# --- a good blocks list: 512-byte blocks, an op column, a comment
cat > blocks.txt <<'EOF'
# start_block nblocks [R|W]
0 8
8192	16 W

100 1 r
EOF
expect_status 0 "blocks import" "$RSSIM" trace import --from blocks blocks.txt -o b.tsv --interval 1ms
check "blocks row 1" grep -qP '^0\tREAD\t0\t4096\t0\t0$' b.tsv
check "blocks row 2: block 8192 x 512 = object 1" grep -qP '^1000000\tWRITE\t1\t8192\t0\t0$' b.tsv
check "blocks row 3" grep -qP '^2000000\tREAD\t0\t512\t0\t51200$' b.tsv
expect_status 0 "blocks closed loop, 4K blocks" "$RSSIM" trace import --from blocks blocks.txt -o b0.tsv --block-size 4K
check "closed loop: every t_ns 0" test "$(grep -c -P '^0\t' b0.tsv)" = 3
check "4K blocks: block 8192 is object 8" grep -qP '^0\tWRITE\t8\t65536\t0\t0$' b0.tsv

# --- bad input: exit 2, "rssim: FILE:LINE: what", no output left
bad_input() { # bad_input FORMAT FILE LINE MESSAGE
  local from=$1 file=$2 line=$3 msg=$4
  expect_status 2 "$file" "$RSSIM" trace import --from "$from" "$file" -o "res/$file.bin"
  if head -n 1 "$T/err" | grep -q "^rssim: $file:$line: "; then ok; else bad "$file: stderr '$(cat "$T/err")' lacks '$file:$line:'"; fi
  stderr_has "$file message" "$msg"
  check "$file: no output" test ! -e "res/$file.bin"
  check "$file: no temporary" test ! -e "res/$file.bin.tmp"
}
good='128166372003061629,hm,1,Read,4096,4096,10'
printf '%s\n128166372003061630,hm,1,Read,-512,4096,10\n' "$good" > msr_neg.csv
bad_input msr msr_neg.csv 2 "negative Offset '-512'"
printf '%s\n%s\n128166372003061630,hm,1,Write,512,0,10\n' "$good" "$good" > msr_zero.csv
bad_input msr msr_zero.csv 3 "zero length"
printf '%s\n128166372003061630,hm,1,Trim,512,4096,10\n' "$good" > msr_op.csv
bad_input msr msr_op.csv 2 "unknown op 'Trim'"
printf '128166372003061630,hm,1,Read,512,4096\n' > msr_fields.csv
bad_input msr msr_fields.csv 1 "wrong field count: 6 fields, expected 7"
printf '%s\n128166372003061630,hm,1,Read,512,4k,10\n' "$good" > msr_num.csv
bad_input msr msr_num.csv 2 "non-numeric Size '4k'"
printf '%s\n128166372003061628,hm,1,Read,512,4096,10\n' "$good" > msr_back.csv
bad_input msr msr_back.csv 2 "time goes backwards"
printf '%s\n%s\n9999999999999999999,hm,1,Read,512,4096,10\n' "$good" "$good" > msr_big.csv
bad_input msr msr_big.csv 3 "out of range"
printf '0 8\n-4 8\n' > blk_neg.txt
bad_input blocks blk_neg.txt 2 "negative start_block '-4'"
printf '0 8\n\n16 0 W\n' > blk_zero.txt
bad_input blocks blk_zero.txt 3 "zero length"
printf '0 8 T\n' > blk_op.txt
bad_input blocks blk_op.txt 1 "unknown op 'T'"
printf '0 8 R extra\n' > blk_fields.txt
bad_input blocks blk_fields.txt 1 "wrong field count: 4 fields"
printf '0x10 8\n' > blk_num.txt
bad_input blocks blk_num.txt 1 "non-numeric start_block '0x10'"
printf '# nothing\n' > blk_empty.txt
bad_input blocks blk_empty.txt 1 "no I/O"
head -c 5000 /dev/zero | tr '\0' 7 > blk_long.txt
bad_input blocks blk_long.txt 1 "line too long"
gzip -c msr.csv | head -c 60 > msr_cut.csv.gz
bad_input msr msr_cut.csv.gz 1 "gzip"

# usage errors
expect_status 2 "missing file" "$RSSIM" trace import --from msr none.csv -o x.bin
stderr_has "missing file named" "none.csv"
expect_status 2 "unknown format" "$RSSIM" trace import --from spc msr.csv -o x.bin
stderr_has "unknown format named" "unknown trace format 'spc' to import (known: msr, blocks, oracleGeneral, csv, txt, mtrace, strace)"
expect_status 2 "no --from" "$RSSIM" trace import msr.csv -o x.bin
expect_status 2 "no -o" "$RSSIM" trace import --from msr msr.csv
expect_status 2 "bad object size" "$RSSIM" trace import --from msr msr.csv -o x.bin --object-size 8G
expect_status 2 "block size for msr" "$RSSIM" trace import --from msr msr.csv -o x.bin --block-size 4K
check "no output from usage errors" test ! -e x.bin

finish
