# x86-64 INIT/SIPI fixture, loaded raw at 0x100000 on a tree whose secondary CPUs have no
# enable-method (they wait for SIPI, docs/machines.md).  test_sipi.c writes the number of CPUs
# at NCPUS.
#
# The boot CPU copies the trampoline to TRAMP (STARTUP vector 0x20) and wakes each AP as Linux
# does (arch/x86/kernel/smpboot.c, wakeup_secondary_cpu_via_init): INIT assert, INIT de-assert,
# two STARTUP IPIs.  The AP runs the trampoline as Linux's (arch/x86/realmode/rm/
# trampoline_64.S): in real mode a wbinvd, a 16-bit far jump, pushf/popf and cpuid, a loop of
# 20000 turns (longer than a quantum: a checkpoint can be taken there), lidt/lgdt,
# lmsw to protected mode, a 32-bit far jump; there PAE, CR3, EFER.LME by wrmsr, CR0.PG and a
# far jump into 64-bit code, which reports in: it adds one to its slot REPORT + 8 * APIC ID
# (the second STARTUP must not start it again), stores CR0 and EFER there too, counts itself in
# COUNT and halts.  The boot CPU waits for NCPUS - 1 reports and halts.
    .set TRAMP, 0x20000
    .set TRAMP_SEG, 0x2000
    .set SIPI_VECTOR, 0x20
    .set COUNT, 0x30000
    .set NCPUS, 0x30008
    .set REPORT, 0x30100
    .set APIC, 0xfee00000
    .set ICR_LO, 0x300
    .set ICR_HI, 0x310
    .set INIT_ASSERT, 0xc500            # INIT, level triggered, assert
    .set INIT_DEASSERT, 0x8500          # INIT, level triggered, de-assert
    .set STARTUP, 0x600
    .set BOOT_PGD, 0x9000               # pmusim's identity map (docs/guest-abi.md)
    .set MSR_EFER, 0xc0000080
    .set REAL_MODE_LOOP, 20000

    .code64
    .text
    .globl _start
_start:
    lea tramp(%rip), %rsi
    mov $TRAMP, %edi
    mov $(tramp_end - tramp), %ecx
    rep movsb
    mov $APIC, %esi
    movl $0x1ff, 0xf0(%rsi)             # SVR: software enable
    mov $1, %ebx                        # APIC ID of the next AP
1:  cmp NCPUS, %ebx
    jae 3f
    mov %ebx, %eax
    shl $24, %eax
    mov %eax, ICR_HI(%rsi)
    movl $INIT_ASSERT, ICR_LO(%rsi)
    mov %eax, ICR_HI(%rsi)
    movl $INIT_DEASSERT, ICR_LO(%rsi)
    mov $2, %ecx
2:  mov %eax, ICR_HI(%rsi)
    movl $(STARTUP | SIPI_VECTOR), ICR_LO(%rsi)
    dec %ecx
    jnz 2b
    inc %ebx
    jmp 1b
3:  mov NCPUS, %eax
    dec %eax
4:  pause
    cmp COUNT, %eax
    jne 4b
    cli
    hlt

# ---- the trampoline: position-independent within its page, run at TRAMP
    .code16
tramp:
    cli
    wbinvd
    ljmpw $TRAMP_SEG, $(t16 - tramp)
t16:
    mov %cs, %ax
    mov %ax, %ds
    mov %ax, %ss
    mov $0x1000, %sp                    # a stack at the end of the trampoline's page
    pushfl
    popfl
    xor %eax, %eax
    cpuid
    mov $REAL_MODE_LOOP, %cx            # a while in real mode: a checkpoint can stop it here
6:  dec %cx
    jnz 6b
    lidtl (t_idt - tramp)
    lgdtl (t_gdt_desc - tramp)
    mov $1, %ax                         # CR0.PE, as Linux does it
    lmsw %ax
    ljmpl $0x08, $(TRAMP + t32 - tramp)

    .code32
t32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %cr4, %eax
    or $0x20, %eax                      # PAE
    mov %eax, %cr4
    mov $BOOT_PGD, %eax
    mov %eax, %cr3
    mov $MSR_EFER, %ecx
    rdmsr
    or $0x100, %eax                     # LME
    wrmsr
    mov $0x80000001, %eax               # PG | PE
    mov %eax, %cr0
    ljmpl $0x18, $(TRAMP + t64 - tramp)

    .code64
t64:
    mov $APIC, %esi
    mov 0x20(%rsi), %ebx                # the APIC ID, [31:24]
    shr $24, %ebx
    shl $5, %ebx                        # 32 bytes a CPU
    lock incq REPORT(%rbx)
    mov %cr0, %rax
    mov %rax, REPORT + 8(%rbx)
    mov $MSR_EFER, %ecx
    rdmsr
    mov %eax, REPORT + 16(%rbx)
    lock incl COUNT
5:  cli
    hlt
    jmp 5b

    .balign 8
t_gdt:
    .quad 0
    .quad 0x00cf9a000000ffff            # 0x08: 32-bit code
    .quad 0x00cf92000000ffff            # 0x10: data
    .quad 0x00af9a000000ffff            # 0x18: 64-bit code
t_gdt_desc:
    .word 4 * 8 - 1
    .long TRAMP + t_gdt - tramp
t_idt:
    .word 0
    .long 0
tramp_end:
