#!/bin/sh
# Installs the Debian packages pmusim needs to build, test and benchmark, if any are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
#   scripts/install-deps.sh [--bench]     (--bench also wants QEMU, the optional comparison peer)
# clang and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) build the fuzzing tree that
# `make test` smoke-runs and the sanitizer tree of `make sanitize`; llvm gives their reports
# symbols (llvm-symbolizer).
set -eu
PKGS="cmake make pkg-config gcc libc6-dev libunicorn-dev libcapstone-dev libfdt-dev check device-tree-compiler \
gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gcc-powerpc-linux-gnu binutils-powerpc-linux-gnu \
clang libclang-rt-14-dev llvm"
if [ "${1:-}" = "--bench" ]; then
    PKGS="$PKGS qemu-system-x86 qemu-system-arm qemu-system-ppc"
fi
missing=""
for p in $PKGS; do
    s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$s" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "install-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends $missing
else
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: run as root:  apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
