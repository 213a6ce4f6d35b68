#!/bin/sh
# No pmusim symbol can interpose a library's.  An executable's global symbol that a shared
# library also defines is exported to the dynamic table and wins at run time: the engine once
# called pmusim's cpu_stop(Cpu *) where it meant its own cpu_stop(uc_struct *) and crashed on
# every x86 triple fault.  So every global symbol of pmusim's own carries a module prefix
# (vcpu_, mach_, lapic_, ...) that no linked library uses for any of its dynamic symbols.
. "$(dirname "$0")/lib.sh" "$@"

command -v nm >/dev/null || { echo "nm missing"; exit 77; }
if [ -n "${PMUSIM_SANITIZED:-}" ]; then
    # ASan links its runtime into the executable, and the runtime defines libc's functions (malloc,
    # memcpy, ...) as interceptors on purpose: the check belongs to the plain build (make test).
    echo "skipped under the sanitizers: their runtime defines libc's symbols in the executable"
    exit 77
fi

# ours BINARY: pmusim's own global symbols (the C runtime's reserved names left out)
ours() {
    nm --defined-only -g "$1" | awk 'NF == 3 { print $3 }' | grep -v '@' |
        grep -v -e '^_' -e '^main$' -e '^data_start$' | sort -u
}

# libsyms BINARY: every symbol the shared libraries it links define
libsyms() {
    ldd "$1" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
        nm -D --defined-only "$lib" | awk '{ print $NF }'
    done | sed 's/@.*//' | sort -u
}

for bin in "$PMUSIM" "$BUILD/bench/bare-engine"; do
    name=$(basename "$bin")
    ours "$bin" >"$T/$name.ours"
    libsyms "$bin" >"$T/$name.libs"
    check "$name: has global symbols to check" [ -s "$T/$name.ours" ]
    check "$name: links libraries to check against" [ "$(wc -l <"$T/$name.libs")" -gt 1000 ]
    comm -12 "$T/$name.ours" "$T/$name.libs" >"$T/$name.same"
    check "$name: no symbol a library defines too: $(tr '\n' ' ' <"$T/$name.same")" [ ! -s "$T/$name.same" ]
    # the module prefix (up to the first '_') must be one no library uses
    sed -n 's/^\([A-Za-z0-9]*\)_.*/\1/p' "$T/$name.ours" | sort -u >"$T/$name.prefixes"
    while read -r p; do
        hits=$(grep -c "^${p}_" "$T/$name.libs")
        check "$name: prefix ${p}_ is used by a library ($hits symbols, e.g. $(grep -m1 "^${p}_" "$T/$name.libs"))" \
            [ "$hits" = 0 ]
    done <"$T/$name.prefixes"
done

# the defect itself: a jump to a non-canonical address triple-faults inside the engine
printf '\110\270\000\000\000\000\000\000\000\200\377\340' >"$T/noncanon.bin"
run "$T/nc" run --stats --arch x86_64 --load-addr 0x100000 "$T/noncanon.bin"
check "non-canonical jump: exit status 4, got $(cat "$T/nc.status")" [ "$(cat "$T/nc.status")" = 4 ]
check "non-canonical jump: a triple fault" grep -q "exit=triple-fault" "$T/nc.err"
finish
