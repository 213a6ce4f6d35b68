// AArch64 fixture: hardware watchpoints (Arm ARM DDI 0487 D2, "Watchpoint exceptions"), loaded raw
// at 0x40080000, vectors at 0x40081000 (arm64_debug_vectors.inc records every exception and skips
// the access).  The data doubleword under watch is at 0x40110008 (x5 = 0x40110000); debug
// exceptions are enabled at EL1 (OS Lock clear, MDSCR_EL1.KDE and MDE, PSTATE.D clear).
//   stores only, bytes 0..7:   a store is taken (WnR, FAR the store's address) and does not
//                              complete; a load of it, and a store beside it on the same page, run
//   loads only:                a load is taken (WnR clear)
//   BAS 0b00001100 (bytes 2, 3): a byte store to byte 1 runs, to byte 2 is taken; a doubleword
//                              store over it is taken with FAR the store's first byte; STP too
//   EL0 only (PAC 0b10):       an EL1 load runs, LDTR (an unprivileged access) is taken
//   MASK 12 (a 4 KiB block):   a load anywhere in the page is taken
//   BAS 0xf0, stores:          STXR of the doubleword is taken (its data is 8 bytes, not Ws's 4)
//   PSTATE.D set:              nothing
//   LSC 0b00 (reserved):       disabled (a store to its doubleword runs), with a debug-reserved
//                              diag, as a context ID breakpoint type on breakpoint 1
// Results: x20 the doubleword at 0x40110008 at the end, x21 the one at 0x40110000, x22 the load
// of the watched doubleword under the store watchpoint.  The label table at 0x40080f00 gives the
// accesses' addresses.
    .include "arm64_start.inc"
    .equ WCR_STORE, (0xff << 5) | (2 << 3) | (1 << 1) | 1   // BAS 0xff, LSC store, PAC EL1, E
    .equ WCR_LOAD, (0xff << 5) | (1 << 3) | (1 << 1) | 1
    .equ WCR_BYTES23, (0x0c << 5) | (3 << 3) | (1 << 1) | 1 // loads and stores
    .equ WCR_EL0, (0xff << 5) | (3 << 3) | (2 << 1) | 1
    .equ WCR_MASK12, (12 << 24) | (0xff << 5) | (3 << 3) | (3 << 1) | 1
    .equ WCR_HIGH_STORE, (0xf0 << 5) | (2 << 3) | (1 << 1) | 1    // bytes 4..7, stores
    .equ WCR_LSC0, (0xff << 5) | (1 << 1) | 1                 // LSC 0b00: reserved
    .equ BCR_BT_CTX, (2 << 20) | 0x1e3                        // BT 0b0010 on breakpoint 1
    .text
    .globl _start
_start:
    a64_start
    msr oslar_el1, xzr
    mov x1, #(1 << 13) | (1 << 15)
    msr mdscr_el1, x1
    msr daifclr, #8
    ldr x5, =0x40110000
    mov x1, #0x11
    str x1, [x5, #8]            // before any watchpoint
    add x1, x5, #8
    msr dbgwvr0_el1, x1
    ldr x1, =WCR_STORE
    msr dbgwcr0_el1, x1
    isb
    mov x2, #0x22
st1:
    str x2, [x5, #8]            // record 0: EC 0x35, WnR, FAR 0x40110008; skipped
    ldr x22, [x5, #8]           // 0x11: the store did not complete, and a load is not watched
    str x2, [x5]                // bytes 0..7: not watched, the same page: runs
    ldr x1, =WCR_LOAD
    msr dbgwcr0_el1, x1
    isb
ld1:
    ldr x3, [x5, #8]            // record 1: EC 0x35, WnR clear
    ldr x1, =WCR_BYTES23
    msr dbgwcr0_el1, x1
    isb
    mov w2, #0x33
    strb w2, [x5, #9]           // byte 1: runs
st2:
    strb w2, [x5, #10]          // record 2: byte 2, FAR 0x4011000a
st3:
    str x2, [x5, #8]            // record 3: FAR 0x40110008
st4:
    stp x2, x2, [x5]            // record 4: FAR 0x40110000
    ldr x1, =WCR_EL0
    msr dbgwcr0_el1, x1
    isb
    ldr x3, [x5, #8]            // EL1: runs
ld2:
    ldtr x3, [x5, #8]           // record 5: an unprivileged access matches EL0 (WnR clear)
    ldr x1, =WCR_MASK12
    msr dbgwvr0_el1, x5
    msr dbgwcr0_el1, x1
    isb
ld3:
    ldr w3, [x5, #0xffc]        // record 6: the last word of the page, FAR 0x40110ffc
    add x23, x5, #8
    msr dbgwvr0_el1, x23
    ldr x1, =WCR_HIGH_STORE
    msr dbgwcr0_el1, x1
    isb
    ldxr x3, [x23]              // a load: not watched
stx:
    stxr w4, x2, [x23]          // record 7: bytes 4..7 of its doubleword (Ws is not the data)
    msr daifset, #8
    ldr w3, [x5, #0x800]        // PSTATE.D set: runs
    msr daifclr, #8
    msr dbgwcr0_el1, xzr
    ldr x1, =WCR_LSC0           // reserved: disabled, a debug-reserved diag
    msr dbgwvr1_el1, x5
    msr dbgwcr1_el1, x1
    ldr x1, =BCR_BT_CTX         // reserved on a breakpoint that is not context-aware: the same
    msr dbgbcr1_el1, x1
    isb
    str x2, [x5]                // runs: 0x33 at 0x40110000
    msr dbgwcr1_el1, xzr
    msr dbgbcr1_el1, xzr
    ldr x20, [x5, #8]
    ldr x21, [x5]
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg

    .org 0xf00                  // the labels, for the test
    .quad st1, ld1, st2, st3, st4, ld2, ld3, stx
    .include "arm64_debug_vectors.inc"
