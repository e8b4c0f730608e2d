# interval.gp — what the trim interval costs and buys (osd sweeps): for
# every done run of a sweep, the peak cache/limit (peak accounted bytes over
# the limit; left axis, solid line and filled points) and the IOPS (right axis, dashed line and open squares, the
# same colour) against the trim interval.  A shorter interval keeps the
# cache closer to its limit but holds the shard locks more often, so IOPS
# may fall: both are read off one picture.  One colour per value of the
# sweep's other varied keys (e.g. the cache size).
#
# Called by `rssim plot interval` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'; nseries=2" interval.gp
# datafile: one block per series, blocks separated by two blank lines; each
# block starts with a header row whose first column (the point index) is
# named by the series title: "title" run_id interval_ms overshoot_max
# excess_peak_bytes iops cache_peak_ratio; then one row per run, sorted by interval_ms.

if (!exists("datafile") || !exists("out") || !exists("nseries")) {
    print "interval.gp: set datafile, out and nseries with -e"
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
set encoding utf8
set datafile columnheaders

ms(c) = column('interval_ms')

# the intervals' span, over every block, decides the x scale
lo = 1e300; hi = -1e300
do for [i = 0:nseries - 1] {
    stats datafile index i using (ms(0)) nooutput
    lo = STATS_min < lo ? STATS_min : lo
    hi = STATS_max > hi ? STATS_max : hi
}
if (lo > 0 && hi > 8 * lo) {
    set logscale x 2
    set xrange [lo / 1.3 : hi * 1.3]
} else {
    pad = hi > lo ? (hi - lo) * 0.05 : (lo > 0 ? lo * 0.1 : 1)
    set xrange [lo - pad : hi + pad]
}

set output out
set title title
set xlabel 'trim interval (ms)'
set ylabel 'peak cache/limit (peak accounted bytes / limit)'
set y2label 'throughput (IOPS)'
set grid lc rgb '#dddddd'
set border 11
set xtics nomirror
set ytics nomirror
set y2tics
set format y2 '%.0f'
# the key sits in headroom above the highest point of either axis, so it
# never hides data
y1hi = 0; y2hi = 0
do for [i = 0:nseries - 1] {
    stats datafile index i using (column('cache_peak_ratio')) nooutput
    y1hi = STATS_max > y1hi ? STATS_max : y1hi
    stats datafile index i using (column('iops')) nooutput
    y2hi = STATS_max > y2hi ? STATS_max : y2hi
}
head = 1 + (nseries + 2) * 0.09
set yrange [0 : (y1hi > 0 ? y1hi : 1) * head]
set y2range [0 : (y2hi > 0 ? y2hi : 1) * head]
set key inside top right vertical samplen 3 opaque box lc rgb 'white'

plot for [i = 0:nseries - 1] datafile index i using (ms(0)):(column('cache_peak_ratio')) \
         with linespoints lw 2 pt 7 ps 1.2 lc i + 1 title columnheader(1), \
     for [i = 0:nseries - 1] datafile index i using (ms(0)):(column('iops')) axes x1y2 \
         with linespoints lw 1.5 dt 2 pt 4 ps 1.2 lc i + 1 notitle, \
     NaN with linespoints lw 2 pt 7 lc rgb 'gray40' title 'peak cache/limit (left axis)', \
     NaN with linespoints lw 1.5 dt 2 pt 4 lc rgb 'gray40' title 'IOPS (right axis)'
