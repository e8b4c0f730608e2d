# timeseries.gp — one run over virtual time: what the daemon counts
# (accounted_bytes), the heap pages it really holds (resident_bytes), what
# ps and the OOM killer see (rss_bytes) and the configured limit.
#
# Called by `rssim plot timeseries` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'" timeseries.gp
# datafile: a header row naming the sample columns (run_id t_ns
# accounted_bytes ... rss_bytes limit_bytes ...; docs/store.md), then
# one row per sample.  Columns are read by name, so the C side may add some.
# term is 'pngcairo' or 'svg'.
#
# Several runs (`rssim plot timeseries --run A --run B ...`): nseries=N and
# one block per run, blocks separated by two blank lines, each with its own
# header whose first column (run_id) is named by the run's title; each run
# gets a colour: rss_bytes solid, accounted_bytes dashed, limit_bytes dotted.

if (!exists("datafile") || !exists("out")) {
    print "timeseries.gp: set datafile and out with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("nseries")) nseries = 1

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

set title title
set xlabel 'virtual time (s)'
set ylabel 'memory (MiB)'
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set yrange [0:*]
set xrange [0:*]
# the key sits in headroom above the highest curve, so it never hides data
set offsets 0, 0, graph 0.22, 0
set key inside top left horizontal maxrows 2 samplen 3 opaque box lc rgb 'white'

if (nseries > 1) {
    # one key row per run and three for the line styles, in headroom above the curves
    set offsets 0, 0, graph (nseries + 3) * 0.075, 0
    set key inside top left vertical maxrows auto samplen 3 opaque box lc rgb 'white'
    plot for [i = 0:nseries - 1] datafile index i using (t_s(0)):(column('rss_bytes') / MiB) \
             with lines lw 2 lc i + 1 title columnheader(1), \
         for [i = 0:nseries - 1] datafile index i using (t_s(0)):(column('accounted_bytes') / MiB) \
             with lines lw 1.5 dt 2 lc i + 1 notitle, \
         for [i = 0:nseries - 1] datafile index i using (t_s(0)):(column('limit_bytes') / MiB) \
             with lines lw 1 dt 3 lc i + 1 notitle, \
         NaN with lines lw 2 lc rgb 'gray40' title 'rss_bytes (what ps and the OOM killer see)', \
         NaN with lines lw 1.5 dt 2 lc rgb 'gray40' title 'accounted_bytes (what the daemon counts)', \
         NaN with lines lw 1 dt 3 lc rgb 'gray40' title 'limit_bytes'
    exit
}

# drawn bottom-up so that rss (often equal to resident) and the limit stay on top
plot datafile using (t_s(0)):(column('accounted_bytes') / MiB) with lines lw 2 lc rgb '#1f77b4' \
         title 'accounted_bytes (what the daemon counts)', \
     '' using (t_s(0)):(column('resident_bytes') / MiB) with lines lw 2 lc rgb '#ff7f0e' \
         title 'resident_bytes (heap pages)', \
     '' using (t_s(0)):(column('rss_bytes') / MiB) with lines lw 2 lc rgb '#d62728' \
         title 'rss_bytes (what ps and the OOM killer see)', \
     '' using (t_s(0)):(column('limit_bytes') / MiB) with lines lw 2 dt 2 lc rgb 'black' \
         title 'limit_bytes'
