# validate.gp — a measured run against the predicted run of the same trace:
# on top, the two columns compared (col_a solid, col_b dashed; predicted in
# blue, measured in red), each run to its own last sample; below, the error
# of each column at every measured sample where the prediction has data:
# |predicted - measured| / max(measured, floor), the floor being 5 % of the
# largest measured change (floor_a, floor_b), as `rssim validate` computes its table,
# so a near-zero measured value cannot make the error explode.
#
# by_time=1: a run of `rssim validate` (rssim-real), sampled at the
# prediction's virtual times: x is virtual time and the bytes are relative
# to each run's first sample (the table's baseline).  by_time=0: a run
# imported from a real daemon (wall time): x is the fraction of each run's
# span, the bytes absolute (the plot says so under its title).
#
# Called by `rssim plot validate` as
#   gnuplot -e "datafile='x.dat'; out='x.png'; term='pngcairo'; title='...';
#               col_a='resident_bytes'; col_b='allocated_bytes'; by_time=1;
#               floor_a=...; floor_b=...; worst_a=...; worst_b=...; bytes_max=..." validate.gp
# datafile: three blocks separated by two blank lines, each headed by its
# name: "predicted" COL_A COL_B, "measured" COL_A COL_B (x, then bytes), and
# "error" COL_A_error_pct COL_B_error_pct.

if (!exists("datafile") || !exists("out") || !exists("col_a")) {
    print "validate.gp: set datafile, out, col_a, col_b, ... with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("events_note")) events_note = ''

if (term eq 'svg') {
    set terminal svg size 1100,800 dynamic font 'DejaVu Sans,13' background rgb 'white' noenhanced
} else {
    set terminal pngcairo size 1200,860 font 'DejaVu Sans,12' noenhanced
}
if (term eq 'dumb') {
    set terminal dumb size 100,48 noenhanced
}
set output out
set datafile columnheaders
set encoding utf8

big = bytes_max >= 10 * 1073741824.0
U = big ? 1073741824.0 : 1048576.0
unit = big ? 'GiB' : 'MiB'
xs(c) = by_time ? column(1) : column(1) * 100
xlab = by_time ? 'virtual time (s); both runs sampled at the same virtual times' \
               : 'share of each run done (%): t / the run''s last sample (measured: wall time, predicted: virtual time)'
how = by_time ? sprintf('bytes relative to each run''s first sample (t = 0), the baseline of the table rssim validate prints') \
              : 'aligned by run fraction: both replayed the same trace records in order; absolute bytes' . events_note
floor_note = sprintf("error = |predicted - measured| / max(measured, floor), floor = 5%% of the largest measured change\n(%.3g %s for %s, %.3g %s for %s), where both runs have samples; worst %.3g%% and %.3g%%", \
    floor_a / U, unit, col_a, floor_b / U, unit, col_b, worst_a, worst_b)

# both panels share the x range: to the later of the two runs' last samples
stats datafile index 0 using (xs(0)) nooutput
pend = STATS_max
stats datafile index 1 using (xs(0)) nooutput
mend = STATS_max
xend = pend > mend ? pend : mend
if (xend <= 0) xend = 1
if (pend < mend) {
    # the prediction stops first: no error is drawn past its end
    set arrow 1 from pend, graph 0 to pend, graph 1 nohead dt 3 lw 1.5 lc rgb '#1f77b4' front
    set label 2 ' predicted run ends' at pend, graph 0.05 left tc rgb '#1f77b4' front
} else { if (mend < pend) {
    set arrow 1 from mend, graph 0 to mend, graph 1 nohead dt 3 lw 1.5 lc rgb '#d62728' front
    set label 2 ' measured run ends' at mend, graph 0.05 left tc rgb '#d62728' front
} }

set multiplot
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set lmargin 12
set rmargin 4
set xrange [0 : xend]

set size 1, 0.62
set origin 0, 0.38
set title title . "\n" . how
set ylabel sprintf('memory (%s)', unit)
set yrange [0:*]
set offsets 0, 0, graph 0.2, 0
set key inside top left vertical Left reverse samplen 3 opaque box lc rgb 'white'
unset xlabel
plot datafile index 1 using (xs(0)):(column(2) / U) with lines lw 4 lc rgb '#d62728' \
         title col_a . ', measured', \
     '' index 0 using (xs(0)):(column(2) / U) with lines lw 2 lc rgb '#1f77b4' \
         title col_a . ', predicted', \
     '' index 1 using (xs(0)):(column(3) / U) with lines lw 2 dt 2 lc rgb '#d62728' \
         title col_b . ', measured', \
     '' index 0 using (xs(0)):(column(3) / U) with lines lw 1.5 dt 2 lc rgb '#1f77b4' \
         title col_b . ', predicted'

set size 1, 0.38
set origin 0, 0
set title floor_note font ',11'
set xlabel xlab
set ylabel 'error (%)'
set yrange [0:*]
set offsets 0, 0, graph 0.35, 0
set key inside top right vertical samplen 3 opaque box lc rgb 'white'
plot datafile index 2 using (xs(0)):2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#444444' \
         title col_a . ' error', \
     '' index 2 using (xs(0)):3 with linespoints lw 1.5 dt 2 pt 6 ps 0.5 lc rgb '#888888' \
         title col_b . ' error'
unset multiplot
