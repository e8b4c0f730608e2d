# capacity.gp — one `rssim plan`: predicted RSS of one daemon against the
# value of its limit key, at every limit the search evaluated.  Bands are
# the min..max over the plan's seeds of the steady p50 and p99 RSS and of
# the peak; the worst seed is the band's top line.  Horizontal lines: the
# node's RAM / daemons and the same less the headroom (the budget each
# daemon may use); the safe region (limits up to the chosen one, RSS within
# the budget) is shaded; the rule of thumb (RSS = factor x limit; mds 1.5,
# osd 1.0 and 1.15) is dotted; the chosen limit is a vertical line.  A
# coarse search's evaluations (`rssim plan --coarse K`: runs sampled 1/K,
# scaled), when the plan made one, are grey points on a thin line.
# Units: GiB when the largest number drawn is at least 10 GiB, else MiB
# (the rule of every rssim plot and table).
#
# Called by `rssim plot capacity` as
#   gnuplot -e "datafile='x.dat'; out='x.png'; term='pngcairo'; title='...';
#               limit_key='kv_cache_limit'; quantile='p99'; outcome='found';
#               ram_per_daemon=...; budget_per_daemon=...; chosen=...;
#               rule_factor=1.5; daemons=4; headroom=0.1; seeds=1; coarse_k=0" capacity.gp
# datafile: a header row "limit_bytes p50_min p50_max p99_min p99_max
# peak_min peak_max seeds", then one row per evaluated limit, ascending;
# when coarse_k > 0, two blank lines and a second block of the same form,
# the coarse search's.

if (!exists("datafile") || !exists("out") || !exists("chosen")) {
    print "capacity.gp: set datafile, out, chosen, ... with -e"
    exit status 2
}
if (!exists("term")) term = 'pngcairo'
if (!exists("title")) title = ''
if (!exists("coarse_k")) coarse_k = 0

if (term eq 'svg') {
    set terminal svg size 1300,700 dynamic font 'DejaVu Sans,13' background rgb 'white' noenhanced
} else {
    set terminal pngcairo size 1400,760 font 'DejaVu Sans,12' noenhanced
}
if (term eq 'dumb') {
    # 100 columns: the plot on 30 rows, its key in two columns below it
    set terminal dumb size 100,44 noenhanced
}
set encoding utf8
set datafile columnheaders

stats datafile using (column('limit_bytes')) nooutput
xmax = STATS_max
stats datafile using (column('peak_max')) nooutput
ymax = STATS_max > ram_per_daemon ? STATS_max : ram_per_daemon
big = (xmax > ymax ? xmax : ymax) >= 10 * 1073741824.0
U = big ? 1073741824.0 : 1048576.0
unit = big ? 'GiB' : 'MiB'

set output out
set title title . "\n" . sprintf("%d daemon%s, headroom %.0f%%, %s decides, %d seed%s; outcome: %s", \
    daemons, daemons == 1 ? '' : 's', headroom * 100, quantile, seeds, seeds == 1 ? '' : 's', outcome)
set xlabel sprintf('%s (%s)', limit_key, unit)
set ylabel sprintf('predicted RSS of one daemon (%s)', unit)
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set xrange [0 : xmax / U * 1.08]
set yrange [0 : ymax / U * 1.25]
set key outside right top vertical samplen 3 box lc rgb 'gray70' spacing 1.3
if (term eq 'dumb') {
    # no room beside a 100-column plot: the key goes below it
    set key outside below horizontal maxcols 2 samplen 2 nobox
}

# the safe region: limits up to the chosen one, RSS within the budget
if (chosen > 0 && outcome ne 'infeasible') {
    set object 1 rectangle from 0, 0 to chosen / U, budget_per_daemon / U \
        fc rgb '#d8f0d8' fs solid 0.6 noborder behind
    set arrow 1 from chosen / U, 0 to chosen / U, ymax / U * 1.12 nohead lw 2 dt 1 lc rgb '#1a7f1a' front
    set label 1 sprintf(' chosen %s = %.3g %s', limit_key, chosen / U, unit) \
        at chosen / U, ymax / U * 1.15 left tc rgb '#1a7f1a' front
}
set label 2 "safe: limit <= chosen,\nRSS within the budget" at graph 0.02, first budget_per_daemon / U * 0.9 left tc rgb '#1a7f1a'
set label 3 sprintf('RAM / daemons = %.3g %s ', ram_per_daemon / U, unit) at graph 1, first ram_per_daemon / U \
    right offset 0, 0.7 tc rgb 'black'
set label 4 sprintf('budget = %.3g %s ', budget_per_daemon / U, unit) at graph 1, first budget_per_daemon / U \
    right offset 0, -0.8 tc rgb '#1a7f1a'

rule(x) = rule_factor * x
coarse = coarse_k > 0 ? sprintf(", datafile index 1 using (column('limit_bytes') / U):(column('p99_max') / U) with linespoints lw 1 dt 2 pt 4 ps 1.2 lc rgb 'gray40' title 'coarse search: p99, runs sampled 1/%d'", coarse_k) : ''
plot datafile index 0 using (column('limit_bytes') / U):(column('peak_min') / U):(column('peak_max') / U) \
         with filledcurves fc rgb '#f4a3a3' fs transparent solid 0.35 noborder title 'peak (min-max over seeds)', \
     '' index 0 using (column('limit_bytes') / U):(column('p99_min') / U):(column('p99_max') / U) \
         with filledcurves fc rgb '#f0c060' fs transparent solid 0.45 noborder title 'p99 of steady samples (min-max)', \
     '' index 0 using (column('limit_bytes') / U):(column('p50_min') / U):(column('p50_max') / U) \
         with filledcurves fc rgb '#8fb8e8' fs transparent solid 0.5 noborder title 'p50 of steady samples (min-max)', \
     '' index 0 using (column('limit_bytes') / U):(column('p99_max') / U) with linespoints lw 2 pt 7 ps 1 lc rgb '#c08000' title 'p99, worst seed', \
     '' index 0 using (column('limit_bytes') / U):(column('p50_max') / U) with linespoints lw 1.5 pt 5 ps 0.8 lc rgb '#3060b0' title 'p50, worst seed', \
     '' index 0 using (column('limit_bytes') / U):(column('peak_max') / U) with linespoints lw 1.5 dt 2 pt 6 ps 1.8 lc rgb '#c03030' title 'peak, worst seed (points: evaluated limits)', \
     ram_per_daemon / U with lines lw 2 lc rgb 'black' title 'RAM / daemons', \
     budget_per_daemon / U with lines lw 2 dt 2 lc rgb '#1a7f1a' title sprintf('budget: RAM / daemons less %.0f%% headroom', headroom * 100), \
     (rule_factor > 0 ? rule(x) : 1/0) with lines lw 2 dt 3 lc rgb '#7030a0' \
         title (rule_factor > 0 ? sprintf('rule of thumb: RSS = %.2g x %s', rule_factor, limit_key) : ''), \
     (rule_factor == 1.0 ? 1.15 * x : 1/0) with lines lw 1.5 dt 3 lc rgb '#b080d0' \
         title (rule_factor == 1.0 ? 'RSS = 1.15 x osd_memory_target (PR 22970: 0-15% over)' : ''), \
     x with lines lw 1 dt 4 lc rgb 'gray50' title 'RSS = limit' @coarse
