#!/bin/sh
# oprofile-style sampling on the MPC7450 (guest/oprofile.c): the op_model_7450-like driver takes
# 0xF00 for every counter that goes negative; pmusim records the samples (--samples) and
# `pmusim report` prints the table.  Checks: the recorded console and report, identical samples
# run to run, the guest's own per-symbol counts equal pmusim's, sampled shares within 2
# percentage points of the exact shares for every symbol with >= 5% (instructions and cycles),
# both events and two counters at once, the tuned variant, and bad bootargs.
. "$(dirname "$0")/lib.sh" "$@"

ELF=$GUESTS/ppc32/oprofile.elf
run "$T/a" --stats --samples "$T/a.samples" "$ELF"
run "$T/b" --samples "$T/b.samples" "$ELF"
check "oprofile: exit status 1 (guest exit 0)" [ "$(cat "$T/a.status")" = 1 ]
check "oprofile: console as recorded" cmp -s "$EXPECTED/ppc32/oprofile.out" "$T/a.out"
check "oprofile: samples identical run to run" cmp -s "$T/a.samples" "$T/b.samples"
n=$(grep -c '^sample ' "$T/a.samples")
check "oprofile: 10000 samples ($n)" [ "$n" -eq 10000 ]
check "oprofile: every sample from PMC1" [ "$(grep -c '^sample .* counter=PMC1 ' "$T/a.samples")" -eq 10000 ]
total=$(awk -F'count=' '/^insns / { s += $2 } END { print s }' "$T/a.samples")
stats=$(sed -n 's/.*insns=\([0-9]*\).*/\1/p' "$T/a.err")
check "samples: the profile adds up to --stats ($total vs $stats)" [ "$total" = "$stats" ]

"$PMUSIM" report "$ELF" "$T/a.samples" >"$T/report"
check "report: as recorded" cmp -s "$EXPECTED/ppc32/oprofile.report" "$T/report"
check "report: user samples in the ELF's image" \
    grep -Eq '^[0-9]+ +[0-9.]+ +oprofile\.elf +oprofile\.elf +compare_keys$' "$T/report"
check "report: kernel samples in vmlinux" \
    grep -Eq '^[0-9]+ +[0-9.]+ +vmlinux +oprofile\.elf +do_checksum$' "$T/report"

# The guest's own table (its sample buffer, symbolised with its kallsyms) against pmusim's.
sed -n 's/^oprofile: \([0-9][0-9]*\)  *\(kernel\|user\)  *\(.*\)$/\1 \2 \3/p' "$T/a.out" | sort >"$T/guest.tab"
awk 'NR > 1 { print $1, ($3 == "vmlinux" ? "kernel" : "user"), $NF }' "$T/report" |
    sed 's/ (no symbols)$/ (no symbol)/' | sort >"$T/pmusim.tab"
check "report: the guest's own counts per symbol are pmusim's" cmp -s "$T/guest.tab" "$T/pmusim.tab"

# accuracy FILE [--truth=...]: per symbol, sampled % (both images summed) against the truth
accuracy() {
    _f=$1
    shift
    [ $# -gt 0 ] || set -- --truth
    "$PMUSIM" report "$ELF" "$_f" "$@" | awk 'NR > 1 { s[$NF] += $2; t[$NF] = $3 }
        END { bad = 0; big = 0
              for (k in t) if (t[k] >= 5) { big++; d = s[k] - t[k]; if (d < 0) d = -d
                  if (d > 2) { print "off by more than 2 points:", k, s[k], t[k]; bad = 1 } }
              if (big < 3) { print "fewer than 3 symbols with >= 5%"; bad = 1 }
              exit bad }'
}
check "accuracy (instructions): within 2 points for symbols >= 5%" accuracy "$T/a.samples"
share() {
    "$PMUSIM" report "$ELF" "$1" --truth | awk -v s="$2" '$NF == s { print int($3 + 0.5) }'
}
check "workload: compare_keys ~60% of the instructions" [ "$(share "$T/a.samples" compare_keys)" -ge 55 ]
check "workload: do_checksum ~30% (kernel)" [ "$(share "$T/a.samples" do_checksum)" -ge 20 ]
check "workload: update_stats ~10%" [ "$(share "$T/a.samples" update_stats)" -ge 5 ]

run "$T/cyc" --bootargs event=cycles --samples "$T/cyc.samples" "$ELF"
check "event=cycles: 10000 samples from PMC1" [ "$(grep -c '^sample .* counter=PMC1 ' "$T/cyc.samples")" -eq 10000 ]
check "event=cycles: PMC1 selects cycles" grep -q '^oprofile: event=cycles ' "$T/cyc.out"
check "accuracy (cycles, --truth=cycles)" accuracy "$T/cyc.samples" --truth=cycles

run "$T/both" --bootargs event=both --samples "$T/both.samples" "$ELF"
p1=$(grep -c 'counter=PMC1 ' "$T/both.samples")
p2=$(grep -c 'counter=PMC2 ' "$T/both.samples")
check "event=both: PMC1 (cycles) delivers ($p1)" [ "$p1" -gt 1000 ]
check "event=both: PMC2 (instructions) delivers ($p2)" [ "$p2" -gt 1000 ]
check "event=both: 10000 samples in all" [ $((p1 + p2)) -eq 10000 ]

run "$T/tuned" --bootargs tuned --samples "$T/tuned.samples" "$ELF"
before=$("$PMUSIM" report "$ELF" "$T/a.samples" | awk '$NF == "compare_keys" { print $2 }')
after=$("$PMUSIM" report "$ELF" "$T/tuned.samples" | awk '$NF == "compare_keys" { print $2 }')
check "tuned: compare_keys's share falls ($before -> $after)" \
    awk -v a="$before" -v b="$after" 'BEGIN { exit !(b + 20 < a + 0) }'
check "accuracy (tuned)" accuracy "$T/tuned.samples"

run "$T/few" --bootargs "count=1000 samples=50 event=bogus hz=0" --samples "$T/few.samples" "$ELF"
check "bootargs: count and samples taken" grep -q '^oprofile: event=insns count=1000 samples=50$' "$T/few.out"
check "bootargs: bad values reported" \
    sh -c "grep -q \"ignoring bad parameter 'event=bogus'\" '$T/few.out' && grep -q \"ignoring bad parameter 'hz=0'\" '$T/few.out'"
check "bootargs: 50 samples" [ "$(grep -c '^sample ' "$T/few.samples")" -eq 50 ]
finish
