/* guest.h — the common layer of the pmusim guest kernels: types, console, strings, boot and
 * exit.  Architecture primitives come from arch/<arch>/arch.h; the arch.c functions every port
 * implements are declared at the end. */
#ifndef GUEST_H
#define GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define __noreturn      __attribute__((noreturn))
#define __always_inline inline __attribute__((always_inline))
#define __printf(f, a)  __attribute__((format(printf, f, a)))
#define barrier()       asm volatile("" ::: "memory")

#include <arch.h>

/* console.c: printf knows %d %i %u %x %X %p %s %c %%, flags '0' '-', a width, and the length
 * modifiers l, ll, z.  Each call holds the console lock so lines from CPUs do not interleave. */
int printf(const char *fmt, ...) __printf(1, 2);
int vprintf(const char *fmt, va_list ap);
/* Without the lock, for panics and register dumps: the failing CPU may hold it. */
int printf_unlocked(const char *fmt, ...) __printf(1, 2);
/* For NMI handlers: takes the lock unless the code the NMI interrupted on this CPU holds it. */
int printf_nmi(const char *fmt, ...) __printf(1, 2);

/* string.c */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

/* boot.c */
extern const void *boot_fdt;            /* the DTB handed over at entry, NULL if none */
int main(void);                         /* the scenario; its result is the exit code */
void cpu_init(unsigned cpu);            /* per-CPU setup: traps, per-CPU area */
__noreturn void guest_exit(int code);
/* Prints "panic: ..." without taking the console lock (it may be held by the failed code). */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/* ---- implemented by arch/<arch>/arch.c ---- */
void arch_putc(char c);                 /* raw console output, waits for the transmitter */
/* Ends the run with code (0 = success); if the exit device is absent, parks the CPU. */
__noreturn void arch_exit(int code);
void arch_boot_init(void);              /* once, on the boot CPU, before cpu_init(0) */
void arch_cpu_init(void);               /* on each CPU: descriptor tables / vector base */
void arch_percpu_set_offset(uintptr_t off);
unsigned long arch_cpu_hwid(void);      /* this CPU's id from the hardware (APIC ID/MPIDR/PIR) */
__noreturn void arch_cpu_park(void);    /* stop this CPU for good */

#endif
