# reproduce-mds-19954.gp — the seed's own view of its two experiments (ceph
# PR 19954: graphs of the MDS's RSS and cache while 64 clients build the
# kernel): cache (the mds_co mempool, rssim's accounted_bytes; dashed) and
# RSS (solid) over the replay's virtual time, master (mds-luminous layout,
# blue) and the PR's build (mds-pr19954, orange), one panel per cache limit.
# The summary plot beside it (rss/limit against the limit) has one point
# per limit; this one shows whether the cache filled: at the large limit it
# may never reach the limit, and the seed compared RSS where the cache held
# `point` bytes (35.8 GB), marked here by a dotted line and a cross on each
# build's RSS where its cache first got there.
#
# Called by scripts/reproduce-mds-19954 as
#   gnuplot -e "datafile='x.dat'; out='x.png'; small=8589934592; big=68719476736;
#               point=35800000000; title='...'" reproduce-mds-19954.gp
# datafile: four blocks separated by two blank lines — master at small,
# PR at small, master at big, PR at big — each headed
# "TITLE" cache_bytes rss_bytes, then rows t_s cache_bytes rss_bytes.
# Units: GiB when the largest number drawn reaches 10 GiB, MiB below.

if (!exists("datafile") || !exists("out") || !exists("small") || !exists("big")) {
    print "reproduce-mds-19954.gp: set datafile, out, small, big and point with -e"
    exit status 2
}
if (!exists("title")) title = ''
if (!exists("point")) point = 0

set terminal pngcairo size 1500,700 font 'DejaVu Sans,12' noenhanced
set output out
set datafile columnheaders
set encoding utf8

hi = big
do for [i = 0:3] {
    stats datafile index i using 3 nooutput
    hi = STATS_max > hi ? STATS_max : hi
}
gib = hi >= 10 * 1073741824.0
U = gib ? 1073741824.0 : 1048576.0
unit = gib ? 'GiB' : 'MiB'
lim_txt(b) = b >= 1073741824.0 ? sprintf('%.0f GiB', b / 1073741824.0) : sprintf('%.0f MiB', b / 1048576.0)

# where each build's cache first reached the comparison point: (t, rss)
pt_t = NaN; pt_r = NaN; pr_t = NaN; pr_r = NaN
if (point > 0) {
    stats datafile index 2 using ($2 >= point ? $1 : NaN):3 nooutput
    if (STATS_records > 0) { pt_t = STATS_min_x; }
    stats datafile index 3 using ($2 >= point ? $1 : NaN):3 nooutput
    if (STATS_records > 0) { pr_t = STATS_min_x; }
}

# each panel its own height (the small limit's curves are not flattened),
# found before any range is set (stats obeys ranges)
top0 = small; top1 = big
do for [i = 0:3] {
    stats datafile index i using 3 nooutput
    if (i < 2) { top0 = STATS_max > top0 ? STATS_max : top0 } else { top1 = STATS_max > top1 ? STATS_max : top1 }
}

set multiplot layout 1, 2 title title
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set xlabel 'virtual time of the replay (s)'
set ylabel sprintf('memory (%s)', unit)
set xrange [0:*]
set key inside top left vertical Left reverse samplen 3 opaque box lc rgb 'white' font ',11'

do for [p = 0:1] {
    lim = p == 0 ? small : big
    set title sprintf('cache limit %s', lim_txt(lim))
    unset arrow
    unset label
    set arrow 1 from graph 0, first lim / U to graph 1, first lim / U nohead dt 2 lw 1.5 lc rgb 'black' front
    set label 1 sprintf('limit %s ', lim_txt(lim)) at graph 1, first lim / U right offset 0, 0.7 front
    if (p == 1 && point > 0) {
        set arrow 2 from graph 0, first point / U to graph 1, first point / U nohead dt 3 lw 1.5 lc rgb '#555555' front
        set label 2 sprintf("the seed's comparison point: %.1f GB of cache ", point / 1e9) \
            at graph 1, first point / U right offset 0, -0.8 tc rgb '#555555' front
    }
    b0 = 2 * p
    set yrange [0 : (p == 0 ? top0 : top1) / U * 1.35]
    if (p == 1 && point > 0) {
        plot datafile index b0 using 1:($3 / U) with lines lw 2.5 lc rgb '#1f5fa8' title 'RSS, master (Feb 2018)', \
             '' index b0 + 1 using 1:($3 / U) with lines lw 2.5 lc rgb '#e07000' title 'RSS, PR 19954', \
             '' index b0 using 1:($2 / U) with lines lw 2 dt 2 lc rgb '#1f5fa8' title 'cache (mds_co), master', \
             '' index b0 + 1 using 1:($2 / U) with lines lw 2 dt 2 lc rgb '#e07000' title 'cache (mds_co), PR 19954', \
             '' index b0 using ($1 == pt_t ? $1 : NaN):($3 / U) with points pt 2 ps 2.5 lw 2 lc rgb '#1f5fa8' \
                 title (pt_t == pt_t ? 'RSS where the cache first held the comparison point' : 'the cache never held the comparison point'), \
             '' index b0 + 1 using ($1 == pr_t ? $1 : NaN):($3 / U) with points pt 2 ps 2.5 lw 2 lc rgb '#e07000' notitle
    } else {
        plot datafile index b0 using 1:($3 / U) with lines lw 2.5 lc rgb '#1f5fa8' title 'RSS, master (Feb 2018)', \
             '' index b0 + 1 using 1:($3 / U) with lines lw 2.5 lc rgb '#e07000' title 'RSS, PR 19954', \
             '' index b0 using 1:($2 / U) with lines lw 2 dt 2 lc rgb '#1f5fa8' title 'cache (mds_co), master', \
             '' index b0 + 1 using 1:($2 / U) with lines lw 2 dt 2 lc rgb '#e07000' title 'cache (mds_co), PR 19954'
    }
}
unset multiplot
