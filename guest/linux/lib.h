/* lib.h — the init's freestanding runtime: system calls, strings, formatted output, files.
 *
 * No libc: the init is built -static -nostdlib -ffreestanding, so everything it uses is here
 * (lib.c), in ../common/string.c or in arch/<arch>/ (sys.h: the system-call instruction and numbers, the
 * measured loop's instruction count, the kernel log lines of the dmesg step; start.S: _start and
 * the measured loop).  Output goes to file descriptor 1, Linux's /dev/console
 * (init/main.c, console_on_rootfs), a line at a time.
 */
#ifndef INIT_LIB_H
#define INIT_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sys.h"

/* Linux's values (include/uapi/asm-generic/fcntl.h, linux/reboot.h, linux/mman.h, ...). */
#define O_RDONLY    00
#define O_WRONLY    01
#define O_RDWR      02
#define O_TRUNC     01000
#define O_APPEND    02000
#define O_NONBLOCK  04000
#define AT_FDCWD    (-100)
#define SEEK_END    2
#define SIGCHLD     17
#define ENOENT      2
#define EAGAIN      11
#define EINTR       4
#define EPIPE       32
#define PROT_READ   1
#define PROT_WRITE  2
#define MAP_SHARED  1
#define LINUX_REBOOT_MAGIC1  0xfee1dead
#define LINUX_REBOOT_MAGIC2  672274793
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedc
#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_MSEC 1000000L

/* system calls: the result, or -errno */
long sys_open(const char *path, int flags);
long sys_close(int fd);
long sys_read(int fd, void *buf, size_t n);
long sys_write(int fd, const void *buf, size_t n);
long sys_lseek(int fd, long off, int whence);
long sys_mount(const char *src, const char *dir, const char *type);
long sys_fork(void);
long sys_wait(int *status);
long sys_pipe(int fd[2]);
long sys_ioctl(int fd, unsigned long req, unsigned long arg);
long sys_mmap_shared(int fd, size_t len, void **addr);
long sys_munmap(void *addr, size_t len);
long sys_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags);
long sys_sleep_ns(long ns);
long sys_pin_cpu(unsigned cpu);     /* sched_setaffinity(2): this process on `cpu` only */
void sys_exit(int status) __attribute__((noreturn));
long sys_poweroff(void);

/* strings: guest/common/string.c's, which the bare-metal guests use too (gcc may call memcpy,
 * memset and memcmp itself: they keep their standard names) */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
int str_starts(const char *s, const char *prefix);
const char *str_find(const char *s, const char *needle);
/* a decimal number (no sign): 0 and *ok = 0 if s is not one */
unsigned long str_to_ul(const char *s, int *ok);

/* formatted output: %s %c %d %u %x with l/ll and a width, '0'-padded if asked; one write */
int vformat(char *buf, size_t cap, const char *fmt, va_list ap);
int format(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* files */
long write_str(const char *path, const char *s, int flags);   /* flags: O_TRUNC or O_APPEND */
long read_small(const char *path, char *buf, size_t cap);     /* NUL-terminated, newline dropped */

/* Lines of a file descriptor, one by one (a line longer than LINE_MAX - 1 is cut). */
#define LINE_MAX 512
#define READ_CHUNK 4096
typedef struct Lines {
    int fd;
    long eof_or_err;                    /* 0 while more may come; 1 at the end; -errno */
    size_t pos, len;
    char buf[READ_CHUNK];
    char line[LINE_MAX];
} Lines;
void lines_init(Lines *l, int fd);
/* The next line in l->line (without its newline): 1, or 0 at the end (or an error). */
int lines_next(Lines *l);

#endif
