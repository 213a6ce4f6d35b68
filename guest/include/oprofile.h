/* oprofile.h — what the oprofile scenario's kernel (oprofile.c) and its user program
 * (oprofile_user.c) share: system call numbers and the program's arguments. */
#ifndef GUEST_OPROFILE_H
#define GUEST_OPROFILE_H

#include "guest.h"

enum {
    SYS_checksum = 1,                   /* (buf, len): do_checksum() over len bytes */
    SYS_profiling = 2,                  /* (): 1 while the profiler still wants samples */
    SYS_exit = 3,                       /* (code): ends the program */
};

struct user_args {
    bool tuned;                         /* compare_keys after tuning: a word at a time */
};

/* The user program's data (the linker script places them with .user.text: identity-mapped in
 * the kernel's .data/.bss, in the user mapping below KERNELBASE in the -high guests). */
#define __user_data     __attribute__((section(".data.user")))
#define __user_bss      __attribute__((section(".bss.user")))

/* user.S */
__noreturn void enter_user(void (*entry)(const struct user_args *), const struct user_args *arg,
                           void *sp);
long syscall(long nr, long a, long b);

/* oprofile_user.c: the program, run in problem state. */
void user_main(const struct user_args *args);

#endif
