# latency.gp — the op latency CDF of one or more runs (osd): for each run,
# the share of ops that finished within a latency, from the run's
# latency_p<q>_ns metrics (one point per quantile q).  The latency axis is
# logarithmic when the latencies span a decade or more (with at least three
# labelled ticks), else linear; its unit (µs or ms) follows the largest
# latency drawn.
#
# Called by `rssim plot latency` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'; nseries=2" latency.gp
# datafile: one block per run, blocks separated by two blank lines; each
# block starts with a header row whose first column is named by the curve's
# title: "title" run_id latency_ns; then one row per quantile: q (percent of
# ops at or below), run_id, latency_ns, sorted by q.

if (!exists("datafile") || !exists("out") || !exists("nseries")) {
    print "latency.gp: set datafile, out and nseries with -e"
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

# the unit follows the largest latency of every curve
lo = 1e300; hi = -1e300
do for [i = 0:nseries - 1] {
    stats datafile index i using (column('latency_ns')) nooutput
    lo = STATS_min < lo ? STATS_min : lo
    hi = STATS_max > hi ? STATS_max : hi
}
if (hi >= 1e7) {
    unit = 1e6; unitname = 'ms'
} else {
    unit = 1e3; unitname = 'µs'
}
lat(c) = column('latency_ns') / unit
if (lo <= 0) lo = hi / 1e3
# a log axis over a decade or more, with 1-2-5 ticks added when it spans
# under three decades (gnuplot would label powers of ten only: one or two
# ticks); under a decade a linear axis (a log one would show one tick)
xlog = hi >= 10 * lo
if (xlog) {
    set logscale x 10
    set xrange [lo / unit / 1.5 : hi / unit * 1.5]
    if (hi < 1000 * lo) {
        set xtics format '%g'
        do for [e = floor(log10(lo / unit / 1.5)) : ceil(log10(hi / unit * 1.5))] {
            do for [m = 1:3] {
                v = (m == 1 ? 1 : m == 2 ? 2 : 5) * 10.0 ** e
                set xtics add (sprintf('%g', v) v)
            }
        }
    }
} else {
    pad = (hi - lo) * 0.08 + hi * 0.01
    set xrange [(lo - pad) / unit < 0 ? 0 : (lo - pad) / unit : (hi + pad) / unit]
}

set output out
set title title
set xlabel sprintf('op latency (%s%s)', unitname, xlog ? ', log scale' : '')
set ylabel 'ops completed within the latency (%)'
set grid lc rgb '#dddddd'
set grid mxtics
set border 3
set tics nomirror
set yrange [0:100]
set ytics 10
# below the plot: one curve per run, labels may be long, and inside the
# frame they would cover curves
set key below left vertical samplen 3 maxcols 2

plot for [i = 0:nseries - 1] datafile index i using (lat(0)):1 \
         with linespoints lw 2 pt 7 ps 0.9 lc i + 1 title columnheader(1)
