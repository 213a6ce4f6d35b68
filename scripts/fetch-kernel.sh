#!/bin/sh
# fetch-kernel.sh — Debian's own Linux 6.12 kernel for the tests, from the archive into a cache.
#
#   sh scripts/fetch-kernel.sh ARCH CACHE_DIR        ARCH: arm64, amd64 (powerpc: see KERNELS)
#
# Picks the newest linux-image-6.12.<n>+deb13-<flavour>[-unsigned] the machine's apt lists hold
# for ARCH's Debian architecture (foreign ones too: APT::Architectures is given on the command
# line, nothing is added to dpkg), the name matched whole (for amd64 never the -rt-amd64 or
# -cloud-amd64 flavours), `apt-get download`s it, unpacks it with `dpkg-deb -x` (never
# installed) and keeps, in CACHE_DIR/ARCH/:
#
#   file            what
#   Image           the kernel, named by its format (KERNELS' fourth column): arm64 Image
#                   (Debian's arm64 vmlinuz is already an uncompressed Image), amd64 bzImage,
#                   powerpc vmlinux
#   config          its .config (boot/config-<release>)
#   modules/<rel>/  the modules tree (usr/lib/modules/<release>: xz-compressed .ko, modules.dep ...)
#   PACKAGE         the package name;  VERSION  the package version (6.12.117-1);
#   RELEASE         the kernel release, uname -r (6.12.117+deb13-arm64)
#   .complete       the stamp, written last: the extraction is whole
#
# The package's System.map is an 83-byte placeholder (the real one is in the -dbg package):
# dropped with the rest.  Why the archive and not a kernel built here: the tests boot the
# kernel users run (issue 15), and Debian keeps only recent <n>, so "the newest listed" is the
# one that can be downloaded.
#
# Reuse: a CACHE_DIR/ARCH/ holding .complete is used as it is, without the network (delete it,
# or `make clean-cache`, to fetch a newer kernel).  Atomic: the package is unpacked into a
# temporary directory inside CACHE_DIR, the kept files assembled there, the stamp written, and
# only then renamed to CACHE_DIR/ARCH; an interrupted fetch leaves no half cache (its temporary
# directory is removed by the next run).  Concurrent runs serialise on CACHE_DIR/.lock-ARCH.
#
# Prints one line on stdout:  ARCH PACKAGE VERSION RELEASE PATH-OF-THE-KERNEL
# Exit status: 0 the kernel is there; 1 it could not be fetched (offline, lists missing, no
# such package) -- the message is also left in CACHE_DIR/ARCH.error for the tests that skip
# because of it; 2 bad usage.
set -eu
PROG=fetch-kernel
SERIES=6.12
DEBREL=deb13
# ARCH  Debian architecture  flavour  kept kernel file  package suffix  file in boot/
KERNELS="arm64 arm64 arm64 Image -unsigned vmlinuz
amd64 amd64 amd64 bzImage -unsigned vmlinuz
powerpc powerpc powerpc-smp vmlinux - vmlinux"

usage() {
    echo "usage: $PROG ARCH CACHE_DIR   (ARCH: $(echo "$KERNELS" | cut -d' ' -f1 | tr '\n' ' '))" >&2
    exit 2
}

# The native architecture and ARCH's, for every apt call: the foreign lists are read (and were
# fetched by scripts/install-deps.sh) with the same option, without `dpkg --add-architecture`.
apt_arches() {
    echo "-o APT::Architectures::=$(dpkg --print-architecture) -o APT::Architectures::=$DEBARCH"
}

# die MESSAGE: the failure, on stderr and in CACHE_DIR/ARCH.error (the skipping tests print it)
die() {
    echo "$PROG: $*" >&2
    echo "$PROG: $*" >"$CACHE/$ARCH.error" 2>/dev/null || true
    exit 1
}

# newest_package: the name of the newest linux-image-6.12.<n>+deb13-<flavour><suffix> listed
newest_package() {
    apt-cache $(apt_arches) search --names-only \
        "^linux-image-${SERIES}\\.[0-9]+\\+${DEBREL}-${FLAVOUR}${SUFFIX}\$" 2>/dev/null |
        cut -d' ' -f1 | sort -t. -k3,3n | tail -n 1
}

# lists_hint: why the package may be missing from the lists
lists_hint() {
    case $DEBARCH in
    powerpc) echo "powerpc is a Debian Ports architecture: its kernels are not in the main archive" ;;
    *) echo "the archive's trixie $DEBARCH lists missing? run as root: sh scripts/install-deps.sh" ;;
    esac
}

# candidate PACKAGE: the version apt would download for ARCH's architecture
candidate() {
    apt-cache $(apt_arches) policy "$1:$DEBARCH" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }'
}

# report DIR: the line this script prints for a complete cache
report() {
    echo "$ARCH $(cat "$1/PACKAGE") $(cat "$1/VERSION") $(cat "$1/RELEASE") $1/$KFILE"
}

# fetch_into TMP: downloads and unpacks the package into TMP and assembles the kept files there
fetch_into() {
    pkg=$(newest_package)
    [ -n "$pkg" ] || die "no linux-image-${SERIES}.<n>+${DEBREL}-${FLAVOUR}${SUFFIX} in the apt lists for" \
        "$DEBARCH ($(lists_hint))"
    ver=$(candidate "$pkg")
    [ -n "$ver" ] || die "$pkg:$DEBARCH has no candidate version in the apt lists"
    echo "$PROG: downloading $pkg:$DEBARCH $ver" >&2
    # as root apt hands the download to its _apt user, which cannot write here: keep it root
    sandbox=
    [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
    (cd "$1" && apt-get -q $(apt_arches) $sandbox download "$pkg:$DEBARCH=$ver" >&2) ||
        die "apt-get download $pkg:$DEBARCH=$ver failed (offline? the archive no longer has it?)"
    deb=$(ls "$1"/*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || die "apt-get download left no .deb in $1"
    dpkg-deb -x "$deb" "$1/x" || die "dpkg-deb -x $deb failed"
    keep "$1" "$pkg" "$ver"
}

# keep TMP PACKAGE VERSION: moves the kernel, config and modules out of TMP/x, drops the rest
keep() {
    rel=$(ls "$1/x/boot" | sed -n "s/^$BOOTFILE-//p" | head -n 1)
    [ -n "$rel" ] || die "$2 $3: no boot/$BOOTFILE-<release> in the package"
    mkdir "$1/k"
    mv "$1/x/boot/$BOOTFILE-$rel" "$1/k/$KFILE" || die "$2 $3: cannot move boot/$BOOTFILE-$rel"
    mv "$1/x/boot/config-$rel" "$1/k/config" || die "$2 $3: no boot/config-$rel in the package"
    mkdir "$1/k/modules"
    mods=$1/x/usr/lib/modules/$rel
    [ -d "$mods" ] || mods=$1/x/lib/modules/$rel
    [ -d "$mods" ] || die "$2 $3: no usr/lib/modules/$rel in the package"
    mv "$mods" "$1/k/modules/$rel"
    echo "$2" >"$1/k/PACKAGE"
    echo "$3" >"$1/k/VERSION"
    echo "$rel" >"$1/k/RELEASE"
    : >"$1/k/.complete"
}

[ $# -eq 2 ] || usage
ARCH=$1
CACHE=$2
ROW=$(echo "$KERNELS" | awk -v a="$ARCH" '$1 == a')
[ -n "$ROW" ] || usage
set -- $ROW
DEBARCH=$2 FLAVOUR=$3 KFILE=$4 SUFFIX=$5 BOOTFILE=$6
[ "$SUFFIX" = - ] && SUFFIX=
mkdir -p "$CACHE" || { echo "$PROG: cannot create $CACHE" >&2; exit 1; }
CACHE=$(cd "$CACHE" && pwd)
DEST=$CACHE/$ARCH

exec 9>"$CACHE/.lock-$ARCH"
flock 9
if [ -f "$DEST/.complete" ]; then
    rm -f "$CACHE/$ARCH.error"
    report "$DEST"
    exit 0
fi
rm -rf "$CACHE/.tmp-$ARCH".*
TMP=$(mktemp -d "$CACHE/.tmp-$ARCH.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
fetch_into "$TMP"
rm -rf "$DEST"
mv "$TMP/k" "$DEST"
rm -f "$CACHE/$ARCH.error"
report "$DEST"
