#!/bin/sh
# ppc32 on the engine's E600 model (docs/engine.md, "PowerPC"): every configured model presents
# its own PVR and SPRs, and dcbz is pmusim's (the engine crashes the host on it).  The guest,
# tests/e2e/data/ppc32-dcbz.S, checks itself and exits with 0 (status 1) or the number of the
# first failing check; this script checks what the trace shows of it.
. "$(dirname "$0")/lib.sh" "$@"

src=$(dirname "$0")/data/ppc32-dcbz.S
powerpc-linux-gnu-as -o "$T/dcbz.o" "$src" && powerpc-linux-gnu-ld -Ttext=0 -e 0 -o "$T/dcbz.elf" "$T/dcbz.o" &&
    powerpc-linux-gnu-objcopy -O binary "$T/dcbz.elf" "$T/dcbz.bin" || { echo "cannot assemble $src"; exit 1; }
# the address of a labelled instruction: LABEL OFFSET
at() {
    printf '0x%x' $((0x$(powerpc-linux-gnu-nm "$T/dcbz.elf" | sed -n "s/^\([0-9a-f]*\) . $1\$/\1/p") + $2))
}

for model in mpc7450 mpc7447a mpc7448; do
    o=$T/$model
    run "$o" run --icount-check --trace "$o.trace" --cpu-model "$model" --arch ppc32 --load-addr 0 --max-insns 10000 \
        "$T/dcbz.bin"
    check "$model: every check of the guest passed (status $(cat "$o.status"), 1 + 2 x the failing check)" \
        [ "$(cat "$o.status")" = 1 ]
    check "$model: --icount-check agrees (each dcbz retires once)" grep -q "icount-check: cpu0 .* ok" "$o.err"
    check "$model: dcbz with the data cache disabled, then locked: two alignment exceptions" \
        [ "$(grep -c 'exception vector=0x600 ' "$o.trace")" = 2 ]
    check "$model: ... each with a diag (the guest checks DAR and DSISR)" \
        [ "$(grep -c 'what=alignment .*: alignment exception' "$o.trace")" = 2 ]
    check "$model: dcbz of code: two 16-byte code writes, both by the dcbz" \
        [ "$(grep -c -e "code-write addr=$(at codefn 0) .*size=16 .*new=0\{32\} pc=$(at dcbz_code 0) " \
            -e "code-write addr=$(at codefn 16) .*size=16 .*new=0\{32\} pc=$(at dcbz_code 0) " "$o.trace")" = 2 ]
    check "$model: the zeroed code runs as zeros: illegal-instruction program exceptions at each word" \
        [ "$(grep -c "exception vector=0x700 .*from=$(at codefn 0) .*info=0x81000" "$o.trace")" = 1 ] &&
        [ "$(grep -c "exception vector=0x700 .*from=$(at codefn 28) .*info=0x81000" "$o.trace")" = 1 ]
    check "$model: dcbz of unbacked memory: a machine check with a diag" \
        grep -q "what=bus-error pc=$(at dcbz_unbacked 0) .*0x40000000: machine check" "$o.trace"
    check "$model: dcbz of a device window: a diag, 32 zero bytes to the device" \
        grep -q "what=dcbz-device pc=$(at dcbz_device 0) " "$o.trace"
    check "$model: ... as eight 4-byte writes of ports 0x100-0x11c, by the dcbz" \
        [ "$(grep -c "what=unassigned-io pc=$(at dcbz_device 0) .*write of 4 bytes (0x0) at port 0x1[01]" "$o.trace")" = 8 ]
    check "$model: dcbz of ROM: ignored, with a diag" grep -q "what=rom-write pc=$(at dcbz_rom 0) " "$o.trace"
done
# the 7450 lacks SPRG4 and IBAT4U: its three accesses are illegal-instruction program exceptions
check "mpc7450: mtspr SPRG4, mfspr SPRG4, mtspr IBAT4U are illegal instructions" \
    [ "$(grep -c -e "exception vector=0x700 .*from=$(at sprs_7450 0) .*info=0x81000" \
        -e "exception vector=0x700 .*from=$(at sprs_7450 4) .*info=0x81000" \
        -e "exception vector=0x700 .*from=$(at sprs_7450 8) .*info=0x81000" "$T/mpc7450.trace")" = 3 ]
for model in mpc7447a mpc7448; do
    check "$model: SPRG4 and IBAT4U exist: no program exception but the zeroed code's eight" \
        [ "$(grep -c 'exception vector=0x700 ' "$T/$model.trace")" = 8 ]
done
# checkpoints (ppc32 state version 2): restored at a point after the guest enabled the data cache
# and wrote its model-specific SPR (the 7450's L3PM, kept by pmusim; SPRG5, kept by the engine),
# before, during and after its dcbz checks, the run ends as the uninterrupted one
for model in mpc7450 mpc7447a mpc7448; do
    for at in 262 300 400; do
        o=$T/ck-$model-$at
        run "$o-save" run --quantum 10 --trace "$o-save.trace" --save-at "$at:$o.ck" --cpu-model "$model" --arch ppc32 \
            --load-addr 0 "$T/dcbz.bin"
        run "$o-rest" run --quantum 10 --trace "$o-rest.trace" --restore "$o.ck" --cpu-model "$model" --arch ppc32 \
            --load-addr 0 "$T/dcbz.bin"
        check "$model checkpoint at $at: saving does not disturb the run" cmp -s "$T/$model.status" "$o-save.status"
        check "$model checkpoint at $at: the restored run passes every check too" [ "$(cat "$o-rest.status")" = 1 ]
        k=$(wc -l <"$o-rest.trace")
        tail -n "$k" "$o-save.trace" >"$o.tail"
        check "$model checkpoint at $at: the restored trace is the tail ($k lines)" cmp -s "$o.tail" "$o-rest.trace"
    done
done
# deterministic: a second run gives the same bytes
run "$T/again" run --icount-check --trace "$T/again.trace" --cpu-model mpc7450 --arch ppc32 --load-addr 0 \
    --max-insns 10000 "$T/dcbz.bin"
check "run twice: the same trace" cmp -s "$T/mpc7450.trace" "$T/again.trace"
check "run twice: the same output and status" cmp -s "$T/mpc7450.out" "$T/again.out"
check "run twice: the same messages" cmp -s "$T/mpc7450.err" "$T/again.err"
# the PVR each model presents (--dump-dtb names the model; the guest reads the PVR itself)
for pair in mpc7450:PowerPC,7450 mpc7447a:PowerPC,7447A mpc7448:PowerPC,7448; do
    run "$T/dtb" --dump-dtb --arch ppc32 --cpu-model "${pair%%:*}"
    check "${pair%%:*}: the cpu node's compatible is ${pair#*:}" grep -q "compatible = \"${pair#*:}\"" "$T/dtb.out"
done
finish
