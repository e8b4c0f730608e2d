# overshoot.gp — RAM needed per byte of cache limit against the limit, for
# every done run of a sweep: the steady-state rss/limit (line and filled
# points), the peak (open circles), and the seed's (1-x)^-1 computed from
# each run's measured untracked fraction x_steady (dashed with + marks, same
# colour; the marks keep it visible when a series has a single point).
# Where the dashed curve sits below the line, the rest is trim lag: the
# cache running over its limit between trims.
#
# Called by `rssim plot overshoot` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'; nseries=2" overshoot.gp
# datafile: one block per series (runs sharing the values of the varied keys
# other than the limit), blocks separated by two blank lines; each block
# starts with a header row naming the columns, where the first column
# (the point index) is named by the series title: "title" run_id
# limit_bytes overshoot_steady overshoot_p99 overshoot_max x_steady
# accounted_peak_bytes filled x_value x_label; then one row per run, sorted
# by x_value.  filled 0: the cache never reached 85 % of its limit, so its
# rss/limit is no overshoot (the limit was never the constraint): such a
# run is a grey diamond, and no line joins it to the others.
#
# x: the limit (MiB; GiB from 10 GiB) when a varied key is the limit
# (x_key ''); else x_key names the key along x (a sweep of alloc= at one
# limit): its values as numbers (x_numeric 1) or as labelled categories.

if (!exists("datafile") || !exists("out") || !exists("nseries")) {
    print "overshoot.gp: set datafile, out and nseries with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("x_key")) x_key = ''
if (!exists("x_numeric")) x_numeric = 1

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

# the limits' span, over every block, decides the unit
lo = 1e300; hi = -1e300
do for [i = 0:nseries - 1] {
    stats datafile index i using (column('limit_bytes')) nooutput
    lo = STATS_min < lo ? STATS_min : lo
    hi = STATS_max > hi ? STATS_max : hi
}
big = hi >= 10 * 1073741824.0
MiB = big ? 1073741824.0 : 1048576.0
unit = big ? 'GiB' : 'MiB'
lim(c) = x_key eq '' ? column('limit_bytes') / MiB : column('x_value')

if (x_key ne '') {
    # one key varies and it is not the limit: that key along x
    xlo = 1e300; xhi = -1e300
    do for [i = 0:nseries - 1] {
        stats datafile index i using (column('x_value')) nooutput
        xlo = STATS_min < xlo ? STATS_min : xlo
        xhi = STATS_max > xhi ? STATS_max : xhi
    }
    pad = x_numeric ? (xhi > xlo ? (xhi - xlo) * 0.08 : 1) : 0.5
    set xrange [xlo - pad : xhi + pad]
    if (!x_numeric) { set xtics 1 }
} else {
    lo = lo / MiB; hi = hi / MiB
    # a log axis only over more than a decade (its base-2 ticks then number
    # at least four); otherwise linear
    if (lo > 0 && hi > 10 * lo) {
        set logscale x 2
        set xrange [lo / 1.3 : hi * 1.3]
    } else {
        pad = hi > lo ? (hi - lo) * 0.05 : (lo > 0 ? lo * 0.1 : 1)
        set xrange [lo - pad : hi + pad]
    }
}

set output out
set title title
if (x_key eq '') {
    set xlabel sprintf('cache limit (%s%s)', unit, hi > 10 * lo && lo > 0 ? ', log scale' : '')
} else {
    set xlabel sprintf('%s (the only key the sweep varies; limit %.4g %s)', x_key, lo / MiB, unit)
}
set ylabel 'RAM per byte of limit (rss/limit)'
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set yrange [0:*]
# the key (one row per series, three for the markers) sits in headroom
# above the highest point, so it never hides data
set offsets 0, 0, graph (nseries + 4) * 0.065, 0
set key inside top right vertical samplen 3 opaque box lc rgb 'white'

# categories: labels from every series' points (x_label), points only (no
# line joins two unrelated categories)
cat = x_key ne '' && !x_numeric
if (cat) {
    plot for [i = 0:nseries - 1] datafile index i using (lim(0)):(column('overshoot_steady')):xtic(stringcolumn('x_label')) \
             with points pt 7 ps 1.8 lc i + 1 title columnheader(1), \
         for [i = 0:nseries - 1] datafile index i using (lim(0)):(column('overshoot_max')) \
             with points pt 6 ps 2.2 lc i + 1 notitle, \
         for [i = 0:nseries - 1] datafile index i using (lim(0)):(1 / (1 - column('x_steady'))) \
             with points pt 1 ps 2 lw 2 lc i + 1 notitle, \
         NaN with points pt 7 lc rgb 'gray40' title 'steady rss/limit (overshoot_steady)', \
         NaN with points pt 6 ps 1.6 lc rgb 'gray40' title 'peak rss/limit (overshoot_max)', \
         NaN with points pt 1 ps 1.2 lw 2 lc rgb 'gray40' title '(1−x)⁻¹ from measured x_steady'
    exit
}
# the runs whose cache never filled, if any, get their own key entry
nfill = 0
do for [i = 0:nseries - 1] {
    stats datafile index i using (column('filled') > 0.5 ? 0 : 1) nooutput
    nfill = nfill + STATS_sum
}
full(c) = column('filled') > 0.5 ? column(c) : NaN
plot for [i = 0:nseries - 1] datafile index i using (lim(0)):(full('overshoot_steady')) \
         with linespoints lw 2 pt 7 ps 1.2 lc i + 1 title columnheader(1), \
     for [i = 0:nseries - 1] datafile index i using (lim(0)):(column('filled') > 0.5 ? NaN : column('overshoot_steady')) \
         with points pt 13 ps 2 lc i + 1 notitle, \
     NaN with points pt 13 ps 2 lc rgb 'gray40' \
         title (nfill > 0 ? 'cache never filled (peak < 85% of the limit): rss/limit, no overshoot' : ''), \
     for [i = 0:nseries - 1] datafile index i using (lim(0)):(column('overshoot_max')) \
         with points pt 6 ps 1.6 lc i + 1 notitle, \
     for [i = 0:nseries - 1] datafile index i using (lim(0)):(1 / (1 - full('x_steady'))) \
         with linespoints lw 1.5 dt 2 pt 1 ps 1.2 lc i + 1 notitle, \
     NaN with linespoints lw 2 pt 7 lc rgb 'gray40' title 'steady rss/limit (overshoot_steady)', \
     NaN with points pt 6 ps 1.6 lc rgb 'gray40' title 'peak rss/limit (overshoot_max)', \
     NaN with linespoints lw 1.5 dt 2 pt 1 ps 1.2 lc rgb 'gray40' \
         title '(1−x)⁻¹ from measured x_steady'
