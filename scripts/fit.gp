# fit.gp — a daemon's RSS against its accounted (mempool) bytes: every
# observed sample a point, the least-squares line of `rssim fit` with its
# 95 % confidence band, and, when predicted runs are given, the simulator's
# samples beside them.  Sizes in MiB, or GiB once the largest reaches 10 GiB.
#
# Called by `rssim plot fit` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'; npred=0; bytes_max=N" fit.gp
# datafile: block 0 the observed samples (run_id accounted_bytes rss_bytes),
# block 1 the line (accounted_bytes rss_bytes lo_bytes hi_bytes), block 2
# (npred > 0) the predicted samples (run_id accounted_bytes rss_bytes); each
# block starts with a header row.

if (!exists("datafile") || !exists("out") || !exists("npred") || !exists("bytes_max")) {
    print "fit.gp: set datafile, out, npred and bytes_max with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''

if (term eq 'svg') {
    set terminal svg size 1100,700 dynamic font 'DejaVu Sans,13' background rgb 'white' noenhanced
} else {
    set terminal pngcairo size 1200,760 font 'DejaVu Sans,12' noenhanced
}
if (term eq 'dumb') {
    set terminal dumb size 100,32 noenhanced
}
set encoding utf8
set datafile columnheaders

if (bytes_max >= 10 * 1073741824.0) {
    scale = 1073741824.0; unitname = 'GiB'
} else {
    scale = 1048576.0; unitname = 'MiB'
}
b(c) = column(c) / scale

set output out
set title title
set xlabel sprintf('accounted: the daemon''s mempool bytes (%s)', unitname)
set ylabel sprintf('RSS (%s)', unitname)
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set xrange [0:*]
set yrange [0:*]
set key top left box opaque

band = "datafile index 1 using (b('accounted_bytes')):(b('lo_bytes')):(b('hi_bytes')) with filledcurves lc rgb '#c6dbef' title '95 % band of the line'"
obs = "datafile index 0 using (b('accounted_bytes')):(b('rss_bytes')) with points pt 7 ps 0.6 lc rgb '#444444' title 'observed samples'"
line = "datafile index 1 using (b('accounted_bytes')):(b('rss_bytes')) with lines lw 2.5 lc rgb '#08519c' title 'fit: RSS = base + k × accounted'"
pred = "datafile index 2 using (b('accounted_bytes')):(b('rss_bytes')) with points pt 6 ps 0.9 lc rgb '#d95f02' title 'predicted (rssim replay)'"
if (npred > 0) {
    plot @band, @obs, @line, @pred
} else {
    plot @band, @obs, @line
}
