#!/bin/bash
# scripts/setup against stub dpkg-query, apt-get and id placed first on
# PATH, so that the real system is never touched: the stubs say which
# packages are installed, record what they are asked, and fail on
# request.  The machine's apt sources are a fake apt folder
# (TGPU_APT_ETC), read by scripts/lib/apt-mirror.sh.  Also the ERR trap
# of scripts/lib/script.sh.  Prints TAP.
#
#   test-setup.sh [SETUP]     (default: scripts/setup of this tree)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
setup=${1:-$top/scripts/setup}
tmp=$(mktemp -d /tmp/tgpu-test-setup.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
stubs=$tmp/bin
mkdir -p "$stubs"

# --- the stubs ------------------------------------------------------------
# $tmp/installed: "PACKAGE VERSION" a line.  $tmp/calls: one line a call.
# STUB_APT_FAIL: apt-get fails for these packages (or "update").
cat >"$stubs/dpkg-query" <<'EOF'
#!/bin/bash
# dpkg-query -W [-f=FORMAT] PACKAGE...: the fields scripts use
echo "dpkg-query $*" >>"$STUB_TMP/calls"
fmt='${Package}\t${Version}\n'
pkgs=()
for a in "$@"; do
    case "$a" in
        -f=*|--showformat=*) fmt=${a#*=} ;;
        -*) ;;
        *) pkgs+=("$a") ;;
    esac
done
rc=0
for p in "${pkgs[@]}"; do
    v=$(awk -v p="$p" '$1 == p { print $2 }' "$STUB_TMP/installed")
    if [ -z "$v" ]; then
        echo "dpkg-query: no packages found matching $p" >&2
        rc=1
        continue
    fi
    # "-": a package dpkg knows but that is not installed
    if [ "$v" = - ]; then
        status="unknown ok not-installed" st=not-installed v=
    else
        status="install ok installed" st=installed
    fi
    line=${fmt//'${Package}'/$p}
    line=${line//'${Status}'/$status}
    line=${line//'${db:Status-Status}'/$st}
    line=${line//'${Version}'/$v}
    printf "$line"
done
exit $rc
EOF
cat >"$stubs/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$STUB_TMP/calls"
pkgs=()
skip=0
for a in "$@"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    case "$a" in
        -t) skip=1 ;;
        -*|install) ;;
        update)
            if [[ " ${STUB_APT_FAIL:-} " == *" update "* ]]; then
                echo "Err:1 http://mirror.invalid/debian bookworm InRelease"
                echo "E: Failed to fetch http://mirror.invalid/debian/dists/bookworm/InRelease  Temporary failure resolving 'mirror.invalid'" >&2
                exit 100
            fi ;;
        *) pkgs+=("$a") ;;
    esac
done
for p in "${pkgs[@]}"; do
    if [[ " ${STUB_APT_FAIL:-} " == *" $p "* ]]; then
        echo "E: Unable to locate package $p" >&2
        exit 100
    fi
done
for p in "${pkgs[@]}"; do
    echo "$p 1:99" >>"$STUB_TMP/installed"
done
EOF
cat >"$stubs/id" <<'EOF'
#!/bin/bash
[ "${1:-}" = -u ] && { echo "${STUB_UID:-0}"; exit 0; }
exec /usr/bin/id "$@"
EOF
chmod +x "$stubs"/*

# every package scripts/setup may want, installed, at a new enough version
all_packages="build-essential git pkg-config ninja-build python3-venv
    libglib2.0-dev libpixman-1-dev libfdt-dev libslirp-dev libdrm-dev ccache
    dwarves bc flex bison libelf-dev kmod busybox-static cpio gzip xz-utils
    zstd file dpkg-dev seabios lm-sensors gnuplot-nox pciutils libdrm-tests
    intel-gpu-tools meson python3-pycotap qemu-system-data"

# apt_etc [FILE CONTENT]...: the machine's apt sources, nothing but these
# files (under the fake /etc/apt: sources.list or sources.list.d/NAME)
etc=$tmp/etc
apt_etc() {
    rm -rf "$etc"
    mkdir -p "$etc/sources.list.d"
    while [ $# -ge 2 ]; do
        printf '%s\n' "$2" >"$etc/$1"
        shift 2
    done
}
debian_sources='Types: deb
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'

# world MISSING...: a system with everything but MISSING, whose apt
# reads Debian from http://mirror.invalid/debian, without the tgpu apt
# sources unless SOURCES=1.  A missing package is unknown to dpkg, or
# known but not installed (config files left, say) when KNOWN lists it:
# dpkg-query prints a line for that one.
world() {
    local p
    : >"$tmp/calls"
    : >"$tmp/installed"
    rm -f "$tmp/tgpu.sources"
    apt_etc sources.list.d/debian.sources "$debian_sources"
    for p in $all_packages; do
        case " ${KNOWN:-} " in *" $p "*) echo "$p -" >>"$tmp/installed" ;; esac
        case " $* " in *" $p "*) continue ;; esac
        case "$p" in
            meson) echo "meson 1.7.0-1~bpo12+1" ;;
            python3-pycotap) echo "python3-pycotap 1.3.1-1~bpo12+1" ;;
            qemu-system-data) echo "qemu-system-data 1:10.0.2+ds-1~bpo12+1" ;;
            *) echo "$p 1.0" ;;
        esac >>"$tmp/installed"
    done
    # the file a first run wrote, kept by the first test below
    if [ "${SOURCES:-0}" = 1 ]; then
        cp "$tmp/tgpu.sources.first" "$tmp/tgpu.sources"
    fi
}

# run_setup: scripts/setup with the stubs; rc, $tmp/out, $tmp/err
run_setup() {
    PATH=$stubs:$PATH STUB_TMP=$tmp TGPU_APT_ETC=$etc \
        TGPU_APT_SOURCES=${TGPU_APT_SOURCES:-$tmp/tgpu.sources} \
        "$setup" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

n=0
failed=0
# check DESCRIPTION COMMAND...: one TAP line.  A condition of several
# commands (a && b) is one quoted argument, evaluated inside check: left
# unquoted, only its first command would be checked.
check() {
    local desc=$1 ok=0
    shift
    n=$((n + 1))
    if [ $# -eq 1 ]; then
        eval "$1" && ok=1
    else
        "$@" && ok=1
    fi
    if [ $ok = 1 ]; then
        echo "ok $n - $desc"
    else
        failed=$((failed + 1))
        echo "not ok $n - $desc"
        echo "#   exit status $rc; stdout, stderr and the stubs' calls:"
        sed 's/^/#   out: /' "$tmp/out"
        sed 's/^/#   err: /' "$tmp/err"
        sed 's/^/#   call: /' "$tmp/calls"
    fi
}
calls_of() { grep "^$1 " "$tmp/calls" || true; }
installs() { calls_of apt-get | grep ' install ' || true; }

# --- missing packages: the case that stopped without a word ---------------
world meson seabios
run_setup
check "missing packages: exits 0" [ "$rc" -eq 0 ]
check "missing packages: apt-get update runs once" \
    [ "$(calls_of apt-get | grep -c ' update')" -eq 1 ]
check "missing packages: installs exactly seabios from bookworm" \
    [ "$(installs | grep -v bookworm-backports)" = \
      "apt-get install -y -q --no-install-recommends seabios" ]
check "missing packages: installs exactly meson from bookworm-backports" \
    [ "$(installs | grep bookworm-backports)" = \
      "apt-get install -y -q --no-install-recommends -t bookworm-backports meson" ]
check "missing packages: says what it installs" \
    grep -q 'installing: seabios$' "$tmp/out"
check "missing packages: writes the apt sources (backports, trixie deb-src)" \
    grep -q '^Suites: trixie' "$tmp/tgpu.sources"
check "missing packages: the apt sources use the machine's mirror" \
    [ "$(grep '^URIs:' "$tmp/tgpu.sources" | sort | uniq -c | tr -s ' ')" = \
      " 2 URIs: http://mirror.invalid/debian" ]
cp "$tmp/tgpu.sources" "$tmp/tgpu.sources.first"

# --- a package dpkg knows but that is not installed, queried last ----------
KNOWN="seabios qemu-system-data" world seabios qemu-system-data
run_setup
check "known but not installed: exits 0" [ "$rc" -eq 0 ]
check "known but not installed: installs seabios and qemu-system-data" \
    [ "$(installs | tr '\n' ' ')" = \
      "apt-get install -y -q --no-install-recommends seabios apt-get install -y -q --no-install-recommends -t bookworm-backports qemu-system-data " ]

# --- a backport that is too old --------------------------------------------
SOURCES=1
world
sed -i 's/^meson .*/meson 1.0.1-5/' "$tmp/installed"
run_setup
check "meson 1.0 (bookworm's own) is replaced from bookworm-backports" \
    [ "$(installs)" = \
      "apt-get install -y -q --no-install-recommends -t bookworm-backports meson" ]

# --- nothing missing ---------------------------------------------------------
world
run_setup
check "nothing missing: exits 0" [ "$rc" -eq 0 ]
check "nothing missing: runs no apt-get" [ -z "$(calls_of apt-get)" ]
check "nothing missing: prints nothing" '[ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'
check "nothing missing: one dpkg-query for all the packages" \
    [ "$(calls_of dpkg-query | wc -l)" -eq 1 ]
SOURCES=0

# --- apt failures ------------------------------------------------------------
world meson seabios busybox-static
STUB_APT_FAIL=seabios run_setup
check "an apt failure: exits non-zero" [ "$rc" -ne 0 ]
check "an apt failure: names the package" \
    grep -q 'cannot install seabios' "$tmp/err"
check "an apt failure: shows the line apt printed" \
    grep -q 'apt: E: Unable to locate package seabios' "$tmp/err"
check "an apt failure: names only the package that failed" \
    [ "$(grep -c 'cannot install' "$tmp/err")" -eq 1 ]
check "an apt failure: says what to do" grep -q 'run scripts/setup again' "$tmp/err"

world seabios
STUB_APT_FAIL=update run_setup
check "no network: exits non-zero" [ "$rc" -ne 0 ]
check "no network: shows apt's error and says to check the network" \
    grep -q 'Temporary failure resolving' "$tmp/err"
check "no network: installs nothing" [ -z "$(installs)" ]

# --- not root ------------------------------------------------------------
world seabios
STUB_UID=1000 run_setup
check "not root: exits non-zero" [ "$rc" -ne 0 ]
check "not root: names the missing package and says to run as root" \
    'grep -q "missing packages: seabios" "$tmp/out" && grep -q "as root" "$tmp/err"'
check "not root: runs no apt-get" [ -z "$(calls_of apt-get)" ]

# --- the machine's mirror, from its apt sources (scripts/lib/apt-mirror.sh) ---
# mirror_case DESCRIPTION URI: setup, with the tgpu sources missing and the
# apt folder as the caller left it, writes both entries for URI
uris_written() { grep '^URIs:' "$tmp/tgpu.sources" 2>/dev/null | sort | uniq -c | tr -s ' '; }
mirror_case() {
    : >"$tmp/calls"
    rm -f "$tmp/tgpu.sources"
    run_setup
    check "mirror: $1: writes $2" '[ "$rc" -eq 0 ] && [ "$(uris_written)" = " 2 URIs: '"$2"'" ]'
}
SOURCES=1 world

apt_etc sources.list.d/debian.sources "$(sed 's#mirror.invalid#deb822.invalid#' <<<"$debian_sources")"
mirror_case "a deb822 file" http://deb822.invalid/debian

apt_etc sources.list 'deb http://list.invalid/debian/ bookworm main
deb http://list.invalid/debian-security bookworm-security main'
mirror_case "a one-line list (trailing / dropped)" http://list.invalid/debian

apt_etc sources.list 'deb http://first.invalid/debian bookworm main' \
    sources.list.d/debian.sources "$debian_sources"
mirror_case "both: sources.list before sources.list.d" http://first.invalid/debian

apt_etc sources.list.d/b.sources "$debian_sources" \
    sources.list.d/a.list 'deb http://a.invalid/debian bookworm-updates main'
mirror_case "both in sources.list.d: in the order of their names" http://a.invalid/debian

apt_etc sources.list '# deb http://old.invalid/debian bookworm main
deb http://new.invalid/debian bookworm main # the new one' \
    sources.list.d/debian.sources "$debian_sources"
mirror_case "a commented-out one-line entry" http://new.invalid/debian

apt_etc sources.list.d/debian.sources 'Types: deb
# URIs: http://old.invalid/debian
URIs: http://new.invalid/debian
Suites: bookworm'
mirror_case "a commented-out deb822 field" http://new.invalid/debian

apt_etc sources.list 'deb [ arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg ] http://opt.invalid/debian bookworm main contrib'
mirror_case "an option block" http://opt.invalid/debian

apt_etc sources.list.d/a.sources 'Types: deb
URIs: http://off.invalid/debian
Suites: bookworm
Enabled: no' \
    sources.list.d/a.list.disabled 'deb http://off.invalid/debian bookworm main' \
    sources.list.d/debian.sources "$debian_sources"
mirror_case "a disabled stanza and a disabled file" http://mirror.invalid/debian

apt_etc sources.list.d/a.sources 'Types: deb
URIs: https://vendor.invalid/node_20.x
Suites: nodistro
Components: main' \
    sources.list 'deb-src http://src.invalid/debian bookworm main' \
    sources.list.d/debian.sources "$debian_sources"
mirror_case "another vendor's archive and a deb-src entry come after a deb one" \
    http://mirror.invalid/debian

apt_etc sources.list.d/vendor.sources "$debian_sources"
printf "%s\n%s\n" "$(head -n 1 "$tmp/tgpu.sources.first")" \
    'Types: deb
URIs: http://stale.invalid/debian
Suites: bookworm-backports trixie' >"$etc/sources.list.d/tgpu.sources"
TGPU_APT_SOURCES=$etc/sources.list.d/tgpu.sources run_setup
check "mirror: setup's own file is not read, and is written again when stale" \
    '[ "$rc" -eq 0 ] &&
     [ "$(grep "^URIs:" "$etc/sources.list.d/tgpu.sources" | sort -u)" = "URIs: http://mirror.invalid/debian" ]'

apt_etc sources.list.d/debian.sources "$debian_sources"
cp "$tmp/tgpu.sources.first" "$tmp/tgpu.sources"
sed -i 's#mirror.invalid#stale.invalid#' "$tmp/tgpu.sources"
: >"$tmp/calls"
STUB_UID=1000 run_setup
check "mirror: a stale file and not root: a warning, the build goes on" \
    '[ "$rc" -eq 0 ] && grep -q "run scripts/setup as root to write it again" "$tmp/err" &&
     [ -z "$(calls_of apt-get)" ]'

TGPU_APT_MIRROR=http://override.invalid/debian mirror_case "TGPU_APT_MIRROR overrides" \
    http://override.invalid/debian

apt_etc
rm -f "$tmp/tgpu.sources"
run_setup
check "mirror: no sources at all: exits non-zero" [ "$rc" -ne 0 ]
check "mirror: no sources at all: names the files it read and the variable" \
    'grep -qF "apt reads no source files here ($etc/sources.list, $etc/sources.list.d/" "$tmp/err" &&
     grep -q "set TGPU_APT_MIRROR" "$tmp/err"'
check "mirror: no sources at all: writes nothing, installs nothing" \
    '[ ! -e "$tmp/tgpu.sources" ] && [ -z "$(installs)" ]'

apt_etc sources.list.d/a.list '# nothing here' sources.list.d/b.sources 'Types: deb
URIs: https://vendor.invalid/x
Suites: nodistro'
run_setup
check "mirror: only other archives: names the files it read" \
    '[ "$rc" -ne 0 ] && grep -q "read: $etc/sources.list.d/a.list $etc/sources.list.d/b.sources" "$tmp/err"'

# the security archive, which check-fresh gives its bare root
mirror_of() { TGPU_APT_ETC=$etc "$top/scripts/lib/apt-mirror.sh" "$@" 2>"$tmp/err"; }
apt_etc sources.list.d/debian.sources "$debian_sources"
check "mirror: the security archive of a deb822 file" \
    [ "$(mirror_of security)" = http://mirror.invalid/debian-security ]
apt_etc sources.list 'deb http://list.invalid/debian bookworm main
deb [signed-by=/k.gpg] http://sec.invalid/debian-security/ bookworm-security main'
check "mirror: the security archive of a one-line list" \
    '[ "$(mirror_of security)" = http://sec.invalid/debian-security ] &&
     [ "$(mirror_of debian)" = http://list.invalid/debian ]'
check "mirror: TGPU_APT_SECURITY_MIRROR overrides" \
    [ "$(TGPU_APT_SECURITY_MIRROR=http://o.invalid/s mirror_of security)" = http://o.invalid/s ]
apt_etc sources.list 'deb http://list.invalid/debian bookworm main'
check "mirror: no security archive: an error naming its variable" \
    '! mirror_of security >/dev/null && grep -q "set TGPU_APT_SECURITY_MIRROR" "$tmp/err"'
SOURCES=0

# --- the ERR trap of scripts/lib/script.sh --------------------------------------
cat >"$tmp/fails" <<EOF
#!/bin/bash
. "$top/scripts/lib/script.sh"
script_init fails
v=\$(false)
echo "not reached"
EOF
chmod +x "$tmp/fails"
: >"$tmp/calls"
"$tmp/fails" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a failing \$(...) ends a script with a message, not silently" \
    '[ "$rc" -ne 0 ] && grep -q "^fails: error: .* failed with exit status 1 at $tmp/fails:4" "$tmp/err" &&
     ! grep -q "not reached" "$tmp/out"'

echo "1..$n"
[ "$failed" -eq 0 ]
