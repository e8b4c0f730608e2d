# timeseries.gp — one run over virtual time: what the daemon counts
# (accounted_bytes), the heap pages it really holds (resident_bytes), what
# ps and the OOM killer see (rss_bytes) and the configured limit.
#
# Called by `rssim plot timeseries` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'" timeseries.gp
# datafile: a header row naming the sample columns, then one row per
# sample: run_id t_ns accounted_bytes resident_bytes rss_bytes limit_bytes
# base_bytes (docs/store.md), in that order: the curves are raw columns
# (2:3, 2:5 ...) and the axes are labelled in seconds and MiB/GiB by ticks
# placed in bytes and ns, so gnuplot evaluates no expression per point (it
# makes three system calls per evaluation: 24,000 for 1,000 samples).
# t_max_ns and bytes_max (from rssim) set the ranges.
# term is 'pngcairo', 'svg' or 'dumb'.
#
# Several runs (`rssim plot timeseries --run A --run B ...`): nseries=N and
# one block per run, blocks separated by two blank lines, each with its own
# header whose first column (run_id) is named by the run's title; each run
# gets a colour: rss_bytes solid, accounted_bytes dashed, limit_bytes dotted.
#
# bytes_max (the largest value drawn) sets the unit: GiB from 10 GiB, MiB
# below.  rss_resident_max is the largest rss - resident (the base): when
# it is 0 the two curves coincide, so rss is drawn wide and pale under a
# dashed resident and the key says they are equal (otherwise resident would
# vanish under rss).

if (!exists("datafile") || !exists("out")) {
    print "timeseries.gp: set datafile and out with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("nseries")) nseries = 1
if (!exists("bytes_max")) bytes_max = 0
if (!exists("t_max_ns")) t_max_ns = 0
if (!exists("rss_resident_max")) rss_resident_max = -1

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

big = bytes_max >= 10 * 1073741824.0
U = big ? 1073741824.0 : 1048576.0
unit = big ? 'GiB' : 'MiB'
# a tick step of 1, 2 or 5 times a power of ten, about r
nice(r) = (nice_e = 10.0 ** floor(log10(r)), nice_f = r / nice_e, \
           (nice_f < 1.5 ? 1 : nice_f < 3.5 ? 2 : nice_f < 7.5 ? 5 : 10) * nice_e)

set title title
set xlabel 'virtual time (s)'
set ylabel sprintf('memory (%s)', unit)
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
# x: 0 to the last sample, ticks in seconds
t_end = t_max_ns > 0 ? t_max_ns : 1e9
set xrange [0 : t_end]
x_step = nice(t_end / 1e9 / 8)
set xtics ('0' 0)
do for [k = 1 : floor(t_end / 1e9 / x_step + 1e-9)] {
    set xtics add (sprintf('%g', k * x_step) k * x_step * 1e9)
}
# y: 0 to the largest value with headroom for the key above the curves,
# ticks in the unit
y_head = nseries > 1 ? 1 + (nseries + 3) * 0.1 : 1.45
y_top = (bytes_max > 0 ? bytes_max : U) * y_head
set yrange [0 : y_top]
y_step = nice(y_top / U / 7)
set ytics ('0' 0)
do for [k = 1 : floor(y_top / U / y_step + 1e-9)] {
    set ytics add (sprintf('%g', k * y_step) k * y_step * U)
}
# the key sits in that headroom, so it never hides data
# (four rows, one per curve, in the order drawn)
set key inside top left vertical Left reverse maxrows 4 samplen 3 opaque box lc rgb 'white'

if (nseries > 1) {
    # one key row per run and three for the line styles, in headroom above the curves
    set key inside top left vertical maxrows auto samplen 3 opaque box lc rgb 'white'
    plot for [i = 0:nseries - 1] datafile index i using 2:5 \
             with lines lw 2 lc i + 1 title columnheader(1), \
         for [i = 0:nseries - 1] datafile index i using 2:3 \
             with lines lw 1.5 dt 2 lc i + 1 notitle, \
         for [i = 0:nseries - 1] datafile index i using 2:6 \
             with lines lw 1 dt 3 lc i + 1 notitle, \
         NaN with lines lw 2 lc rgb 'gray40' title 'rss_bytes (what ps and the OOM killer see)', \
         NaN with lines lw 1.5 dt 2 lc rgb 'gray40' title 'accounted_bytes (what the daemon counts)', \
         NaN with lines lw 1 dt 3 lc rgb 'gray40' title 'limit_bytes'
    exit
}

# drawn bottom-up so that the limit stays on top; rss wide and pale under a
# dashed resident, so resident shows even where the two are equal
same = rss_resident_max == 0
dt_res = same ? 2 : 1
if (same) {
    set label 1 'resident_bytes = rss_bytes at every sample (base_bytes is 0)' \
        at graph 0.99, graph 0.97 right tc rgb '#a04000' front
}
plot datafile using 2:3 with lines lw 2 lc rgb '#1f77b4' \
         title 'accounted_bytes (what the daemon counts)', \
     '' using 2:5 with lines lw 6 lc rgb '#f4a6a6' \
         title 'rss_bytes (what ps and the OOM killer see)', \
     '' using 2:4 with lines lw 2 dt dt_res lc rgb '#a04000' \
         title (same ? 'resident_bytes (heap pages; equal to rss_bytes here)' : 'resident_bytes (heap pages; rss_bytes less base_bytes)'), \
     '' using 2:6 with lines lw 2 dt 2 lc rgb 'black' \
         title 'limit_bytes'
