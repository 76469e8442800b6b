#!/bin/bash
# The machine's own Debian mirror, read from its apt sources, so that
# nothing in tgpu names a mirror host: a user whose apt reads Debian from
# a local, company or caching mirror gets that mirror for every suite
# and component the set-up adds (backports, trixie deb-src, contrib).
#
#   scripts/lib/apt-mirror.sh [debian|security]   prints the URI
#   . scripts/lib/apt-mirror.sh; apt_mirror debian|security
#
# It reads the files apt reads, in apt's order: Dir::Etc::sourcelist,
# then Dir::Etc::sourceparts' *.list and *.sources files sorted by name
# (apt ignores other names, such as foo.list.disabled).  One-line entries
# may carry an option block ("deb [arch=amd64 signed-by=...] URI SUITE
# ..."); deb822 stanzas with "Enabled: no" and commented lines are
# skipped, and so is the file scripts/setup writes (it is made from this
# answer).  "debian" is the first URI serving a Debian suite (bookworm,
# bookworm-updates, stable, sid, ...), a "deb" entry before a "deb-src"
# one; "security" the first serving a SUITE-security suite.
#
# TGPU_APT_MIRROR and TGPU_APT_SECURITY_MIRROR override the answers;
# TGPU_APT_ETC reads another apt configuration folder (the tests' fake
# roots).  With no answer it fails with a message that names the files
# it read and the variable to set.

# the first line of the file scripts/setup writes
apt_mirror_stamp="# Added by tgpu's scripts/setup."

# apt_mirror_paths: apt's sources.list and sources.list.d, into
# apt_mirror_list and apt_mirror_parts
apt_mirror_paths() {
    local list parts
    if command -v apt-config >/dev/null 2>&1; then
        eval "$(apt-config ${TGPU_APT_ETC:+-o Dir::Etc="$TGPU_APT_ETC"} shell \
            list Dir::Etc::sourcelist/f parts Dir::Etc::sourceparts/d)"
    fi
    apt_mirror_list=${list:-${TGPU_APT_ETC:-/etc/apt}/sources.list}
    apt_mirror_parts=${parts:-${TGPU_APT_ETC:-/etc/apt}/sources.list.d}
    apt_mirror_parts=${apt_mirror_parts%/}
}

# apt_mirror_files: the source files apt reads, in its order, one a line
apt_mirror_files() {
    local f
    [ -f "$apt_mirror_list" ] && printf '%s\n' "$apt_mirror_list"
    [ -d "$apt_mirror_parts" ] || return 0
    # apt's own rule for part names: [A-Za-z0-9_.-] and .list or .sources
    for f in "$apt_mirror_parts"/*; do
        printf '%s\n' "$f"
    done | LC_ALL=C sort | while read -r f; do
        case "${f##*/}" in
            *[!A-Za-z0-9_.-]*) continue ;;
            *.list|*.sources) [ -f "$f" ] && printf '%s\n' "$f" ;;
        esac
    done
}

# apt_mirror_entries FILE...: "TYPE URI SUITE" for every enabled entry,
# in order (a deb822 stanza gives one line per type, URI and suite)
apt_mirror_entries() {
    local f
    for f in "$@"; do
        [ "$(head -n 1 "$f")" = "$apt_mirror_stamp" ] && continue
        case "$f" in
            *.sources) awk '
                function flush(   t, u, s, nt, nu, ns, i, j, k, T, U, S) {
                    if (enabled && types != "" && uris != "" && suites != "") {
                        nt = split(types, T); nu = split(uris, U); ns = split(suites, S)
                        for (i = 1; i <= nt; i++)
                            for (j = 1; j <= nu; j++)
                                for (k = 1; k <= ns; k++)
                                    print T[i], U[j], S[k]
                    }
                    types = uris = suites = field = ""; enabled = 1
                }
                BEGIN { enabled = 1 }
                /^#/ { next }
                /^[ \t]*$/ { flush(); next }
                /^[ \t]/ {    # a continuation of the last field
                    if (field == "types") types = types " " $0
                    else if (field == "uris") uris = uris " " $0
                    else if (field == "suites") suites = suites " " $0
                    next
                }
                {
                    name = tolower($0); sub(/:.*/, "", name)
                    value = $0; sub(/^[^:]*:[ \t]*/, "", value)
                    field = name
                    if (name == "types") types = value
                    else if (name == "uris") uris = value
                    else if (name == "suites") suites = value
                    else if (name == "enabled" && tolower(value) ~ /^(no|false|0)/) enabled = 0
                }
                END { flush() }' "$f" ;;
            *) awk '
                { sub(/#.*/, "") }
                $1 == "deb" || $1 == "deb-src" {
                    line = $0
                    # the option block, which may hold spaces: [ a=b c=d ]
                    if (line ~ /\[/) sub(/\[[^]]*\]/, "", line)
                    n = split(line, w)
                    if (n >= 3) print w[1], w[2], w[3]
                }' "$f" ;;
        esac
    done
}

# apt_mirror_is_suite KIND SUITE: does SUITE belong to that archive?
apt_mirror_is_suite() {
    local base=$2
    case "$1:$2" in
        security:*-security|security:*/updates) return 0 ;;
        security:*|debian:*-security|debian:*/updates) return 1 ;;
    esac
    base=${base%-backports-sloppy}
    base=${base%-backports}
    base=${base%-proposed-updates}
    base=${base%-updates}
    case "$base" in
        buster|bullseye|bookworm|trixie|forky|duke|sid|experimental|\
        oldoldstable|oldstable|stable|testing|unstable) return 0 ;;
    esac
    return 1
}

apt_mirror() {
    local kind=${1:-debian} var example what files type uri suite want
    case "$kind" in
        debian)
            var=TGPU_APT_MIRROR example=http://mirror.invalid/debian
            what="archive (a suite such as bookworm or bookworm-updates)" ;;
        security)
            var=TGPU_APT_SECURITY_MIRROR
            example=http://mirror.invalid/debian-security
            what="security archive (a suite such as bookworm-security)" ;;
        *) echo "apt-mirror: unknown archive '$kind' (debian or security)" >&2
           return 2 ;;
    esac
    if [ -n "${!var:-}" ]; then
        printf '%s\n' "${!var%/}"
        return 0
    fi
    apt_mirror_paths
    mapfile -t files < <(apt_mirror_files)
    for want in deb deb-src; do
        while read -r type uri suite; do
            [ "$type" = "$want" ] || continue
            if apt_mirror_is_suite "$kind" "$suite"; then
                printf '%s\n' "${uri%/}"
                return 0
            fi
        done < <([ ${#files[@]} -eq 0 ] || apt_mirror_entries "${files[@]}")
    done
    {
        echo "apt-mirror: no apt source serves the Debian $what."
        if [ ${#files[@]} -eq 0 ]; then
            echo "apt-mirror: apt reads no source files here ($apt_mirror_list, $apt_mirror_parts/*.list and *.sources)."
        else
            echo "apt-mirror: read: ${files[*]}"
        fi
        echo "apt-mirror: set $var to the mirror's URI (for example $var=$example)."
    } >&2
    return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -uo pipefail
    apt_mirror "${1:-debian}"
fi
