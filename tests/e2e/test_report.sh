#!/bin/sh
# --samples and `pmusim report`: the samples file is the same bytes on every run, its exact
# instruction profile adds up to the retired-instruction counts of --stats, the report matches
# the recorded table (and --truth / --folded their formats), and bad input is refused with the
# file and line named.
. "$(dirname "$0")/lib.sh" "$@"

ELF=$GUESTS/x86_64/watchdog.elf
run "$T/a" --cpus 2 --stats --samples "$T/a.samples" "$ELF"
run "$T/b" --cpus 2 --samples "$T/b.samples" "$ELF"
check "samples: written" [ -s "$T/a.samples" ]
check "samples: identical on a second run" cmp -s "$T/a.samples" "$T/b.samples"
check "samples: one per PMI (5 NMIs on each CPU)" [ "$(grep -c '^sample ' "$T/a.samples")" = 10 ]
total=$(awk -F'count=' '/^insns / { s += $2 } END { print s }' "$T/a.samples")
stats=$(sed -n 's/.*insns=\([0-9]*\).*/\1/p' "$T/a.err" | awk '{ s += $1 } END { print s }')
check "samples: the profile adds up to --stats ($total vs $stats)" [ "$total" = "$stats" ]
check "samples: profiling does not change the run" cmp -s "$EXPECTED/x86_64/watchdog.out" "$T/a.out"

"$PMUSIM" report "$ELF" "$T/a.samples" >"$T/report" 2>&1
check "report: as recorded" cmp -s "$EXPECTED/x86_64/watchdog.report" "$T/report"
"$PMUSIM" report "$ELF" "$T/a.samples" --truth >"$T/truth" 2>&1
check "report --truth: a truth column" grep -q '^samples  %        truth%' "$T/truth"
check "report --truth: lockup_spin ran about half the instructions" \
    grep -Eq '^5 +50\.0000 +(49|50)\.[0-9]+ +vmlinux +watchdog\.elf +lockup_spin$' "$T/truth"
"$PMUSIM" report "$ELF" "$T/a.samples" --folded >"$T/folded" 2>&1
check "report --folded: app;image;callers;symbol count" grep -Eq '^watchdog\.elf;vmlinux;([^; ]+;)*lockup_spin 5$' "$T/folded"

printf '# pmusim samples 1 arch=x86_64 samples=1\nsample cpu=0 cycle=1 pc=zz mode=user counter=x\n' >"$T/bad"
run "$T/r1" report "$ELF" "$T/bad"
check "report: malformed line refused (status 2)" [ "$(cat "$T/r1.status")" = 2 ]
check "report: names file and line" grep -q "bad:2: malformed sample line" "$T/r1.err"
printf 'hello\n' >"$T/notsamples"
run "$T/r2" report "$ELF" "$T/notsamples"
check "report: not a samples file" grep -q "notsamples:1: not a pmusim samples file" "$T/r2.err"
run "$T/r3" report "$T/notsamples" "$T/a.samples"
check "report: a bad ELF is refused (status 2)" [ "$(cat "$T/r3.status")" = 2 ]
# the command line: one option table with its --help, options anywhere, values checked
run "$T/h" report --help
check "report --help: status 0" [ "$(cat "$T/h.status")" = 0 ]
check "report --help: the usage on stdout, from the table" grep -q "^  --truth\[=MODE\]" "$T/h.out"
check "report --help: --folded and --perf-script in the table" sh -c "grep -q '^  --folded ' '$T/h.out' && grep -q '^  --perf-script ' '$T/h.out'"
run "$T/u" report "$ELF"
check "report without SAMPLES: status 2 and the usage" \
    sh -c '[ "$(cat "$1.status")" = 2 ] && grep -q "^usage: pmusim report" "$1.err"' - "$T/u"
run "$T/o" report --frobnicate "$ELF" "$T/a.samples"
check "report: an unknown option is named" grep -q "unknown option --frobnicate (see pmusim report --help)" "$T/o.err"
run "$T/m" report --truth=bogus "$ELF" "$T/a.samples"
check "report --truth=bogus: refused" grep -q "truth=bogus: expected insns or cycles" "$T/m.err"
"$PMUSIM" report --folded "$ELF" "$T/a.samples" >"$T/folded2" 2>&1
check "report: options before the operands work as after" cmp -s "$T/folded" "$T/folded2"
finish
