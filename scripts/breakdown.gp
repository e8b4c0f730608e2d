# breakdown.gp — where one run's RSS goes, stacked over virtual time, from
# the bottom: what the daemon counts (accounted), what its objects cause
# but it does not count (untracked containers), size-class rounding
# (allocated - requested), free objects held in thread/central caches,
# allocator metadata, free-but-resident pages (fragmentation: resident -
# allocated - caches - metadata), and memory outside the cache (base).
# The top of the stack is rss_bytes; the dashed line is the limit.
# The key sits below the plot (never past its right edge), its entries in
# the stack's order read top to bottom: column by column, the top band
# first.  bytes_max (from rssim) sets the unit: GiB from 10 GiB, MiB below.
#
# Called by `rssim plot breakdown` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'" breakdown.gp
# datafile: the same per-sample file as timeseries.gp (columns by name).

if (!exists("datafile") || !exists("out")) {
    print "breakdown.gp: set datafile and out with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("bytes_max")) bytes_max = 0

if (term eq 'svg') {
    set terminal svg size 1100,700 dynamic font 'DejaVu Sans,13' background rgb 'white' noenhanced
} else {
    set terminal pngcairo size 1200,760 font 'DejaVu Sans,12' noenhanced
}
if (term eq 'dumb') {
    set terminal dumb size 100,32 noenhanced
}
set output out
set datafile columnheaders
set encoding utf8

big = bytes_max >= 10 * 1073741824.0
MiB = big ? 1073741824.0 : 1048576.0
unit = big ? 'GiB' : 'MiB'
t_s(c) = column('t_ns') / 1e9
pos(x) = x > 0 ? x : 0
# cumulative tops of the stack, in the unit
acc(c) = column('accounted_bytes') / MiB
unt(c) = acc(0) + column('untracked_bytes') / MiB
rnd(c) = unt(0) + pos(column('allocated_bytes') - column('requested_bytes')) / MiB
cch(c) = rnd(0) + column('cached_bytes') / MiB
met(c) = cch(0) + column('metadata_bytes') / MiB
frg(c) = met(0) + pos(column('resident_bytes') - column('allocated_bytes') - column('cached_bytes') - column('metadata_bytes')) / MiB
bas(c) = frg(0) + column('base_bytes') / MiB

set title title
set xlabel 'virtual time (s)'
set ylabel sprintf('memory (%s)', unit)
set grid lc rgb '#dddddd' front
set border 3
set tics nomirror
set yrange [0:*]
set xrange [0:*]
set offsets 0, 0, graph 0.05, 0
set bmargin 11
set key below center vertical Left reverse maxrows 4 samplen 3 width 2 \
    title 'top of the stack first (read down each column)' box lc rgb 'gray70'
set style fill solid 0.85 noborder

plot datafile using (t_s(0)):(bas(0)) with filledcurves x1 lc rgb '#7f7f7f' title 'base', \
     '' using (t_s(0)):(frg(0)) with filledcurves x1 lc rgb '#d62728' title 'free but resident (fragmentation)', \
     '' using (t_s(0)):(met(0)) with filledcurves x1 lc rgb '#9467bd' title 'allocator metadata', \
     '' using (t_s(0)):(cch(0)) with filledcurves x1 lc rgb '#8c564b' title 'thread/central caches', \
     '' using (t_s(0)):(rnd(0)) with filledcurves x1 lc rgb '#ff7f0e' title 'size-class rounding', \
     '' using (t_s(0)):(unt(0)) with filledcurves x1 lc rgb '#2ca02c' title 'untracked containers', \
     '' using (t_s(0)):(acc(0)) with filledcurves x1 lc rgb '#1f77b4' title 'accounted (mempool)', \
     '' using (t_s(0)):(column('limit_bytes') / MiB) with lines lw 2 dt 2 lc rgb 'black' title 'limit'
