# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154  # $top is, and the names are for, the caller's
# Sourced, with $top set, by tests/guest/run and scripts/check-debug-kernel:
# clean_run, the script of a guest's sh -c that runs a test program and
# then reads the kernel log:
#
#   tgpu-vm run -- sh -c "$clean_run" sh PROGRAM ARGS...
#
# A splat (tests/guest/splat.ere) fails the run with 99, and its first
# lines go to stderr.  A run that failed either way also shows the
# kernel's last tgpu lines: the Xid, the channel and the address that the
# program's own message may not name.
splat=$(grep -v '^#' "$top/tests/guest/splat.ere")
# shellcheck disable=SC2016  # for the guest's sh
clean_run='"$@"; r=$?; dmesg | grep -qE "'"$splat"'" &&
    { dmesg | grep -E -m1 -B2 -A40 "'"$splat"'" >&2; r=99; }
    [ $r = 0 ] || dmesg | grep -E "tgpu[ :]" | tail -n 10 | sed "s/^/dmesg: /" >&2
    exit $r'
