# The thermal governor's ramp (tests/guest/test-thermal, "# csv:" lines),
# plotted by tests/guest/run:
#   gnuplot -e "csv='ramp.csv'; png='ramp.png'" tests/guest/thermal.gp
# Top: the temperature; bottom: the governor's request, the clock in use
# and the warp instructions a second the compute engine ran (the device
# paces kernels at the clock over sm-clock-divider).
set datafile separator ','
set terminal pngcairo size 1200,900 font ',10'
set output png
set key autotitle columnhead outside right
set multiplot layout 2,1 title 'tgpu thermal governor: a heat-gun ramp through QMP'
set ylabel 'temperature (C)'
set grid
plot csv using 1:2 with lines lw 2 title 'temperature', \
     75 with lines dt 2 title 'down (75 C)', 65 with lines dt 2 title 'up (65 C)', \
     85 with lines dt 3 title 'hw slowdown (p100)'
set xlabel 'time (s)'
set ylabel 'clock (MHz)'
set y2label 'warp instructions/s'
set y2tics
plot csv using 1:3 with steps lw 2 title 'request', \
     csv using 1:4 with steps title 'in use', \
     csv using 1:8 axes x1y2 with lines lc rgb 'gray' title 'warp instructions/s (host time)'
unset multiplot
