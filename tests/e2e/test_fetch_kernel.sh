#!/bin/sh
# test_fetch_kernel.sh — scripts/fetch-kernel.sh without the network: apt-cache and apt-get are
# stubs on PATH serving a small package built here with dpkg-deb -b (Debian's real layout: boot/
# vmlinuz-<rel>, boot/config-<rel>, a placeholder System.map, usr/lib/modules/<rel>/, docs), so
# what is checked is the script's own work: the newest <n> picked (numerically: 100 > 99 > 9),
# the kept files and nothing else, VERSION/RELEASE/PACKAGE, reuse of a complete cache without
# any apt call, a failed download leaving no cache and no temporary directory but the message
# in ARCH.error, leftovers of an interrupted fetch removed, bad usage refused with status 2.
. "$(dirname "$0")/lib.sh" "$@"
FETCH=$SRC/scripts/fetch-kernel.sh
REL=6.12.100+deb13-arm64
PKG=linux-image-$REL-unsigned
VER=6.12.100-1

# the package: what Debian's linux-image-*-unsigned holds, in miniature
P=$T/pkgroot
mkdir -p "$P/DEBIAN" "$P/boot" "$P/usr/lib/modules/$REL/kernel/drivers" "$P/usr/share/doc/$PKG"
printf 'ARMd-image' >"$P/boot/vmlinuz-$REL"
echo "CONFIG_KALLSYMS_ALL=y" >"$P/boot/config-$REL"
echo "ffffffffffffffff B The real System.map is in the linux-image-$REL-dbg package" >"$P/boot/System.map-$REL"
echo "kernel/drivers/x.ko.xz:" >"$P/usr/lib/modules/$REL/modules.dep"
printf 'xz' >"$P/usr/lib/modules/$REL/kernel/drivers/x.ko.xz"
echo copyright >"$P/usr/share/doc/$PKG/copyright"
printf 'Package: %s\nVersion: %s\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: t\n' \
    "$PKG" "$VER" >"$P/DEBIAN/control"
dpkg-deb -b -Zgzip "$P" "$T/pkg.deb" >/dev/null

# the stubs: apt-cache lists three <n>, apt-get download copies the package (or fails when
# $T/offline exists); every call is logged
mkdir "$T/bin"
cat >"$T/bin/apt-cache" <<EOF
#!/bin/sh
echo "apt-cache \$*" >>"$T/apt.log"
case "\$*" in
*search*) printf '%s - Linux\n' linux-image-6.12.9+deb13-arm64-unsigned $PKG linux-image-6.12.99+deb13-arm64-unsigned ;;
*policy*$PKG:arm64*) printf '%s:\n  Installed: (none)\n  Candidate: %s\n' $PKG $VER ;;
esac
EOF
cat >"$T/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$T/apt.log"
[ -e "$T/offline" ] && { echo "E: Failed to fetch (stub offline)" >&2; exit 100; }
case "\$*" in *"download $PKG:arm64=$VER"*) cp "$T/pkg.deb" "./${PKG}_${VER}_arm64.deb" ;; *) exit 100 ;; esac
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

# bad usage
fetch sparc "$C" >/dev/null 2>"$T/u.err"
check "unknown ARCH: status 2" [ $? -eq 2 ]
check "unknown ARCH: usage names the architectures" grep -q "ARCH: arm64 amd64 powerpc" "$T/u.err"
fetch arm64 >/dev/null 2>&1
check "missing CACHE_DIR: status 2" [ $? -eq 2 ]
finish
