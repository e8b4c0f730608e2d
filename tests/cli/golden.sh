# golden: the allocator validation table (tests/golden/validation-allocators.csv)
# is whole — at least 8 traces, each measured on glibc, jemalloc and
# tcmalloc, numbers in every column — and docs/validation.md shows exactly
# it (scripts/validate-allocators writes both, on purpose only).  The
# numbers themselves are re-measured, on smaller traces, by validate.sh.
. "$(dirname "$0")/lib.sh"

G=$SRC/tests/golden/validation-allocators.csv
check "golden exists" test -s "$G"
check "golden header" test "$(head -1 "$G")" = "trace,allocator,steady_error_pct,mean_error_pct,max_error_pct"
check "at least 8 traces" test "$(tail -n +2 "$G" | cut -d, -f1 | sort -u | wc -l)" -ge 8
for a in glibc jemalloc tcmalloc; do
  check "every trace on $a" test "$(tail -n +2 "$G" | awk -F, -v a=$a '$2 == a' | wc -l)" = "$(tail -n +2 "$G" | cut -d, -f1 | sort -u | wc -l)"
done
check "numbers in every row" test -z "$(tail -n +2 "$G" | awk -F, 'NF != 5 || $3 !~ /^[0-9.]+$/ || $4 !~ /^[0-9.]+$/ || $5 !~ /^[0-9.]+$/')"
awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$G" > "$T/want"
sed -n '/<!-- allocator table: begin -->/,/<!-- allocator table: end -->/p' "$SRC/docs/validation.md" | grep '^| [a-z]' | grep -v '^| trace ' > "$T/have"
check "docs/validation.md shows the golden table" cmp -s "$T/want" "$T/have"
finish
