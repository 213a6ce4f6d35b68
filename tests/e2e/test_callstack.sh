#!/bin/sh
# Call chains in PMU samples (docs/profiling.md, "Call chains"), on the three architectures'
# sampled guests built with frame pointers: the ppc32 and arm64 oprofile scenarios and the
# x86_64 watchdog (watchdog-fp.elf).  Checks: the samples carry chains of the guest's real call
# graph (known callers of known functions, by symbol name), `report --folded` gives multi-frame
# stacks, `report --perf-script` follows perf script's format (an awk checker) and folds into
# the same stacks as --folded, two runs are byte-identical, and FlameGraph's
# stackcollapse-perf.pl reads it when installed (no Debian package has it: skipped otherwise).
. "$(dirname "$0")/lib.sh" "$@"

# folded ELF SAMPLES OUT: the report's folded stacks
folded() { "$PMUSIM" report --folded "$1" "$2" >"$3"; }

# has_stack FILE REGEX: a folded line whose stack (count left out) matches REGEX, with samples
has_stack() { sed 's/ [0-9]*$//' "$1" | grep -Eq "$2"; }

# perf_format FILE: every line is a header, a frame or the blank line that ends a sample
# (tools/perf/builtin-script.c: "%s %7d/%-7d [%03d] %12s: %10u %*s: ", then "\t%16x sym+0xoff
# (dso)" per frame); prints the number of samples
perf_format() {
    awk '
        /^[^ \t]+ +[0-9]+\/[0-9]+ +\[[0-9][0-9][0-9]\] +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]: +[0-9]+ +[^ ]+: $/ {
            if (state != 0) bad = 1; state = 1; n++; next }
        /^\t +[0-9a-f]+ [^ ]+ \(.+\)$/ { if (state == 0) bad = 1; state = 2; next }
        /^$/ { if (state != 2) bad = 1; state = 0; next }
        { bad = 1 }
        END { if (bad || state != 0) print "bad"; else print n }' "$1"
}

# perf_fold APP FILE: perf script's samples folded as stackcollapse-perf.pl folds them (the
# frames outermost first, sym+0xoff without its offset), with app;image in front as --folded has
perf_fold() {
    awk -v app="$1" '
        /^[^\t]/ && NF { nf = 0; next }
        /^\t/ { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[nf++] = sym
                img = ($3 == "([kernel.kallsyms])") ? "vmlinux" : app; next }
        /^$/ { s = app ";" img; for (i = nf - 1; i >= 0; i--) s = s ";" f[i]; c[s]++ }
        END { for (s in c) print s, c[s] }' "$2" | sort
}

scenario() {
    arch=$1
    elf=$2
    shift 2
    app=$(basename "$elf")
    run "$T/$arch.a" --samples "$T/$arch.a.samples" "$@" "$elf"
    run "$T/$arch.b" --samples "$T/$arch.b.samples" "$@" "$elf"
    check "$arch: samples identical run to run" cmp -s "$T/$arch.a.samples" "$T/$arch.b.samples"
    check "$arch: samples file version 2 with the clock" grep -q '^# pmusim samples 2 arch=[a-z0-9_]* hz=[1-9]' \
        "$T/$arch.a.samples"
    check "$arch: samples with a chain of 2 or more callers" grep -q '^sample .* chain=0x[0-9a-f]*,0x' \
        "$T/$arch.a.samples"
    folded "$elf" "$T/$arch.a.samples" "$T/$arch.folded"
    folded "$elf" "$T/$arch.b.samples" "$T/$arch.folded.b"
    check "$arch: --folded identical run to run" cmp -s "$T/$arch.folded" "$T/$arch.folded.b"
    check "$arch: --folded has multi-frame stacks" grep -Eq "^$app;[^; ]+(;[^; ]+){2,} [0-9]+$" "$T/$arch.folded"
    "$PMUSIM" report --perf-script "$elf" "$T/$arch.a.samples" >"$T/$arch.script"
    "$PMUSIM" report --perf-script "$elf" "$T/$arch.b.samples" >"$T/$arch.script.b"
    check "$arch: --perf-script identical run to run" cmp -s "$T/$arch.script" "$T/$arch.script.b"
    n=$(grep -c '^sample ' "$T/$arch.a.samples")
    check "$arch: --perf-script in perf script's format, every sample ($(perf_format "$T/$arch.script") of $n)" \
        [ "$(perf_format "$T/$arch.script")" = "$n" ]
    perf_fold "$app" "$T/$arch.script" >"$T/$arch.pfold"
    sort "$T/$arch.folded" >"$T/$arch.folded.sorted"
    check "$arch: --perf-script folds into --folded's stacks" cmp -s "$T/$arch.pfold" "$T/$arch.folded.sorted"
    if command -v stackcollapse-perf.pl >/dev/null 2>&1; then
        stackcollapse-perf.pl "$T/$arch.script" >"$T/$arch.fg" 2>/dev/null
        check "$arch: FlameGraph's stackcollapse-perf.pl reads it" [ -s "$T/$arch.fg" ]
    else
        echo "SKIP: $arch: stackcollapse-perf.pl (FlameGraph) not installed"
    fi
}

# oprofile (ppc32, arm64): user_main calls compare_keys and update_stats in user mode; the
# checksum system call reaches do_checksum through system_call (oprofile.c,
# arch/arm64/oprofile_kernel.c).  Most samples of each are in those stacks.
for arch in ppc32 arm64; do
    scenario $arch "$GUESTS/$arch/oprofile.elf"
    f=$T/$arch.folded
    check "$arch: user_main calls compare_keys" has_stack "$f" '^oprofile\.elf;oprofile\.elf;(.*;)?user_main;compare_keys$'
    check "$arch: user_main calls update_stats" has_stack "$f" '^oprofile\.elf;oprofile\.elf;(.*;)?user_main;update_stats$'
    check "$arch: system_call calls do_checksum" has_stack "$f" '^oprofile\.elf;vmlinux;(.*;)?system_call;do_checksum$'
    # of the samples in compare_keys, the share whose stack names user_main as its caller
    share=$(awk '/;compare_keys [0-9]+$/ { all += $NF; if ($0 ~ /;user_main;compare_keys /) mine += $NF }
                 END { print (all ? int(100 * mine / all) : 0) }' "$f")
    check "$arch: compare_keys's samples have user_main as caller ($share%)" [ "$share" -ge 99 ]
    check "$arch: no stack names a function as its own caller but recursion" \
        sh -c "! grep -Eq ';(compare_keys|update_stats|do_checksum);\\1( |;)' '$f'"
done

# The x86_64 watchdog: CPU 1 is in lockup_spin, called from secondary_main; CPU 0 in busy_work
# called from main (busy_until and busy_step are inlined), watchdog.c.
scenario x86_64 "$GUESTS/x86_64/watchdog-fp.elf" --cpus 2
f=$T/x86_64.folded
check "x86_64: secondary_main calls lockup_spin" has_stack "$f" '^watchdog-fp\.elf;vmlinux;(.*;)?secondary_main;lockup_spin$'
check "x86_64: main calls busy_work" has_stack "$f" '^watchdog-fp\.elf;vmlinux;(.*;)?main;busy_work(\.constprop\.0)?$'
check "x86_64: the lockup's stack from the CPU's start" \
    has_stack "$f" '^watchdog-fp\.elf;vmlinux;secondary_entry;secondary_start;secondary_main;lockup_spin$'

# perf script's header fields: the app, pid 1, tid 1 + CPU, the CPU, time = cycle / clock
first=$(grep -m1 '^sample ' "$T/x86_64.a.samples")
cyc=$(echo "$first" | sed 's/.* cycle=\([0-9]*\) .*/\1/')
hz=$(sed -n 's/.* hz=\([0-9]*\) .*/\1/p' "$T/x86_64.a.samples")
cpu=$(echo "$first" | sed 's/.* cpu=\([0-9]*\) .*/\1/')
want=$(awk -v c="$cyc" -v h="$hz" -v p="$cpu" 'BEGIN { printf "watchdog-fp.elf %7d/%-7d [%03d] %12s: ", 1, 1 + p, p,
    sprintf("%d.%06d", int(c / h), int((c % h) * 1000000 / h)) }')
check "x86_64: --perf-script header: comm pid/tid [cpu] seconds.usecs: (\"$want\")" \
    [ "$(head -n 1 "$T/x86_64.script" | cut -c1-${#want})" = "$want" ]

# --folded and --perf-script are one output each; a version 1 file is still read
"$PMUSIM" report --folded --perf-script "$GUESTS/x86_64/watchdog-fp.elf" "$T/x86_64.a.samples" >"$T/both.out" 2>&1
check "report: --folded with --perf-script refused (status 2)" [ $? -eq 2 ]
printf '# pmusim samples 1 arch=x86_64 samples=1\nsample cpu=0 cycle=1000 pc=0x%s mode=kernel counter=PMC1\n' \
    "$(nm "$GUESTS/x86_64/watchdog-fp.elf" | awk '$3 == "lockup_spin" { print $1 }' | sed 's/^0*//')" >"$T/v1.samples"
"$PMUSIM" report --perf-script "$GUESTS/x86_64/watchdog-fp.elf" "$T/v1.samples" >"$T/v1.script"
check "report: a version 1 file's sample without a chain, at a nominal 1 GHz" \
    sh -c "head -n 2 '$T/v1.script' | tr '\\t' '|' | grep -q '^|  *[0-9a-f]* lockup_spin+0x0 (\\[kernel.kallsyms\\])$' &&
           head -n 1 '$T/v1.script' | grep -q ' 0\\.000001: '"
# The walk reads the guest's stacks through its MMU as a probe: the x86_64 watchdog at the
# kernel's address (page tables on, accessed bits) runs the same with and without --samples,
# trace and console byte for byte, and its chains are the identity build's.
run "$T/wh.s" --cpus 2 --trace "$T/wh.s.trace" --samples "$T/wh.samples" "$GUESTS/x86_64/watchdog-high.elf"
run "$T/wh.n" --cpus 2 --trace "$T/wh.n.trace" "$GUESTS/x86_64/watchdog-high.elf"
check "x86_64 watchdog-high: the same trace with and without --samples" cmp -s "$T/wh.s.trace" "$T/wh.n.trace"
check "x86_64 watchdog-high: the same console with and without --samples" cmp -s "$T/wh.s.out" "$T/wh.n.out"
folded "$GUESTS/x86_64/watchdog-high.elf" "$T/wh.samples" "$T/wh.folded"
check "x86_64 watchdog-high: secondary_main calls lockup_spin" \
    has_stack "$T/wh.folded" '^watchdog-high\.elf;vmlinux;(.*;)?secondary_main;lockup_spin$'

# a malformed chain is refused with the file and line (status 2)
printf '# pmusim samples 2 arch=x86_64 hz=1000 samples=1\nsample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=0x1,,0x2\n' \
    >"$T/bad.samples"
"$PMUSIM" report --folded "$GUESTS/x86_64/watchdog-fp.elf" "$T/bad.samples" >"$T/bad.out" 2>"$T/bad.err"
check "report: a malformed chain refused with status 2" [ $? -eq 2 ]
check "report: ... naming the file and line" grep -q "bad.samples:2: malformed sample line" "$T/bad.err"
finish
