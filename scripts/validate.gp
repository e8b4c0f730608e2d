# validate.gp — one validation: what the allocator model predicted against
# what the real allocator did with the same allocations (rssim-real), over
# virtual time: resident heap bytes (solid) and the allocator's allocated
# bytes (thin), predicted in blue, measured in red.
#
# Called by `rssim plot validate` as
#   gnuplot -e "datafile='out/x.dat'; out='out/x.png'; term='pngcairo'; title='...'" validate.gp
# datafile: header row t_ns predicted_resident_bytes measured_resident_bytes
# predicted_allocated_bytes measured_allocated_bytes, then one row per
# common sample time.

if (!exists("datafile") || !exists("out")) {
    print "validate.gp: set datafile and out with -e"
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

set title title
set xlabel 'virtual time (s)'
set ylabel 'memory (MiB)'
set grid lc rgb '#dddddd'
set border 3
set tics nomirror
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set key inside top right vertical samplen 3 opaque box lc rgb 'white'

plot datafile using (t_s(0)):(column('measured_resident_bytes') / MiB) with lines lw 4 lc rgb '#d62728' \
         title 'resident, measured (real allocator)', \
     '' using (t_s(0)):(column('predicted_resident_bytes') / MiB) with lines lw 2 lc rgb '#1f77b4' \
         title 'resident, predicted (model)', \
     '' using (t_s(0)):(column('measured_allocated_bytes') / MiB) with lines lw 2 dt 2 lc rgb '#d62728' \
         title 'allocated, measured', \
     '' using (t_s(0)):(column('predicted_allocated_bytes') / MiB) with lines lw 1 dt 2 lc rgb '#1f77b4' \
         title 'allocated, predicted'
