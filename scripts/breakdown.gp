# breakdown.gp — where one run's RSS goes, stacked over virtual time, from
# the bottom: what the daemon counts (accounted), what its objects cause
# but it does not count (untracked containers), size-class rounding
# (allocated - requested), free objects held in thread/central caches,
# allocator metadata, free-but-resident pages (fragmentation: resident -
# allocated - caches - metadata), and memory outside the cache (base).
# The top of the stack is rss_bytes; the dashed line is the limit.
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

if (term eq 'svg') {
    set terminal svg size 1100,650 dynamic font 'DejaVu Sans,13' background rgb 'white' noenhanced
} else {
    set terminal pngcairo size 1200,700 font 'DejaVu Sans,12' noenhanced
}
if (term eq 'dumb') {
    set terminal dumb size 100,32 noenhanced
}
set output out
set datafile columnheaders
set encoding utf8

MiB = 1048576.0
t_s(c) = column('t_ns') / 1e9
pos(x) = x > 0 ? x : 0
# cumulative tops of the stack, in MiB
acc(c) = column('accounted_bytes') / MiB
unt(c) = acc(0) + column('untracked_bytes') / MiB
rnd(c) = unt(0) + pos(column('allocated_bytes') - column('requested_bytes')) / MiB
cch(c) = rnd(0) + column('cached_bytes') / MiB
met(c) = cch(0) + column('metadata_bytes') / MiB
frg(c) = met(0) + pos(column('resident_bytes') - column('allocated_bytes') - column('cached_bytes') - column('metadata_bytes')) / MiB
bas(c) = frg(0) + column('base_bytes') / MiB

set title title
set xlabel 'virtual time (s)'
set ylabel 'memory (MiB)'
set grid lc rgb '#dddddd' front
set border 3
set tics nomirror
set yrange [0:*]
set xrange [0:*]
set offsets 0, 0, graph 0.25, 0
set key inside top left horizontal maxrows 3 samplen 2 opaque box lc rgb 'white'
set style fill solid 0.85 noborder

plot datafile using (t_s(0)):(bas(0)) with filledcurves x1 lc rgb '#7f7f7f' title 'base', \
     '' using (t_s(0)):(frg(0)) with filledcurves x1 lc rgb '#d62728' title 'free but resident (fragmentation)', \
     '' using (t_s(0)):(met(0)) with filledcurves x1 lc rgb '#9467bd' title 'allocator metadata', \
     '' using (t_s(0)):(cch(0)) with filledcurves x1 lc rgb '#8c564b' title 'thread/central caches', \
     '' using (t_s(0)):(rnd(0)) with filledcurves x1 lc rgb '#ff7f0e' title 'size-class rounding', \
     '' using (t_s(0)):(unt(0)) with filledcurves x1 lc rgb '#2ca02c' title 'untracked containers', \
     '' using (t_s(0)):(acc(0)) with filledcurves x1 lc rgb '#1f77b4' title 'accounted (mempool)', \
     '' using (t_s(0)):(column('limit_bytes') / MiB) with lines lw 2 dt 2 lc rgb 'black' title 'limit'
