#!/bin/sh
# Guests with their MMU on, under pmusim's page walk (cpu/mmu.c, the backends' translate):
# the paging guest demand-pages a window and checks each fault's address and syndrome (x86 CR2
# and #PF error code), the accessed and dirty flags, code remapped under the same virtual page
# and code rewritten through a second virtual alias.  Under --icount-check a CPU that counted
# stale code (decoded before the remap or the write) shows as a mismatch; the run is
# byte-identical run to run.
. "$(dirname "$0")/lib.sh" "$@"

for a in x86_64; do
    g=$GUESTS/$a/paging.elf
    run "$T/$a.1" --icount-check --trace "$T/$a.1.trace" "$g"
    run "$T/$a.2" --icount-check --trace "$T/$a.2.trace" "$g"
    check "$a paging: console as recorded" cmp -s "$T/$a.1.out" "$EXPECTED/$a/paging.out"
    [ -f "$T/$a.1.out" ] && ! cmp -s "$T/$a.1.out" "$EXPECTED/$a/paging.out" && diff "$EXPECTED/$a/paging.out" "$T/$a.1.out"
    check "$a paging: guest exit 0 (status 1)" [ "$(cat "$T/$a.1.status")" = 1 ]
    check "$a paging: counted what the CPU fetched" grep -q '^icount-check: cpu0 .* ok$' "$T/$a.1.err"
    check "$a paging: the reserved bit is a diag naming the entry" \
        grep -q 'diag what=page-table .*reserved bits set in the level-1 entry' "$T/$a.1.trace"
    check "$a paging: trace identical run to run" cmp -s "$T/$a.1.trace" "$T/$a.2.trace"
    check "$a paging: console identical run to run" cmp -s "$T/$a.1.out" "$T/$a.2.out"
done
finish
