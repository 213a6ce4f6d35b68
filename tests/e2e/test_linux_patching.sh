#!/bin/sh
# --check-patching on the real arm64 Linux Image: the patch sites come from the kernel's own
# tables (tracer/linuxpatch.c: __mcount_loc with the CALL_OPS literals, __jump_table,
# .altinstructions, the runtime constants, the KVM hyp relocations), found through kallsyms.
# The default boot and a boot with the function tracer on (ftrace=function with a filter), each
# to the root-mount panic: every code write explained (0 violations, 0 unexplained), the
# summary's line per table, and the same summary twice.  Needs the fetched kernel
# (need_linux_image, lib.sh); SKIP (77) without it.
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image arm64                          # lib.sh: LINUX_IMAGE, or SKIP (77)
IMAGE=$LINUX_IMAGE
CONSOLE="console=ttyAMA0,1500000"

# sites KIND FILE: the summary's site count of KIND ("patching: N sites (A ftrace, B jump_label, ...")
sites() {
    grep '^patching: ' "$2" | grep -o "[0-9]* $1[,)]" | head -n 1 | cut -d' ' -f1
}

# writes TABLE FILE: the writes the "linux:" line gives TABLE
writes() {
    sed -n "s/^linux: .*\\<\\([0-9]*\\) $1\\>.*/\\1/p" "$2"
}

boot() {
    _name=$1
    shift
    run "$T/$_name" --kernel "$IMAGE" --cpus 2 --check-patching "$@"
    check "$_name: ends in the root-mount panic (status 8)" [ "$(cat "$T/$_name.status")" = 8 ]
    check "$_name: the panic" grep -q "VFS: Unable to mount root fs" "$T/$_name.out"
    check "$_name: more than 50000 ftrace sites" [ "$(sites ftrace "$T/$_name.err")" -gt 50000 ]
    check "$_name: as many ops literals" [ "$(sites ftrace_ops "$T/$_name.err")" = "$(sites ftrace "$T/$_name.err")" ]
    check "$_name: jump-label sites" [ "$(sites jump_label "$T/$_name.err")" -gt 0 ]
    check "$_name: alternative sites" [ "$(sites alternative "$T/$_name.err")" -gt 0 ]
    check "$_name: callback alternative sites" [ "$(sites alt_callback "$T/$_name.err")" -gt 0 ]
    check "$_name: the line per table" grep -q '^linux: [0-9]* ftrace, [0-9]* jump_label, [0-9]* alternatives, [0-9]* runtime_const, [0-9]* hyp_reloc, [0-9]* freed-init, [0-9]* unexplained$' "$T/$_name.err"
    check "$_name: ftrace_init's writes (2 per site and more)" [ "$(writes ftrace "$T/$_name.err")" -gt 100000 ]
    check "$_name: jump labels and alternatives patched" [ "$(writes jump_label "$T/$_name.err")" -gt 0 ] && [ "$(writes alternatives "$T/$_name.err")" -gt 0 ]
    check "$_name: every write explained" [ "$(writes unexplained "$T/$_name.err")" = 0 ]
    check "$_name: 0 violations" grep -q '^patching: .* 0 violations$' "$T/$_name.err"
    check "$_name: no violation line" sh -c "! grep -q '^violation' '$T/$_name.err'"
}

boot default --append "$CONSOLE"
boot default2 --append "$CONSOLE"
check "default: the same summary twice" cmp -s "$T/default.err" "$T/default2.err"
check "default: the same console twice" cmp -s "$T/default.out" "$T/default2.out"

# the same sites from --symbols (a System.map of the kernel's kallsyms) as from the Image's own
run "$T/map" --dump-symbols --kernel "$IMAGE"
run "$T/sym" --kernel "$IMAGE" --symbols "$T/map.out" --check-patching --max-insns 100000 --append "$CONSOLE"
sites_of() {
    grep '^patching: ' "$1" | sed 's/),.*//'
}
check "--symbols: the same sites as kallsyms" [ -n "$(sites_of "$T/sym.err")" ] && \
    [ "$(sites_of "$T/sym.err")" = "$(sites_of "$T/default.err")" ]

# bad input: a table's end below its start is refused naming the file and the table (status 2)
awk '$3 == "__stop_mcount_loc" { $1 = "ffff800080000000" } { print }' "$T/map.out" >"$T/bad.map"
run "$T/bad" --kernel "$IMAGE" --symbols "$T/bad.map" --check-patching --max-insns 100000
check "bad table: status 2" [ "$(cat "$T/bad.status")" = 2 ]
check "bad table: named" grep -qF "$IMAGE: __mcount_loc: the symbols __start_mcount_loc and __stop_mcount_loc" "$T/bad.err"

boot function --append "$CONSOLE ftrace=function ftrace_filter=kmem_cache_alloc*,vfs_*"
check "function: the tracer started" grep -q "Starting tracer 'function'" "$T/function.out"
check "function: more ftrace writes than the default boot (the filtered functions' calls)" \
    [ "$(writes ftrace "$T/function.err")" -gt "$(writes ftrace "$T/default.err")" ]
finish
