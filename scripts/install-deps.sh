#!/bin/sh
# Installs the Debian packages pmusim needs to build, test and benchmark, if any are missing.
# As root it runs apt-get; otherwise it prints the exact commands and fails.
#   scripts/install-deps.sh [--bench]     (--bench also wants QEMU, the optional comparison peer)
# clang and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) build the fuzzing tree that
# `make test` smoke-runs and the sanitizer tree of `make sanitize`; llvm gives their reports
# symbols (llvm-symbolizer).  python3 runs tests/e2e/check_trace_json.py (the --trace-json checker;
# a minimal Debian 12 may lack it).
#
# The engine, Unicorn, must be 2.1.1 or newer (docs/engine.md says why). Debian 12 ships 2.0.1;
# Debian 13 ("trixie") ships 2.1.1, whose packages need nothing newer than Debian 12's libc. So on
# Debian 12 this script adds the trixie suite as an apt source pinned at priority 100 (nothing is
# ever upgraded from it on its own) and asks for the engine alone from it, per package
# (`libunicorn-dev/trixie`; `-t trixie` would raise the whole suite for the transaction). The
# archive address is the machine's own Debian source, read from its apt configuration: this
# repository names no mirror.
#
# The Linux tests boot Debian 13's own kernels (scripts/fetch-kernel.sh downloads
# linux-image-6.12.<n>+deb13-arm64-unsigned and -amd64-unsigned with `apt-get download`, never
# installing them): apt
# must list trixie's packages for KERNEL_ARCHES, foreign ones included.  So the trixie suite is a
# source (the same pinned one) and, once, `apt-get update` runs with APT::Architectures naming
# them (no `dpkg --add-architecture`: nothing foreign is ever installed).  Every update here
# names them, because an update without them deletes the foreign lists.
set -eu
UNICORN_MIN=2.1.1
PKGS="cmake make pkg-config gcc libc6-dev libcapstone-dev libfdt-dev zlib1g-dev libzstd-dev liblzma-dev check device-tree-compiler \
gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gcc-powerpc-linux-gnu binutils-powerpc-linux-gnu \
clang libclang-rt-14-dev llvm trace-cmd libtracecmd-dev libtraceevent-dev python3 gdb-multiarch acpica-tools"
if [ "${1:-}" = "--bench" ]; then
    PKGS="$PKGS qemu-system-x86 qemu-system-arm qemu-system-ppc time linux-perf"
fi
KERNEL_ARCHES="arm64 amd64"
APT_ARCHES="-o APT::Architectures::=$(dpkg --print-architecture)"
for a in $KERNEL_ARCHES; do APT_ARCHES="$APT_ARCHES -o APT::Architectures::=$a"; done
SOURCE=/etc/apt/sources.list.d/pmusim-trixie.sources
PIN=/etc/apt/preferences.d/pmusim-trixie

installed() {
    s=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)
    case "$s" in *"install ok installed"*) return 0 ;; esac
    return 1
}

engine_ok() {
    installed libunicorn-dev || return 1
    v=$(dpkg-query -W -f='${Version}' libunicorn-dev)
    dpkg --compare-versions "$v" ge "$UNICORN_MIN"
}

# The URI of the machine's main Debian archive: the deb822 `URIs:` of a source whose suites are
# the release itself (not -security), else the first `deb` line of sources.list.
debian_uri() {
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$SOURCE" ] || continue
        awk 'BEGIN{RS=""} /Suites:[^\n]*(bookworm|trixie)( |\n|$)/ && !/-security/ {
                 if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { u=substr($0,RSTART,RLENGTH);
                 sub(/URIs:[ \t]*/, "", u); print u; exit } }' "$f"
    done | head -n 1 | grep . && return 0
    awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//)
         { print $i; exit } }' /etc/apt/sources.list 2>/dev/null | head -n 1 | grep .
}

add_trixie() {
    uri=$(debian_uri) || { echo "install-deps: no Debian archive found in /etc/apt/sources.list*" >&2; exit 1; }
    printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' \
        "$uri" /usr/share/keyrings/debian-archive-keyring.gpg >"$SOURCE"
    printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' >"$PIN"
    echo "install-deps: added $SOURCE ($uri, suite trixie) pinned at 100 by $PIN"
}

# Is suite trixie an apt source already (this script's, or the machine's own on Debian 13)?
trixie_source() {
    [ -f "$SOURCE" ] && return 0
    grep -Eqs '^[[:space:]]*(Suites:.*[[:space:]]trixie([[:space:]]|$)|deb[[:space:]].*[[:space:]]trixie[[:space:]])' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list
}

# Are trixie's package lists there for every kernel architecture? (apt's lists directory holds
# one Packages file per suite, component and architecture.)
kernel_lists_ok() {
    listdir=/var/lib/apt/lists
    eval "$(apt-config shell listdir Dir::State::lists/d)"
    for a in $KERNEL_ARCHES; do
        ls "$listdir"/*_dists_trixie_main_binary-"${a}"_Packages* >/dev/null 2>&1 || return 1
    done
}

missing=""
for p in $PKGS; do installed "$p" || missing="$missing $p"; done
engine_ok || missing="$missing libunicorn-dev/trixie"
lists=""
kernel_lists_ok || lists="trixie's $KERNEL_ARCHES package lists (for scripts/fetch-kernel.sh)"
[ -z "$missing$lists" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    [ -n "$missing" ] && echo "install-deps: missing Debian packages:$missing" >&2
    [ -n "$lists" ] && echo "install-deps: missing $lists" >&2
    echo "install-deps: run as root:  sh scripts/install-deps.sh $*" >&2
    exit 1
fi
echo "install-deps: installing:$missing${lists:+ $lists}"
export DEBIAN_FRONTEND=noninteractive
case "$missing$lists" in *trixie*) trixie_source || add_trixie ;; esac
apt-get update -q $APT_ARCHES >/dev/null
kernel_lists_ok || echo "install-deps: warning: still no $lists after apt-get update" >&2
[ -z "$missing" ] && exit 0
apt-get install -y -q --no-install-recommends $missing
engine_ok || { echo "install-deps: libunicorn-dev $UNICORN_MIN or newer did not install" >&2; exit 1; }
