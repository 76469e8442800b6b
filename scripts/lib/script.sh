# Shared start of tgpu's set-up and build scripts (sourced, not run).
#
#   . "$(dirname "$0")/lib/script.sh"
#   script_init NAME
#
# gives `set -Eeuo pipefail`, say/warn/die prefixed with NAME, and an ERR
# trap: a command that fails and ends the script -- in a function or a
# $(...) too -- is named with its exit status, file and line on stderr,
# so that no script stops without a word.

script_init() {
    script_name=$1
    set -Eeuo pipefail
    trap 'script_on_err $? "$BASH_COMMAND" "${BASH_SOURCE[0]}" "$LINENO" "${FUNCNAME[*]:-}"' ERR
}

script_on_err() {    # STATUS COMMAND FILE LINE FUNCTIONS
    local where=$3:$4
    # name the function only when the command is not in the script's body
    [ -n "$5" ] && [ "$5" != main ] && where="$where (in ${5%% *})"
    # $(...) runs in a subshell: the command that failed there is named
    # first, then the assignment it ended in the script itself
    [ "${BASH_SUBSHELL:-0}" -eq 0 ] || where="$where, in a subshell"
    printf '%s: error: `%s` failed with exit status %s at %s\n' \
        "$script_name" "$2" "$1" "$where" >&2
}

say() { printf '%s: %s\n' "$script_name" "$*"; }
warn() { printf '%s: warning: %s\n' "$script_name" "$*" >&2; }
die() {
    trap - ERR
    printf '%s: error: %s\n' "$script_name" "$*" >&2
    exit 1
}
