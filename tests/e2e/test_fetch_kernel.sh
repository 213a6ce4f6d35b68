#!/bin/sh
# test_fetch_kernel.sh — scripts/fetch-kernel.sh without the network: apt-cache and apt-get are
# stubs on PATH serving a small package built here with dpkg-deb -b (Debian's real layout: boot/
# vmlinuz-<rel>, boot/config-<rel>, a placeholder System.map, usr/lib/modules/<rel>/, docs), so
# what is checked is the script's own work: the newest <n> picked (numerically: 100 > 99 > 9),
# the kept files and nothing else, VERSION/RELEASE/PACKAGE, reuse of a complete cache without
# any apt call, a failed download leaving no cache and no temporary directory but the message
# in ARCH.error, leftovers of an interrupted fetch removed, bad usage refused with status 2;
# amd64: the generic flavour's newest -unsigned package of deb13, never the -rt or -cloud ones
# (nor deb12's, nor -dbg), kept as bzImage.  The stub apt-cache filters its list with the
# script's own pattern (an ERE, as apt-cache search takes it).
. "$(dirname "$0")/lib.sh" "$@"
FETCH=$SRC/scripts/fetch-kernel.sh
REL=6.12.100+deb13-arm64
PKG=linux-image-$REL-unsigned
VER=6.12.100-1

# mkpkg DIR ARCH REL PKG VER KERNEL-BYTES DEB: what Debian's linux-image-*-unsigned holds, in miniature
mkpkg() {
    mkdir -p "$1/DEBIAN" "$1/boot" "$1/usr/lib/modules/$3/kernel/drivers" "$1/usr/share/doc/$4"
    printf '%s' "$6" >"$1/boot/vmlinuz-$3"
    echo "CONFIG_KALLSYMS_ALL=y" >"$1/boot/config-$3"
    echo "ffffffffffffffff B The real System.map is in the linux-image-$3-dbg package" >"$1/boot/System.map-$3"
    echo "kernel/drivers/x.ko.xz:" >"$1/usr/lib/modules/$3/modules.dep"
    printf 'xz' >"$1/usr/lib/modules/$3/kernel/drivers/x.ko.xz"
    echo copyright >"$1/usr/share/doc/$4/copyright"
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: t <t@t>\nDescription: t\n' \
        "$4" "$5" "$2" >"$1/DEBIAN/control"
    dpkg-deb -b -Zgzip "$1" "$7" >/dev/null
}
P=$T/pkgroot
mkpkg "$P" arm64 "$REL" "$PKG" "$VER" ARMd-image "$T/pkg.deb"
AREL=6.12.100+deb13-amd64
APKG=linux-image-$AREL-unsigned
AP=$T/pkgroot-amd64
mkpkg "$AP" amd64 "$AREL" "$APKG" "$VER" "bzImage-HdrS" "$T/pkg-amd64.deb"

# the stubs: apt-cache lists three <n>, apt-get download copies the package (or fails when
# $T/offline exists); every call is logged
mkdir "$T/bin"
cat >"$T/bin/apt-cache" <<EOF
#!/bin/sh
echo "apt-cache \$*" >>"$T/apt.log"
case "\$*" in
*search*)
    for pat; do :; done             # the last argument: the pattern
    printf '%s\n' linux-image-6.12.9+deb13-arm64-unsigned $PKG linux-image-6.12.99+deb13-arm64-unsigned \
        linux-image-6.12.99+deb13-amd64-unsigned $APKG linux-image-6.12.101+deb13-rt-amd64-unsigned \
        linux-image-6.12.102+deb13-cloud-amd64-unsigned linux-image-6.12.103+deb12-amd64-unsigned \
        linux-image-6.12.104+deb13-amd64-dbg linux-image-6.12.105+deb13-amd64 | grep -E "\$pat" | sed 's/\$/ - Linux/' ;;
*policy*$PKG:arm64*) printf '%s:\n  Installed: (none)\n  Candidate: %s\n' $PKG $VER ;;
*policy*$APKG:amd64*) printf '%s:\n  Installed: (none)\n  Candidate: %s\n' $APKG $VER ;;
esac
EOF
cat >"$T/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$T/apt.log"
[ -e "$T/offline" ] && { echo "E: Failed to fetch (stub offline)" >&2; exit 100; }
case "\$*" in
*"download $PKG:arm64=$VER"*) cp "$T/pkg.deb" "./${PKG}_${VER}_arm64.deb" ;;
*"download $APKG:amd64=$VER"*) cp "$T/pkg-amd64.deb" "./${APKG}_${VER}_amd64.deb" ;;
*) exit 100 ;;
esac
EOF
chmod +x "$T/bin/apt-cache" "$T/bin/apt-get"
fetch() { PATH=$T/bin:$PATH sh "$FETCH" "$@"; }
C=$T/cache
D=$C/arm64

# a first fetch
fetch arm64 "$C" >"$T/f1.out" 2>"$T/f1.err"
check "first fetch succeeds ($(cat "$T/f1.err"))" [ $? -eq 0 ]
check "prints arch, package, version, release, path" \
    [ "$(cat "$T/f1.out")" = "arm64 $PKG $VER $REL $D/Image" ]
check "downloads the newest <n> (100, not 99 or 9)" grep -q "download $PKG:arm64=$VER" "$T/apt.log"
check "apt told of the foreign architecture" grep -q "APT::Architectures::=arm64" "$T/apt.log"
check "Image is the package's vmlinuz" cmp -s "$D/Image" "$P/boot/vmlinuz-$REL"
check "config kept" cmp -s "$D/config" "$P/boot/config-$REL"
check "modules tree kept" cmp -s "$D/modules/$REL/kernel/drivers/x.ko.xz" "$P/usr/lib/modules/$REL/kernel/drivers/x.ko.xz"
check "VERSION is the package version" [ "$(cat "$D/VERSION")" = "$VER" ]
check "RELEASE is uname -r" [ "$(cat "$D/RELEASE")" = "$REL" ]
check "PACKAGE named" [ "$(cat "$D/PACKAGE")" = "$PKG" ]
check "stamp written" [ -f "$D/.complete" ]
(cd "$D" && find . | sort) >"$T/kept"
printf '%s\n' . ./.complete ./Image ./PACKAGE ./RELEASE ./VERSION ./config ./modules "./modules/$REL" \
    "./modules/$REL/kernel" "./modules/$REL/kernel/drivers" "./modules/$REL/kernel/drivers/x.ko.xz" \
    "./modules/$REL/modules.dep" >"$T/want"
check "nothing else kept (no .deb, System.map, docs): $(diff "$T/want" "$T/kept" | tr '\n' ' ')" cmp -s "$T/want" "$T/kept"
check "no temporary directory left" [ -z "$(ls -d "$C"/.tmp-* 2>/dev/null)" ]

# reuse: no apt call at all, even offline
: >"$T/apt.log"
touch "$T/offline"
fetch arm64 "$C" >"$T/f2.out" 2>"$T/f2.err"
check "reuse succeeds offline" [ $? -eq 0 ]
check "reuse prints the same line" cmp -s "$T/f1.out" "$T/f2.out"
check "reuse calls no apt tool" [ ! -s "$T/apt.log" ]

# offline with an empty cache: a clear failure, no cache, the message left for skipping tests
C2=$T/cache2
mkdir -p "$C2/.tmp-arm64.interrupted/x"
fetch arm64 "$C2" >"$T/f3.out" 2>"$T/f3.err"
st=$?
check "offline and empty: exit 1 (got $st)" [ $st -eq 1 ]
check "offline: the message names the download" grep -q "apt-get download $PKG:arm64=$VER failed" "$T/f3.err"
tail -n 1 "$T/f3.err" >"$T/f3.last"
check "offline: the message (the last line) left in arm64.error" cmp -s "$T/f3.last" "$C2/arm64.error"
check "offline: no cache" [ ! -e "$C2/arm64" ]
check "offline: an interrupted fetch's leftovers and its own temporary removed" \
    [ -z "$(ls -d "$C2"/.tmp-* 2>/dev/null)" ]
rm "$T/offline"
fetch arm64 "$C2" >/dev/null 2>&1
check "back online: fetched, arm64.error removed" [ -f "$C2/arm64/.complete" ] && [ ! -e "$C2/arm64.error" ]

# a half cache (no stamp: written by hand or an older script) is replaced, not trusted
rm "$C2/arm64/.complete" "$C2/arm64/Image"
fetch arm64 "$C2" >/dev/null 2>&1
check "a cache without its stamp is fetched again" cmp -s "$C2/arm64/Image" "$P/boot/vmlinuz-$REL"

# amd64: the generic flavour, newest <n> of deb13 (not 101-rt, 102-cloud, 103 of deb12, 104-dbg,
# 105 without -unsigned), kept as bzImage beside arm64's cache
: >"$T/apt.log"
fetch amd64 "$C" >"$T/a1.out" 2>"$T/a1.err"
check "amd64 fetch succeeds ($(cat "$T/a1.err"))" [ $? -eq 0 ]
check "amd64: prints arch, package, version, release, path" \
    [ "$(cat "$T/a1.out")" = "amd64 $APKG $VER $AREL $C/amd64/bzImage" ]
check "amd64: downloads 6.12.100+deb13-amd64-unsigned, no other flavour" \
    [ "$(grep -c download "$T/apt.log")" = 1 ] && grep -q "download $APKG:amd64=$VER" "$T/apt.log"
check "amd64: bzImage is the package's vmlinuz" cmp -s "$C/amd64/bzImage" "$AP/boot/vmlinuz-$AREL"
check "amd64: config, RELEASE, PACKAGE kept" cmp -s "$C/amd64/config" "$AP/boot/config-$AREL" &&
    [ "$(cat "$C/amd64/RELEASE")" = "$AREL" ] && [ "$(cat "$C/amd64/PACKAGE")" = "$APKG" ]
check "amd64: the modules tree kept" [ -f "$C/amd64/modules/$AREL/modules.dep" ]
check "amd64: arm64's cache untouched" cmp -s "$D/Image" "$P/boot/vmlinuz-$REL"
: >"$T/apt.log"
fetch amd64 "$C" >"$T/a2.out" 2>&1
check "amd64: reused without apt" [ ! -s "$T/apt.log" ] && cmp -s "$T/a1.out" "$T/a2.out"

# bad usage
fetch sparc "$C" >/dev/null 2>"$T/u.err"
check "unknown ARCH: status 2" [ $? -eq 2 ]
check "unknown ARCH: usage names the architectures" grep -q "ARCH: arm64 amd64 powerpc" "$T/u.err"
fetch arm64 >/dev/null 2>&1
check "missing CACHE_DIR: status 2" [ $? -eq 2 ]
finish
