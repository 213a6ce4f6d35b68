#!/bin/sh
# pmusim stat (docs/tools.md): on all three architectures the totals equal --stats (instructions
# and cycles, per CPU and summed), the user and kernel parts add up to them and both ran on a
# guest with user code, --per-cpu's rows add up to the total, --per-symbol's rows add up to the
# totals (instructions, and cycles with the exception entries), bad events and options are refused
# with status 2 naming them, and the output is the same bytes on every run.  Then the generated
# manual page, the bash completion and `make install`.
. "$(dirname "$0")/lib.sh" "$@"

# csv FILE EVENT [CPU]: the count of EVENT's row in perf's CSV layout (-x,)
csv() {
    if [ $# -eq 3 ]; then
        awk -F, -v e="$2" -v c="CPU$3" '$1 == c && $4 == e { print $2 }' "$1"
    else
        awk -F, -v e="$2" '$3 == e { print $1 }' "$1"
    fi
}

# stats FILE KEY [CPU]: --stats' KEY (insns, cycles) of one CPU, or summed over the CPUs
stats() {
    sed -n "s/^cpu${3:-[0-9]*}: .*\\<$2=\\([0-9]*\\).*/\\1/p" "$1" | awk '{ s += $1 } END { print s }'
}

# ---- totals against --stats, user and kernel apart, per symbol: a guest with user code on each
for arch in $ARCHES; do
    case $arch in
    x86_64) g=paging status=1 ;;    # ring 3 code (paging_user.S); isa-debug-exit's (0 << 1) | 1
    arm64) g=oprofile status=0 ;;   # EL0 (oprofile_user.c); PSCI SYSTEM_OFF
    ppc32) g=oprofile status=1 ;;   # MSR[PR] = 1; isa-debug-exit
    esac
    ELF=$GUESTS/$arch/$g.elf
    E=cycles,instructions,branches,branch-misses,L1-dcache-loads,mem-stores,mem_access
    run "$T/$arch" stat -x, -e "$E" --per-symbol --stats "$ELF"
    f=$T/$arch.err
    check "$arch: stat exits with the guest's status ($(cat "$T/$arch.status"))" [ "$(cat "$T/$arch.status")" = $status ]
    for ev in instructions:insns cycles:cycles; do
        e=${ev%%:*}
        s=$(stats "$f" "${ev#*:}")
        check "$arch: $e equals --stats ($(csv "$f" "$e") vs $s)" [ "$(csv "$f" "$e")" = "$s" ]
    done
    for e in instructions cycles branches branch-misses L1-dcache-loads mem-stores mem_access; do
        all=$(csv "$f" "$e") u=$(csv "$f" "$e:u") k=$(csv "$f" "$e:k")
        check "$arch: $e:u + $e:k = $e ($u + $k = $all)" [ "$((u + k))" = "$all" ]
    done
    check "$arch: user instructions ran ($(csv "$f" instructions:u))" [ "$(csv "$f" instructions:u)" -gt 0 ]
    check "$arch: kernel instructions ran" [ "$(csv "$f" instructions:k)" -gt 0 ]
    check "$arch: branches counted" [ "$(csv "$f" branches)" -gt 0 ]
    check "$arch: loads and stores are memory accesses" \
        [ "$(csv "$f" mem_access)" -le "$(($(csv "$f" L1-dcache-loads) + $(csv "$f" mem-stores)))" ]
    si=$(awk -F, '$1 == "symbol" { s += $3 } END { print s }' "$f")
    sc=$(awk -F, '$1 == "symbol" { s += $4 } END { print s }' "$f")
    check "$arch: --per-symbol instructions add up ($si)" [ "$si" = "$(csv "$f" instructions)" ]
    for k in 5:branches 6:branch-misses; do
        sum=$(awk -F, -v k="${k%%:*}" '$1 == "symbol" { s += $k } END { print s }' "$f")
        check "$arch: --per-symbol ${k#*:} add up ($sum)" [ "$sum" = "$(csv "$f" "${k#*:}")" ]
    done
    # (x86 paging.elf copies two user programs into one page: they are two blocks of the profile)
    check "$arch: --per-symbol cycles with the exception entries add up ($sc)" [ "$sc" = "$(csv "$f" cycles)" ]
done
run "$T/sym" stat -x, -e instructions,cycles --per-symbol "$GUESTS/x86_64/trap.elf"
for e in instructions:3 cycles:4; do
    sum=$(awk -F, -v k="${e#*:}" '$1 == "symbol" { s += $k } END { print s }' "$T/sym.err")
    check "x86_64 trap.elf: --per-symbol ${e%:*} add up ($sum)" [ "$sum" = "$(csv "$T/sym.err" "${e%:*}")" ]
done
check "arm64: the user program's compare_keys leads --per-symbol" \
    [ "$(awk -F, '$1 == "symbol" { print $2; exit }' "$T/arm64.err")" = compare_keys ]

# ---- against the guest's own PMU: pmucount.elf counts a workload of `rounds` rounds with fixed
# counters 0 (instructions) and 1 (unhalted cycles) at CPL 0 and reads them with RDPMC (values in
# the trace); the rest of the run is the same for any rounds, so between two runs the counters'
# difference is the totals' (and all of it kernel)
# pmc TRACE ECX: the value RDPMC read
pmc() {
    printf '%d' "$(sed -n "s/.* rdpmc .*ecx=$2 value=\(0x[0-9a-f]*\).*/\1/p" "$1")"
}
PC=$GUESTS/x86_64/pmucount.elf
for r in 1 2; do
    run "$T/pc$r" stat -x, -e instructions,cycles --trace "$T/pc$r.trace" --bootargs rounds=$r "$PC"
done
for e in instructions:0x40000000 cycles:0x40000001 instructions:k:0x40000000 cycles:k:0x40000001; do
    ev=${e%:0x*} ecx=${e##*:}
    dpmu=$(($(pmc "$T/pc2.trace" "$ecx") - $(pmc "$T/pc1.trace" "$ecx")))
    dstat=$(($(csv "$T/pc2.err" "$ev") - $(csv "$T/pc1.err" "$ev")))
    check "guest PMU: one more round, $ev: the guest's counter counted it ($dpmu)" [ "$dpmu" -gt 0 ]
    check "guest PMU: one more round, $ev: the guest's counter and stat agree ($dpmu vs $dstat)" \
        [ "$dpmu" = "$dstat" ]
done
check "guest PMU: its region is within the run" [ "$(pmc "$T/pc1.trace" 0x40000000)" -lt "$(csv "$T/pc1.err" instructions)" ]
check "guest PMU: a kernel-only guest has no user part" [ "$(csv "$T/pc1.err" instructions:u)" = 0 ]

# ---- run options change nothing counted: --samples (the profile's flush) and --trace
run "$T/s1" stat -x, -e instructions,cycles,L1-dcache-loads,mem-stores,branches "$GUESTS/x86_64/trap.elf"
run "$T/s2" stat -x, -e instructions,cycles,L1-dcache-loads,mem-stores,branches --samples "$T/s2.samples" \
    --trace "$T/s2.trace" "$GUESTS/x86_64/trap.elf"
check "--samples and --trace: the same counts" cmp -s "$T/s1.err" "$T/s2.err"

# ---- --per-cpu on two CPUs: each CPU's counts are --stats', the rows add up to the total
for arch in $ARCHES; do
    ELF=$GUESTS/$arch/smp.elf
    run "$T/p$arch" stat -x, --per-cpu -e instructions,cycles,cpu-clock -- --cpus 2 --stats "$ELF"
    run "$T/a$arch" stat -x, -e instructions,cycles --cpus 2 "$ELF"
    f=$T/p$arch.err
    for k in 0 1; do
        check "$arch: --per-cpu CPU$k instructions equal --stats" \
            [ "$(csv "$f" instructions $k)" = "$(stats "$f" insns $k)" ]
        check "$arch: --per-cpu CPU$k unhalted cycles within --stats' local time" \
            [ "$(csv "$f" cycles $k)" -le "$(stats "$f" cycles $k)" ]
        check "$arch: CPU$k :u + :k" \
            [ "$(($(csv "$f" instructions:u $k) + $(csv "$f" instructions:k $k)))" = "$(csv "$f" instructions $k)" ]
    done
    for e in instructions cycles; do
        sum=$(($(csv "$f" $e 0) + $(csv "$f" $e 1)))
        check "$arch: --per-cpu $e rows add up to the total ($sum)" [ "$sum" = "$(csv "$T/a$arch.err" $e)" ]
    done
done
# cpu-clock is the CPU's local time (halted included), --stats' cycles, in milliseconds
run "$T/clk" stat --per-cpu -e cpu-clock --cpus 2 --stats "$GUESTS/arm64/smp.elf"
hz=$(sed -n 's/.*cycles of the \([0-9]*\) Hz CPU clock.*/\1/p' "$T/clk.err")
check "cpu-clock: the clock named on the elapsed line" [ "$hz" = 1000000000 ]
run "$T/clkx" stat -x, --per-cpu -e cpu-clock --cpus 2 --stats "$GUESTS/arm64/smp.elf"
for k in 0 1; do
    want=$(stats "$T/clkx.err" cycles $k | awk '{ printf "%d.%06d", $1 / 1000000, $1 % 1000000 }')
    check "cpu-clock: CPU$k is --stats' cycles in msec ($want)" [ "$(csv "$T/clkx.err" cpu-clock $k)" = "$want" ]
done

# ---- perf's layout and its derived values
run "$T/txt" stat "$GUESTS/ppc32/oprofile.elf"
check "layout: perf's header" grep -q "^ Performance counter stats for '.*oprofile.elf':$" "$T/txt.err"
check "layout: insn per cycle" grep -Eq '^ +[0-9,]+ +instructions +# +[0-9.]+  insn per cycle$' "$T/txt.err"
check "layout: % of all branches" grep -Eq '^ +[0-9,]+ +branch-misses:u +# +[0-9.]+% of all branches$' "$T/txt.err"
check "layout: simulated time elapsed" grep -Eq '^ +[0-9]+\.[0-9]{9} seconds time elapsed \(simulated' "$T/txt.err"
check "layout: user and sys" grep -Eq '^ +[0-9]+\.[0-9]{9} seconds sys \(simulated\)$' "$T/txt.err"
check "layout: the default events" [ "$(grep -Ec ' (cpu-clock|cycles|instructions|branches|branch-misses)$| # ' "$T/txt.err")" -ge 5 ]
check "layout: the console still goes to stdout" [ -s "$T/txt.out" ]

# ---- determinism: the same bytes every run, -o FILE the same as standard error
run "$T/txt2" stat "$GUESTS/ppc32/oprofile.elf"
check "determinism: two runs, the same table" cmp -s "$T/txt.err" "$T/txt2.err"
run "$T/o" stat -o "$T/table" --per-cpu --per-symbol --cpus 2 "$GUESTS/x86_64/smp.elf"
run "$T/o2" stat --per-cpu --per-symbol --cpus 2 "$GUESTS/x86_64/smp.elf"
check "-o FILE: the table there" [ -s "$T/table" ]
check "-o FILE: nothing on stderr" [ ! -s "$T/o.err" ]
check "-o FILE: the bytes stderr gets" cmp -s "$T/table" "$T/o2.err"

# ---- bad input: status 2, the event or option named
run "$T/b1" stat -e cycles,bogus "$GUESTS/x86_64/smp.elf"
check "an unknown event: status 2" [ "$(cat "$T/b1.status")" = 2 ]
check "an unknown event: named" grep -q "^pmusim: -e bogus: unknown event" "$T/b1.err"
run "$T/b2" stat -e cycles:x "$GUESTS/x86_64/smp.elf"
check "an unknown modifier: status 2" [ "$(cat "$T/b2.status")" = 2 ]
check "an unknown modifier: named" grep -q "cycles:x: unknown modifier" "$T/b2.err"
run "$T/b3" stat -e "cycles,,instructions" "$GUESTS/x86_64/smp.elf"
check "an empty event name: status 2" [ "$(cat "$T/b3.status")" = 2 ]
run "$T/b4" stat --restore "$T/nothing" "$GUESTS/x86_64/smp.elf"
check "--restore refused (the counts before it are not in it)" [ "$(cat "$T/b4.status")" = 2 ]
check "--restore: named" grep -q "stat --restore" "$T/b4.err"
run "$T/b5" stat -o "$GUESTS/x86_64/smp.elf" "$GUESTS/x86_64/smp.elf"
check "-o over KERNEL refused" [ "$(cat "$T/b5.status")" = 2 ]
run "$T/b6" stat -e cycles -- --bogus "$GUESTS/x86_64/smp.elf"
check "after --: run options only" [ "$(cat "$T/b6.status")" = 2 ]
check "after --: the bad one named" grep -q "unknown option --bogus" "$T/b6.err"
run "$T/b7" stat -x "" "$GUESTS/x86_64/smp.elf"
check "an empty -x separator refused" [ "$(cat "$T/b7.status")" = 2 ]
run "$T/h" stat --help
check "stat --help: the table on stdout" grep -q "^  -e, --event LIST" "$T/h.out"
check "stat --help: the events" grep -q "^  mem-loads$" "$T/h.out"

# ---- the manual page, generated from every option table
MAN=$BUILD/pmusim.1
check "pmusim.1 built" [ -s "$MAN" ]
check "pmusim.1: groff renders it without a warning" sh -c "groff -man -Tutf8 -ww -z '$MAN' 2>&1 | grep -q . && exit 1 || exit 0"
"$PMUSIM" --help-man >"$T/man"
check "pmusim.1 is --help-man's output" cmp -s "$MAN" "$T/man"
for sub in "" report stat; do
    "$PMUSIM" $sub --help | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u >"$T/opts"
    missing=
    while read -r o; do
        grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$MAN" || missing="$missing $o"
    done <"$T/opts"
    check "pmusim.1 documents every option of pmusim ${sub:-run} (missing:$missing)" [ -z "$missing" ]
done
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES "SEE ALSO"; do
    check "pmusim.1: section $s" grep -q "^\.SH \"*$s\"*$" "$MAN"
done

# ---- the bash completion, from the same tables
COMP=$BUILD/pmusim.bash-completion
comp() {
    bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pmusim; echo "${COMPREPLY[*]}"' "$COMP" "$@"
}
check "completion: stat options" [ "$(comp pmusim stat --per)" = "--per-cpu --per-symbol" ]
check "completion: run options after stat" [ "$(comp pmusim stat --max-i)" = "--max-insns" ]
check "completion: subcommands" [ "$(comp pmusim st)" = "stat" ]
check "completion: --arch values" [ "$(comp pmusim --arch '')" = "x86_64 arm64 ppc32" ]
check "completion: --cpu-model values" [ "$(comp pmusim --cpu-model mpc74)" = "mpc7450 mpc7447a mpc7448" ]
check "completion: -e events after a comma" [ "$(comp pmusim stat -e cycles,branch-m)" = "cycles,branch-misses" ]
echo x >"$T/k.elf"
check "completion: FILE arguments" [ "$(comp pmusim --trace "$T/k.")" = "$T/k.elf" ]

# ---- make install: PREFIX and DESTDIR honoured
D=$BUILD/install-test
rm -rf "$D"
make -s -C "$SRC" install BUILD="$BUILD" PREFIX=/opt/pmusim DESTDIR="$D" >"$T/install.log" 2>&1
check "make install: the program" [ -x "$D/opt/pmusim/bin/pmusim" ]
check "make install: the manual page" cmp -s "$D/opt/pmusim/share/man/man1/pmusim.1" "$MAN"
check "make install: the completion" cmp -s "$D/opt/pmusim/share/bash-completion/completions/pmusim" "$COMP"
rm -rf "$D"

finish
