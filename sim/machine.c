/* machine.c — building a machine from its device tree and running it (see machine.h). */
#include "sim/machine.h"

#include "tracer/callchain.h"
#include "tracer/guesttrace.h"
#include "tracer/tracedat.h"
#include "tracer/tracejson.h"

#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bzimage.h"
#include "base/cpio.h"
#include "base/multiboot.h"
#include "base/linux_image.h"
#include "base/tunables.h"
#include "sim/acpi.h"
#include "sim/dev/acpi_pm.h"
#include "sim/devices.h"
#include "sim/dev/uart_rx.h"
#include "sim/intc.h"
#include "cpu/x86_64.h"

/* x86 boot structures (docs/machines.md). */
#define X86_BOOT_BASE 0x8000ull
#define X86_GDT 0x8000ull
#define X86_PML4 0x9000ull
#define X86_PDPT 0xa000ull
#define X86_PD 0xb000ull
#define SPIN_PAGE 0xf000ull
#define LOW_DTB 0x10000ull          /* x86_64 and ppc32 */
/* Linux/x86's boot (docs/guest-abi.md, "Booting Linux"): the zero page and the command line,
 * above the DTB's room, reserved. */
#define X86_ZERO_PAGE 0x20000ull
#define X86_CMDLINE 0x21000ull
#define X86_CMDLINE_MAX 4095u
#define X86_LINUX_AREA 0x2000ull
/* Multiboot's information structure and what it points to, in the same reserved pages: the
 * memory map (128 entries at most), the module, its string, the loader's name; the command
 * line at X86_CMDLINE (docs/guest-abi.md, "Multiboot"). */
#define MB_INFO 0x20000ull
#define MB_MMAP 0x20100ull
#define MB_MODS 0x20e00ull
#define MB_MOD_STRING 0x20e10ull
#define MB_MOD_STRING_MAX 0xefu
#define MB_LOADER_NAME 0x20f00ull
#define MB_LOADER_NAME_TEXT "pmusim " PMUSIM_VERSION
/* What a PC BIOS reports reserved below 1 MiB: the EBDA (the last KiB of 640), the VGA window
 * and the BIOS area (0xe0000-0xfffff: the ACPI tables) up to the first MiB. */
#define PC_LOW_RAM_END 0x9fc00ull
#define PC_HIGH_MEM 0x100000ull

/* ePAPR magic and spin-table layout (ePAPR 1.1 §5.5.2). */
#define EPAPR_MAGIC 0x45504150ull

/* ------------------------------------------------------------------ diagnostics, console */

/* ------------------------------------------------------------------ KASLR */

/* Where an x86 kernel runs (CONFIG_RANDOMIZE_BASE).  Its decompressor picks a virtual offset
 * (arch/x86/boot/compressed/kaslr.c choose_random_location: a multiple of CONFIG_PHYSICAL_ALIGN,
 * the header's kernel_alignment, below KERNEL_IMAGE_SIZE) and relocates the kernel by it
 * (misc.c handle_relocations); the kernel then maps only its own image in that 1 GiB window
 * (arch/x86/kernel/head64.c __startup_64: "invalidate pages before/after the kernel image").
 * So once the boot CPU runs at a kernel virtual address (head_64.S startup_64 ends with
 * `jmp *0f(%rip)` to common_startup_64's relocated address), exactly one candidate offset maps
 * _text + offset to _text's bytes: that is kaslr_offset() (arch/x86/include/asm/setup.h: _text -
 * __START_KERNEL), what the kernel's panic prints as "Kernel Offset: 0x... from
 * 0xffffffff81000000", and 0 with `nokaslr`.  Looked for at the end of each round (a point of
 * simulated time: the same every run) and before a name is needed; the probe's page walks have
 * no side effects (translate's probe mode).  A kernel whose _text bytes are not found (changed
 * by then: none of Debian's 6.12 patch sites is in them) is looked for at KASLR_MAX_MISSES round ends,
 * then its symbols stay at their link addresses: the search costs 512 page walks. */
#define KASLR_MAX_MISSES 64
static void kaslr_follow(Machine *m, bool at_round_end)
{
    KaslrProbe *k = &m->image.kaslr;
    if (!k->pending || !k->align || !m->cl.ncpus)
        return;
    Cpu *c = m->cl.cpus[0];
    if (c->ops->get_pc(c) < X86_START_KERNEL_MAP)
        return;
    uint8_t buf[KASLR_PROBE_LEN];
    for (uint64_t d = 0; d < X86_KERNEL_IMAGE_SIZE; d += k->align)
        if (vcpu_fetch_read(c, k->text + d, buf, sizeof buf) && !memcmp(buf, k->bytes, sizeof buf)) {
            image_kaslr_apply(&m->image, d);
            return;
        }
    if (at_round_end && ++k->misses >= KASLR_MAX_MISSES)     /* counted where every run counts them */
        k->pending = false;
}

const char *mach_describe(Machine *m, uint64_t addr, char *buf, size_t len)
{
    if (addr >= X86_START_KERNEL_MAP)
        kaslr_follow(m, false);
    return image_describe(&m->image, addr, buf, len);
}

static const char *describe_for_trace(void *m, uint64_t addr, char *buf, size_t len)
{
    return mach_describe(m, addr, buf, len);
}

void mach_diag(Machine *m, Cpu *c, uint64_t pc, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_vdiagf(&m->trace, c ? c->cycles : m->clock.now, c ? c->index : -1, what, c ? &pc : NULL, fmt, ap);
    va_end(ap);
}

static void console_write_all(Console *con)
{
    outfile_write(&con->out, con->buf, con->len);
    con->len = 0;
}

void mach_exit(Machine *m, Cpu *c, int status, const char *reason);

/* The last byte of the panic's line goes out before the run ends (console_putc). */
static void console_flush_line(Machine *m, uint8_t ch)
{
    Console *con = &m->console;
    if (con->bytes++ < con->mute_below)
        return;
    con->buf[con->len++] = (char)ch;
    console_write_all(con);
}

void console_putc(Machine *m, uint8_t ch)
{
    Console *con = &m->console;
    if (m->cl.stopping)
        return;                     /* after the instruction that ended the run */
    if (linuxwatch_char(&m->linuxwatch, ch)) {
        console_flush_line(m, ch);
        mach_exit(m, NULL, EXIT_PANIC, "linux-panic");
        return;
    }
    if (con->bytes < con->mute_below) {
        con->bytes++;               /* written once already (time travel) */
        return;
    }
    con->buf[con->len++] = (char)ch;
    con->bytes++;
    if (con->len == sizeof con->buf || (ch == '\n' && con->line_flush)) {
        if (con->line_flush)
            progress_clear(&m->progress);   /* a terminal's line: the progress line returns later */
        console_write_all(con);
    }
}

void console_flush(Machine *m)
{
    console_write_all(&m->console);
}

/* ------------------------------------------------------------------ exit */

void mach_exit(Machine *m, Cpu *c, int status, const char *reason)
{
    mach_exit_at(m, c, UINT64_MAX, status, reason);
}

/* The run ends because of CPU c: the instruction at pc (UINT64_MAX: the CPU's PC), or the one
 * a hook is handling in the middle of a block (a device access being dispatched: cpu.h
 * vcpu_access_current), is the last one retired; returns it. */
static uint64_t exit_stop_cpu(Machine *m, Cpu *c, uint64_t pc, const char *reason)
{
    uint64_t at = vcpu_access_current(c);
    if (at != UINT64_MAX) {
        pc = at;
        vcpu_retire_upto(c, pc, true);
    } else if (pc == UINT64_MAX) {
        pc = c->ops->get_pc(c);
    }
    c->stop_reason = reason;
    vcpu_request_stop(c);
    return pc;
}

void mach_exit_at(Machine *m, Cpu *c, uint64_t pc, int status, const char *reason)
{
    if (m->cl.stopping)
        return;
    if (c)
        pc = exit_stop_cpu(m, c, pc, reason);
    m->cl.stopping = true;
    m->exit_status = status;
    m->exit_reason = reason;
    m->exit_cpu = c ? c->index : -1;
    trace_exit(&m->trace, c ? c->cycles : m->clock.now, c ? c->index : -1, (uint64_t)status, reason, c ? &pc : NULL);
}

/* --trace-limit: the trace refused `ev`, the first event that would take it past the limit
 * (base/trace.h), and takes nothing more but the exit line.  The run ends at that event as at an
 * exit (a device access being dispatched is the last instruction retired): its line is replaced
 * by the exit line, at its CPU and cycle, without an instruction (the event may come from the
 * middle of one, an exception entry say).  Since the trace's bytes follow the simulation, the
 * point is the same on every run.  The CPU that emitted it stops at its next block boundary,
 * or at once from an exception or a trap hook, which look at `stopping` (cpu.c hook_intr,
 * hook_trap): a guest whose exceptions never reach a block boundary stops too. */
static void trace_full(void *opaque, const TraceEvent *ev)
{
    Machine *m = opaque;
    if (m->cl.stopping)
        return;
    if (ev->cpu >= 0 && ev->cpu < m->cl.ncpus)
        exit_stop_cpu(m, m->cl.cpus[ev->cpu], UINT64_MAX, "trace-limit");
    m->cl.stopping = true;
    m->exit_status = EXIT_LIMIT;
    m->exit_reason = "trace-limit";
    m->exit_cpu = ev->cpu;
    trace_exit(&m->trace, ev->cycle, ev->cpu, EXIT_LIMIT, "trace-limit", NULL);
}

/* ------------------------------------------------------------------ I/O and MMIO dispatch */

static Device *find_device(Machine *m, bool io, uint64_t addr)
{
    for (int i = 0; i < m->ndevs; i++) {
        Device *d = m->devs[i];
        if (d->io == io && addr - d->base < d->size)
            return d;
    }
    return NULL;
}

static uint64_t all_ones(unsigned size)
{
    return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/* `cpu_addr` is the access as the CPU made it (the ISA window turns memory accesses into port
 * accesses): what the access locator must look for. */
static uint64_t dispatch_read(Machine *m, Cpu *c, bool io, uint64_t addr, unsigned size, AccessKind kind,
                              uint64_t cpu_addr)
{
    if (m->cl.stopping)
        return all_ones(size);
    Device *d = find_device(m, io, addr);
    vcpu_access_begin(c, kind, cpu_addr, size);
    uint64_t v;
    if (d) {
        v = d->ops->read(d, c, addr - d->base, size);
    } else {
        v = all_ones(size);
        mach_diag(m, c, vcpu_access_pc(c, kind, cpu_addr, size), io ? "unassigned-io" : "unassigned",
                     "read of %u bytes at %s 0x%" PRIx64 ": no device", size, io ? "port" : "address", addr);
    }
    vcpu_access_end(c);
    return v;
}

static void dispatch_write(Machine *m, Cpu *c, bool io, uint64_t addr, unsigned size, uint64_t val,
                           AccessKind kind, uint64_t cpu_addr)
{
    if (m->cl.stopping)
        return;
    Device *d = find_device(m, io, addr);
    vcpu_access_begin(c, kind, cpu_addr, size);
    if (d)
        d->ops->write(d, c, addr - d->base, size, val);
    else
        mach_diag(m, c, vcpu_access_pc(c, kind, cpu_addr, size), io ? "unassigned-io" : "unassigned",
                     "write of %u bytes (0x%" PRIx64 ") at %s 0x%" PRIx64 ": no device", size, val,
                     io ? "port" : "address", addr);
    vcpu_access_end(c);
}

uint64_t mach_io_read(Machine *m, Cpu *c, uint64_t port, unsigned size)
{
    return dispatch_read(m, c, true, port, size, ACC_IN, port);
}

void mach_io_write(Machine *m, Cpu *c, uint64_t port, unsigned size, uint64_t val)
{
    dispatch_write(m, c, true, port, size, val, ACC_OUT, port);
}

/* One engine's view of one MMIO window. */
typedef struct MmioCtx {
    Machine *m;
    int cpu;
    uint64_t base;
    enum { WIN_DEVICE, WIN_ISA, WIN_UNASSIGNED } kind;
    Device *dev;                /* WIN_DEVICE */
    const char *name;           /* the node */
} MmioCtx;

static uint64_t mmio_read(uc_engine *uc, uint64_t off, unsigned size, void *opaque)
{
    MmioCtx *x = opaque;
    Machine *m = x->m;
    Cpu *c = m->cl.cpus[x->cpu];
    switch (x->kind) {
    case WIN_ISA:
        return dispatch_read(m, c, true, off, size, ACC_READ, x->base + off);
    default:
        return dispatch_read(m, c, false, x->base + off, size, ACC_READ, x->base + off);
    }
}

static void mmio_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t val, void *opaque)
{
    MmioCtx *x = opaque;
    Machine *m = x->m;
    Cpu *c = m->cl.cpus[x->cpu];
    switch (x->kind) {
    case WIN_ISA:
        dispatch_write(m, c, true, off, size, val, ACC_WRITE, x->base + off);
        break;
    default:
        dispatch_write(m, c, false, x->base + off, size, val, ACC_WRITE, x->base + off);
        break;
    }
}

static bool map_window(Machine *m, Cpu *c, uint64_t base, uint64_t size, int kind, Device *dev, const char *name,
                       Error *err)
{
    /* `name` is a node path, or what the window is; the message names the file, the node and the window */
    const char *file = m->cfg.machine_file ? m->cfg.machine_file : "built-in board";
    const char *node = name[0] == '/' ? "node " : "";
    uint64_t last = base + size - 1;    /* dt_parse keeps windows inside the address space; be sure */
    if (!size || last < base || (last | (GUEST_PAGE - 1)) == UINT64_MAX)
        return err_set(err, "%s: %s%s: window 0x%" PRIx64 "+0x%" PRIx64 " is empty or reaches the end of the address "
                       "space", file, node, name, base, size);
    uint64_t start = base & ~(GUEST_PAGE - 1), end = (last | (GUEST_PAGE - 1)) + 1;
    MmioCtx *x = xcalloc(1, sizeof *x);
    *x = (MmioCtx){ m, c->index, start, kind, dev, name };
    if (m->nmmio_ctx == m->mmio_ctx_cap) {
        m->mmio_ctx_cap = m->mmio_ctx_cap ? 2 * m->mmio_ctx_cap : 32;
        m->mmio_ctx = xrealloc(m->mmio_ctx, (size_t)m->mmio_ctx_cap * sizeof *m->mmio_ctx);
    }
    m->mmio_ctx[m->nmmio_ctx++] = x;
    uc_err e = uc_mmio_map(c->uc, start, end - start, mmio_read, x, mmio_write, x);
    if (e != UC_ERR_OK)
        return err_set(err, "%s: %s%s: cannot map its window 0x%" PRIx64 "+0x%" PRIx64 " (pages 0x%" PRIx64 "-0x%"
                       PRIx64 ") into cpu%d: %s", file, node, name, base, size, start, end - 1, c->index,
                       uc_strerror(e));
    return true;
}

typedef struct Span {
    uint64_t start, end;
} Span;

static int cmp_span(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

bool mach_map_devices(Machine *m, Cpu *c, Error *err)
{
    Span used[DESC_MAX_DEVS + MEM_MAX_BLOCKS + 2];
    int nused = 0;
    for (int i = 0; i < m->mem.n; i++)
        used[nused++] = (Span){ m->mem.blk[i].base, m->mem.blk[i].base + m->mem.blk[i].size };
    for (int i = 0; i < m->desc.ndevs; i++) {
        const DevDesc *dd = &m->desc.devs[i];
        if (dd->io)
            continue;
        if (!map_window(m, c, dd->base, dd->size, WIN_DEVICE, find_device(m, false, dd->base), dd->path, err))
            return false;
        used[nused++] = (Span){ dd->base & ~(GUEST_PAGE - 1), (dd->base + dd->size + GUEST_PAGE - 1) & ~(GUEST_PAGE - 1) };
    }
    if (m->desc.isa_window) {
        if (!map_window(m, c, m->desc.isa_base, m->desc.isa_size, WIN_ISA, NULL, m->desc.isa_path, err))
            return false;
        used[nused++] = (Span){ m->desc.isa_base, m->desc.isa_base + m->desc.isa_size };
    }
    if (m->arch == ARCH_X86_64) {
        /* Everything else below 4 GiB reads as all ones on a PC (unassigned). */
        qsort(used, (size_t)nused, sizeof used[0], cmp_span);
        uint64_t at = 0;
        for (int i = 0; i <= nused; i++) {
            uint64_t next = i < nused ? used[i].start : 1ull << 32;
            if (next > (1ull << 32))
                next = 1ull << 32;
            if (next > at && !map_window(m, c, at, next - at, WIN_UNASSIGNED, NULL, "unassigned", err))
                return false;
            if (i < nused && used[i].end > at)
                at = used[i].end;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ building */

/* Where the initrd and the DTB go (docs/guest-abi.md, "Where the DTB and the initrd go"):
 * QEMU's layout for a Linux image on arm (hw/arm/boot.c, arm_setup_direct_kernel_boot), so
 * that an image written for QEMU's virt board finds them where it found them there.  The
 * initrd starts at the first page at or above both the end of the image (its BSS included:
 * the ELF's p_memsz, an arm64 Image's image_size) and RAM base + min(RAM size / 2, 128 MiB);
 * on arm64 the DTB follows at the next 2 MiB boundary (where the initrd would start, without
 * one).  On x86_64 and ppc32 the DTB keeps its board address (0x10000, reserved), unless the
 * image or the initrd is there. */

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* One past the image's highest byte in RAM (ROM segments left out), or 0. */
static uint64_t image_ram_end(Machine *m)
{
    uint64_t top = 0;
    for (int i = 0; i < m->image.nsegs; i++) {
        const Segment *s = &m->image.segs[i];
        RamBlock *b = mem_block(&m->mem, s->paddr);
        if (b && !b->rom && s->paddr + s->memsz > top)
            top = s->paddr + s->memsz;
    }
    return top;
}

/* The RAM the image ends in, or the first RAM range (dt_parse makes sure there is one). */
static RamBlock *boot_ram(Machine *m)
{
    RamBlock *b = m->image_end ? mem_block(&m->mem, m->image_end - 1) : NULL;
    for (int i = 0; !b && i < m->mem.n; i++)
        if (!m->mem.blk[i].rom)
            b = &m->mem.blk[i];
    return b;
}

static uint64_t initrd_start(const RamBlock *b, uint64_t image_end)
{
    uint64_t low = b->base + (b->size / 2 < INITRD_OFFSET_MAX ? b->size / 2 : INITRD_OFFSET_MAX);
    return align_up(low > image_end ? low : image_end, GUEST_PAGE);
}

/* RAM as the messages name it: "0x40000000+1024 MiB" (or KiB below a MiB). */
static const char *ram_text(const RamBlock *b, char *buf, size_t len)
{
    if (b->size % (1 << 20))
        snprintf(buf, len, "0x%" PRIx64 "+%" PRIu64 " KiB", b->base, b->size >> 10);
    else
        snprintf(buf, len, "0x%" PRIx64 "+%" PRIu64 " MiB", b->base, b->size >> 20);
    return buf;
}

/* A bzImage's initrd must lie below its initrd_addr_max (boot.rst: the highest byte it may
 * occupy); pmusim puts it above the kernel's init_size window (initrd_start). */
static bool bz_initrd_fits(Machine *m, Error *err)
{
    BzHeader h;
    if (!bzimage_header(m->image.data, m->image.size, m->image.path, &h, err))
        return false;
    uint64_t last = m->initrd_addr + (m->initrd_size ? m->initrd_size - 1 : 0);
    if (last > h.initrd_addr_max)
        return err_set(err, "--initrd %s: it goes at 0x%" PRIx64 "-0x%" PRIx64 ", above the kernel's initrd_addr_max "
                       "0x%x (%s, setup header offset 0x22c)", m->cfg.initrd_file, m->initrd_addr, last,
                       h.initrd_addr_max, m->image.path);
    return true;
}

/* --initrd: into RAM (initrd_start), then /chosen/linux,initrd-start and -end. */
static bool load_initrd(Machine *m, Error *err)
{
    const char *path = m->cfg.initrd_file;
    RamBlock *b = boot_ram(m);
    /* multiboot: the first page above the kernel, as QEMU puts its modules (and above the first
     * MiB, clear of the boot structures) */
    uint64_t mb_at = align_up(m->image_end > PC_HIGH_MEM ? m->image_end : PC_HIGH_MEM, GUEST_PAGE);
    uint64_t at = m->image.boot == BOOT_MULTIBOOT ? mb_at : initrd_start(b, m->image_end);
    uint64_t end = b->base + b->size, len;
    uint64_t room = at < end ? end - at : 0;
    char ram[64];
    Error e = { { 0 } };
    if (!image_read_blob(path, room ? mem_ptr(&m->mem, at, room) : NULL, room, &len, &e))
        return err_set(err, "--initrd %.300s (it goes at 0x%" PRIx64 ", above the image, in RAM %s; --mem sets the "
                       "RAM size)", e.msg, at, ram_text(b, ram, sizeof ram));
    if (!cpio_check(mem_ptr(&m->mem, at, len), len, path, &e))      /* an initramfs: newc, whole */
        return err_set(err, "--initrd %.480s", e.msg);
    m->initrd_addr = at;
    m->initrd_size = len;
    if (m->image.boot == BOOT_BZIMAGE && !bz_initrd_fits(m, err))
        return false;
    return dt_set_initrd(m->fdt, at, at + len, err);
}

/* The lowest address at or above `from`, a multiple of `align`, with DTB_MAX_SIZE bytes of RAM
 * from there (in any RAM range: nothing of the image or the initrd lies above `from`). */
static bool dtb_slot(Machine *m, uint64_t from, uint64_t align, uint64_t *at)
{
    bool found = false;
    for (int i = 0; i < m->mem.n; i++) {
        const RamBlock *b = &m->mem.blk[i];
        uint64_t a = align_up(from > b->base ? from : b->base, align);
        if (!b->rom && a - b->base < b->size && b->size - (a - b->base) >= DTB_MAX_SIZE && (!found || a < *at)) {
            *at = a;
            found = true;
        }
    }
    return found;
}

/* arm64: the next 2 MiB boundary in RAM above the initrd, or above where it would start; on a
 * board with too little RAM for that, the next 64 KiB one (Linux needs 8 bytes). */
static bool place_dtb_arm64(Machine *m, uint64_t *addr, Error *err)
{
    RamBlock *b = boot_ram(m);
    uint64_t above = m->initrd_size ? m->initrd_addr + m->initrd_size : initrd_start(b, m->image_end);
    char ram[64];
    if (dtb_slot(m, above, DTB_ALIGN_ARM64, addr) || dtb_slot(m, above, DTB_ALIGN, addr))
        return true;
    return err_set(err, "no room for the device tree (%llu KiB, above 0x%" PRIx64 ": above the image%s) in RAM %s; "
                   "--mem sets the RAM size", DTB_MAX_SIZE >> 10, above, m->initrd_size ? " and the initrd" : "",
                   ram_text(b, ram, sizeof ram));
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* x86_64 and ppc32: the board's address, unless the image or the initrd is there. */
static bool place_dtb(Machine *m, uint64_t *addr, Error *err)
{
    if (m->arch == ARCH_ARM64)
        return place_dtb_arm64(m, addr, err);
    uint64_t top = m->image_end;
    bool clash = overlaps(m->initrd_addr, m->initrd_size, LOW_DTB, DTB_MAX_SIZE);
    for (int i = 0; i < m->image.nsegs; i++)
        clash |= overlaps(m->image.segs[i].paddr, m->image.segs[i].memsz, LOW_DTB, DTB_MAX_SIZE);
    if (m->initrd_size && m->initrd_addr + m->initrd_size > top)
        top = m->initrd_addr + m->initrd_size;
    *addr = LOW_DTB;
    if (!clash && mem_ptr(&m->mem, LOW_DTB, DTB_MAX_SIZE))
        return true;
    if (clash && dtb_slot(m, top, DTB_ALIGN, addr))
        return true;
    return err_set(err, "no room in RAM for the device tree at 0x%" PRIx64 "; --mem sets the RAM size",
                   clash ? align_up(top, DTB_ALIGN) : (uint64_t)LOW_DTB);
}

/* The strict I-cache model reports stale executions as the patch validator's violations. */
static void icache_disasm(void *pc, uint64_t addr, const uint8_t *b, size_t len, char *out, size_t outlen)
{
    patchcheck_disasm(pc, addr, b, len, out, outlen);
}

static void icache_violation(void *pc, int cpu, uint64_t cycle, uint64_t at, const char *what)
{
    patchcheck_violation(pc, cpu, cycle, at, at, "%s", what);
}

static bool mach_check_patching(Machine *m, Error *err)
{
    m->patchcheck = xcalloc(1, sizeof *m->patchcheck);
    if (!patchcheck_init(m->patchcheck, &m->cl, &m->image, err))
        return false;
    if (m->cfg.icache_strict) {
        if (m->arch == ARCH_X86_64)
            return err_set(err, "--icache=strict: x86_64 keeps its instruction cache coherent with stores; "
                                  "the strict mode is for arm64 and ppc32");
        m->icache = xcalloc(1, sizeof *m->icache);
        icache_init(m->icache, &m->cl);
        m->icache->report = (ICacheReporter){ m->patchcheck, icache_disasm, icache_violation };
        m->cl.watch = icache_watch(m->icache);
    }
    return true;
}

/* Is [at, at + size) inside one RAM range, above the PC's first MiB and clear of the tree's
 * reserved ranges? */
static bool bz_window_free(Machine *m, uint64_t at, uint64_t size)
{
    const RamBlock *b = mem_block(&m->mem, at);
    if (!b || b->rom || at < PC_HIGH_MEM || size > b->base + b->size - at)
        return false;
    int n = fdt_num_mem_rsv(m->fdt);
    for (int i = 0; i < n; i++) {
        uint64_t a, sz;
        fdt_get_mem_rsv(m->fdt, i, &a, &sz);
        if (overlaps(at, size, a, sz))
            return false;
    }
    return true;
}

/* An x86 bzImage (boot.rst, pref_address and init_size): its protected-mode kernel at
 * pref_address, with init_size bytes of RAM free from there (the decompressor unpacks the
 * kernel in that window); a relocatable kernel for which that is taken goes to the lowest
 * kernel_alignment multiple above it that is free (a relocatable kernel loaded above its
 * pref_address runs where it was loaded). */
static bool place_bzimage(Machine *m, Error *err)
{
    BzHeader h;
    if (!bzimage_header(m->image.data, m->image.size, m->image.path, &h, err))
        return false;
    uint64_t at = h.pref_address < PC_HIGH_MEM ? PC_HIGH_MEM : h.pref_address, top = 0;
    for (int i = 0; i < m->mem.n; i++)
        if (m->mem.blk[i].base + m->mem.blk[i].size > top)
            top = m->mem.blk[i].base + m->mem.blk[i].size;
    if (h.relocatable && at <= UINT64_MAX - h.kernel_alignment)
        at = align_up(at, h.kernel_alignment);
    while (!bz_window_free(m, at, h.init_size)) {
        if (!h.relocatable || at >= top) {
            char ram[64];
            return err_set(err, "%s: the kernel needs 0x%x bytes (init_size) of free RAM at 0x%" PRIx64
                           " (pref_address%s) and the RAM is %s: too big for memory (--mem sets the RAM size)",
                           m->image.path, h.init_size, h.pref_address, h.relocatable ? " or above" : "",
                           ram_text(boot_ram(m), ram, sizeof ram));
        }
        at += h.kernel_alignment;
    }
    image_place_linux(&m->image, at);
    return true;
}

/* A Linux kernel image goes text_offset above the 2 MiB aligned base of the lowest RAM range
 * (Documentation/arch/arm64/booting.rst: "placed text_offset bytes from a 2MB aligned base
 * address anywhere in usable system RAM"; as close as possible to the start of RAM, which the
 * kernel needs unless its header's flags bit 3 says anywhere), and must fit there whole,
 * image_size bytes (its BSS included). */
static bool place_linux_image(Machine *m, Error *err)
{
    if (m->image.boot == BOOT_BZIMAGE)
        return place_bzimage(m, err);
    const MemDesc *ram = NULL;
    for (int i = 0; i < m->desc.nmem; i++)
        if (!m->desc.mem[i].rom && (!ram || m->desc.mem[i].base < ram->base))
            ram = &m->desc.mem[i];
    const Segment *s = &m->image.segs[0];
    uint64_t base = ram ? align_up(ram->base, A64_IMAGE_BASE_ALIGN) : 0;
    if (!ram || base > ram->base + ram->size || s->memsz > ram->base + ram->size - base - s->paddr)
        return err_set(err, "%s: the kernel needs 0x%" PRIx64 " bytes (image_size) at 0x%" PRIx64 " and the RAM "
                       "ends at 0x%" PRIx64 ": too big for memory (--mem sets the RAM size)", m->image.path, s->memsz,
                       base + s->paddr, ram ? ram->base + ram->size : 0);
    image_place_linux(&m->image, base);
    return true;
}

static bool load_image(Machine *m, Error *err)
{
    for (int i = 0; i < m->image.nsegs; i++) {
        const Segment *s = &m->image.segs[i];
        uint8_t *dst = mem_ptr(&m->mem, s->paddr, s->memsz);
        if (!dst)
            return err_set(err, "%s: segment at 0x%" PRIx64 "+0x%" PRIx64 " is not inside RAM or ROM of the machine "
                           "(--mem sets the RAM size)", m->image.path, s->paddr, s->memsz);
        memcpy(dst, m->image.data + s->offset, s->filesz);
        memset(dst + s->filesz, 0, s->memsz - s->filesz);
    }
    if (!mem_ptr(&m->mem, m->image.entry, 4))
        return err_set(err, "%s: entry point 0x%" PRIx64 " is not in RAM or ROM", m->image.path, m->image.entry);
    for (int i = 0; i < m->image.ncode; i++) {
        codewatch_add_range(&m->cl.cw, m->image.code[i].start, m->image.code[i].end);
        mem_mark_code(&m->mem, m->image.code[i].start, m->image.code[i].end);
    }
    return true;
}

/* GDT and identity page tables for the x86 entry state (docs/machines.md). */
static bool write_x86_boot(Machine *m, Error *err)
{
    uint8_t *p = mem_ptr(&m->mem, X86_BOOT_BASE, 0x7000);
    if (!p)
        return err_set(err, "x86_64 boards need RAM at 0x8000-0xffff for the boot structures");
    memset(p, 0, 0x7000);
    vcpu_x86_boot_gdt(m->cl.x86_entry, p + (X86_GDT - X86_BOOT_BASE));   /* the selectors of the entry state */
    store_le(p + (X86_PML4 - X86_BOOT_BASE), 8, X86_PDPT | 3);
    for (unsigned g = 0; g < 4; g++) {
        store_le(p + (X86_PDPT - X86_BOOT_BASE) + 8 * g, 8, (X86_PD + 0x1000 * g) | 3);
        for (unsigned j = 0; j < 512; j++) {
            uint64_t pa = ((uint64_t)g << 30) | ((uint64_t)j << 21);
            uint64_t pte = pa | 0x83;                       /* present, writable, 2 MiB */
            if (pa >= 0xfe000000ull)
                pte |= 0x18;                                /* PWT|PCD: device space */
            store_le(p + (X86_PD - X86_BOOT_BASE) + 0x1000 * g + 8 * j, 8, pte);
        }
    }
    return true;
}

/* Linux/x86 wakes its APs with INIT and STARTUP IPIs, the CPUs the MADT lists (arch/x86/kernel/
 * smpboot.c, wakeup_secondary_cpu_via_init): it never reads a spin table, so on a bzImage boot
 * every secondary CPU waits for SIPI (docs/machines.md, "x86_64 — pc"). */
static void linux_x86_sipi(MachineDesc *d)
{
    for (int i = 1; i < d->ncpus; i++)
        if (d->cpus[i].enable == ENABLE_SPIN_TABLE)
            d->cpus[i].enable = ENABLE_SIPI;
}

/* Spin tables start "held" (docs/machines.md). */
static bool init_spin_tables(Machine *m, Error *err)
{
    for (int i = 0; i < m->desc.ncpus; i++) {
        const CpuDesc *cd = &m->desc.cpus[i];
        if (cd->enable != ENABLE_SPIN_TABLE)
            continue;
        unsigned len = m->arch == ARCH_PPC32 ? 24 : 8;
        uint8_t *p = mem_ptr(&m->mem, cd->release_addr, len);
        if (!p || (RamBlock *)mem_block(&m->mem, cd->release_addr)->rom)
            return err_set(err, "node %s: property cpu-release-addr: 0x%" PRIx64 " is not in RAM", cd->path,
                             cd->release_addr);
        memset(p, 0, len);
        if (m->arch == ARCH_PPC32) {
            store_be(p, 8, 1);                      /* entry_addr: bit 0 set = held */
            store_be(p + 20, 4, cd->hwid);          /* pir */
        }
    }
    return true;
}

static bool reserve_regions(Machine *m, Error *err)
{
    if (m->arch == ARCH_X86_64) {
        /* the board's /memreserve/ already covers 0x8000-0xffff; a custom tree may not */
        bool have = false;
        int n = fdt_num_mem_rsv(m->fdt);
        for (int i = 0; i < n; i++) {
            uint64_t a, s;
            fdt_get_mem_rsv(m->fdt, i, &a, &s);
            if (a <= X86_BOOT_BASE && a + s >= X86_BOOT_BASE + 0x8000)
                have = true;
        }
        if (!have && !dt_reserve(m->fdt, X86_BOOT_BASE, 0x8000, err))
            return false;
        if ((m->image.boot == BOOT_BZIMAGE || m->image.boot == BOOT_MULTIBOOT) &&
            !dt_reserve(m->fdt, X86_ZERO_PAGE, X86_LINUX_AREA, err))
            return false;
    } else if (m->arch == ARCH_PPC32) {
        for (int i = 0; i < m->desc.ncpus; i++)
            if (m->desc.cpus[i].enable == ENABLE_SPIN_TABLE) {
                if (!dt_reserve(m->fdt, SPIN_PAGE, 0x1000, err))
                    return false;
                break;
            }
    }
    return dt_reserve(m->fdt, m->fdt_addr, DTB_MAX_SIZE, err);
}

/* x86_64: the ACPI tables (sim/acpi.h) of a tree with an ACPI PM node, at the start of the BIOS
 * area, where nothing loaded may be, reserved in the tree the guest gets.  Only the pages they
 * use count: a multiboot ELF's first segment often starts a page below 1 MiB, at 0xff000. */
static bool write_acpi(Machine *m, Error *err)
{
    const char *file = m->cfg.machine_file ? m->cfg.machine_file : "built-in board";
    uint8_t *area = xcalloc(1, ACPI_AREA_SIZE), *ram = mem_ptr(&m->mem, ACPI_AREA_BASE, ACPI_AREA_SIZE);
    AcpiInfo info;
    Error e = { { 0 } };
    bool ok = acpi_build(m->fdt, area, ACPI_AREA_SIZE, &info, &e);
    uint64_t used = ok ? (info.used + GUEST_PAGE - 1) & ~(uint64_t)(GUEST_PAGE - 1) : 0;
    bool clash = overlaps(m->initrd_addr, m->initrd_size, ACPI_AREA_BASE, used) ||
                 overlaps(m->fdt_addr, DTB_MAX_SIZE, ACPI_AREA_BASE, used);
    for (int i = 0; i < m->image.nsegs; i++)
        clash |= overlaps(m->image.segs[i].paddr, m->image.segs[i].memsz, ACPI_AREA_BASE, used);
    if (!ok)
        err_set(err, "%s: %.460s", file, e.msg);
    else if (info.present && (!ram || (RamBlock *)mem_block(&m->mem, ACPI_AREA_BASE)->rom || clash))
        ok = err_set(err, "%s: the ACPI tables (for its node \"%s\") go in RAM at 0x%llx-0x%llx, %s", file,
                     ACPI_PM_COMPATIBLE, ACPI_AREA_BASE, ACPI_AREA_BASE + used - 1,
                     clash ? "where the image, the initrd or the DTB is"
                           : "which the tree's memory does not cover (--mem sets the RAM size)");
    else if (info.present) {
        memcpy(ram, area, used);
        ok = dt_reserve(m->fdt, ACPI_AREA_BASE, used, err);
    }
    free(area);
    return ok;
}

/* The e820 map Linux gets (zero-page.rst, e820_table): the tree's RAM usable, its ROM, the
 * PC's legacy area below 1 MiB as a BIOS reports it, and the tree's /memreserve/ ranges (the
 * boot structures, the DTB, the zero page) reserved. */
static bool x86_e820(Machine *m, E820Entry *out, unsigned *n, Error *err)
{
    int nrsv = fdt_num_mem_rsv(m->fdt);
    E820Entry ram[DESC_MAX_MEM], *resv = xcalloc((size_t)(nrsv > 0 ? nrsv : 0) + DESC_MAX_MEM + 1, sizeof *resv);
    unsigned nram = 0, nresv = 0;
    for (int i = 0; i < m->desc.nmem; i++) {
        const MemDesc *md = &m->desc.mem[i];
        if (md->rom)
            resv[nresv++] = (E820Entry){ md->base, md->size, E820_RESERVED };
        else
            ram[nram++] = (E820Entry){ md->base, md->size, E820_RAM };
    }
    resv[nresv++] = (E820Entry){ PC_LOW_RAM_END, PC_HIGH_MEM - PC_LOW_RAM_END, E820_RESERVED };
    for (int i = 0; i < nrsv; i++, nresv++)
        fdt_get_mem_rsv(m->fdt, i, &resv[nresv].addr, &resv[nresv].size);
    bool ok = e820_build(ram, nram, resv, nresv, out, BZ_E820_MAX, n, err);
    free(resv);
    return ok;
}

/* The kernel command line: /chosen/bootargs (--append, --bootargs or the tree's), its length in *n. */
static const char *chosen_bootargs(Machine *m, size_t *n)
{
    int len = 0, chosen = fdt_path_offset(m->fdt, "/chosen");
    const char *args = chosen >= 0 ? fdt_getprop(m->fdt, chosen, "bootargs", &len) : NULL;
    *n = args && len > 0 ? strnlen(args, (size_t)len) : 0;
    return args ? args : "";
}

/* The command line at X86_CMDLINE, at most the kernel's cmdline_size. */
static bool x86_cmdline(Machine *m, const BzHeader *h, Error *err)
{
    size_t n;
    const char *args = chosen_bootargs(m, &n);
    uint32_t room = h->cmdline_size < X86_CMDLINE_MAX ? h->cmdline_size : X86_CMDLINE_MAX;
    if (n > room)
        return err_set(err, "--append: the command line is %zu characters; %s takes at most %u (cmdline_size, setup "
                       "header offset 0x238%s)", n, m->image.path, room,
                       room < h->cmdline_size ? ", and pmusim's page for it" : "");
    char *dst = (char *)mem_ptr(&m->mem, X86_CMDLINE, X86_CMDLINE_MAX + 1);
    memset(dst, 0, X86_CMDLINE_MAX + 1);
    memcpy(dst, args, n);
    return true;
}

/* Linux/x86's boot (Documentation/arch/x86/boot.rst, "64-bit Boot Protocol"): the zero page at
 * X86_ZERO_PAGE with the command line, the initrd and the e820 map, once the tree's reserved
 * ranges are final. */
static bool x86_linux_boot(Machine *m, Error *err)
{
    BzHeader h;
    E820Entry e820[BZ_E820_MAX];
    unsigned n;
    if (!mem_ptr(&m->mem, X86_ZERO_PAGE, X86_LINUX_AREA))
        return err_set(err, "x86_64 boards need RAM at 0x%llx-0x%llx for Linux's zero page and command line",
                       X86_ZERO_PAGE, X86_ZERO_PAGE + X86_LINUX_AREA - 1);
    if (!bzimage_header(m->image.data, m->image.size, m->image.path, &h, err) || !x86_cmdline(m, &h, err) ||
        !x86_e820(m, e820, &n, err))
        return false;
    BzBoot b = { m->image.segs[0].paddr, X86_CMDLINE, m->initrd_addr, m->initrd_size, e820, n };
    bzimage_zero_page(mem_ptr(&m->mem, X86_ZERO_PAGE, BZ_ZERO_PAGE_SIZE), m->image.data, &h, &b);
    return true;
}

/* Multiboot's command line, as QEMU's -kernel gives it (hw/i386/multiboot.c): the kernel's
 * file name, a space, then /chosen/bootargs (--append). */
static bool mb_cmdline(Machine *m, Error *err)
{
    size_t n, k = strlen(m->image.path);
    const char *args = chosen_bootargs(m, &n);
    if (k + 1 + n > X86_CMDLINE_MAX)
        return err_set(err, "--append: the multiboot command line (the kernel's name, a space, the arguments) is %zu "
                       "characters; pmusim's page for it holds %u", k + 1 + n, X86_CMDLINE_MAX);
    char *dst = (char *)mem_ptr(&m->mem, X86_CMDLINE, X86_CMDLINE_MAX + 1);
    memset(dst, 0, X86_CMDLINE_MAX + 1);
    memcpy(dst, m->image.path, k);
    dst[k] = ' ';
    memcpy(dst + k + 1, args, n);
    return true;
}

/* --initrd as multiboot's one module (QEMU: -initrd's files are the modules), its string the
 * file's name (cut to its room). */
static uint32_t mb_module(Machine *m)
{
    if (!m->initrd_size)
        return 0;
    uint8_t *mod = mem_ptr(&m->mem, MB_MODS, MB_MODULE_SIZE);
    store_le(mod, 4, m->initrd_addr);
    store_le(mod + 4, 4, m->initrd_addr + m->initrd_size);
    store_le(mod + 8, 4, MB_MOD_STRING);
    const char *name = strrchr(m->cfg.initrd_file, '/') ? strrchr(m->cfg.initrd_file, '/') + 1 : m->cfg.initrd_file;
    snprintf((char *)mem_ptr(&m->mem, MB_MOD_STRING, MB_MOD_STRING_MAX + 1), MB_MOD_STRING_MAX + 1, "%s", name);
    return 1;
}

/* Multiboot (0.6.96 §3.3): the information structure at MB_INFO, once the tree's reserved
 * ranges are final; EAX and EBX are set at the entry (mach_boot). */
static bool x86_multiboot_boot(Machine *m, Error *err)
{
    E820Entry e820[BZ_E820_MAX];
    unsigned n;
    if (!mem_ptr(&m->mem, MB_INFO, X86_LINUX_AREA))
        return err_set(err, "x86_64 boards need RAM at 0x%llx-0x%llx for the multiboot information",
                       MB_INFO, MB_INFO + X86_LINUX_AREA - 1);
    if (m->initrd_addr + m->initrd_size > UINT32_MAX)
        return err_set(err, "--initrd %s: at 0x%" PRIx64 ", above the 4 GiB a multiboot module's 32-bit address "
                       "reaches", m->cfg.initrd_file, m->initrd_addr);
    if (!mb_cmdline(m, err) || !x86_e820(m, e820, &n, err))
        return false;
    memset(mem_ptr(&m->mem, MB_INFO, X86_CMDLINE - MB_INFO), 0, X86_CMDLINE - MB_INFO);
    multiboot_mmap(mem_ptr(&m->mem, MB_MMAP, MB_MMAP_ENTRY_SIZE * n), e820, n);
    memcpy(mem_ptr(&m->mem, MB_LOADER_NAME, sizeof MB_LOADER_NAME_TEXT), MB_LOADER_NAME_TEXT, sizeof MB_LOADER_NAME_TEXT);
    MbBoot b = { e820, n, MB_MMAP, X86_CMDLINE, MB_MODS, MB_LOADER_NAME, mb_module(m) };
    multiboot_info(mem_ptr(&m->mem, MB_INFO, MB_INFO_SIZE), &b);
    return true;
}

/* ------------------------------------------------------------------ what the CPUs see */

static void cl_exit(void *m, Cpu *cpu, uint64_t pc, int status, const char *reason)
{
    mach_exit_at(m, cpu, pc, status, reason);
}

static void cl_putc(void *m, uint8_t c)
{
    console_putc(m, c);
}

static bool cl_map_devices(void *m, Cpu *cpu, Error *err)
{
    return mach_map_devices(m, cpu, err);
}

static uint64_t cl_io_read(void *m, Cpu *cpu, uint64_t port, unsigned size)
{
    return mach_io_read(m, cpu, port, size);
}

static void cl_io_write(void *m, Cpu *cpu, uint64_t port, unsigned size, uint64_t val)
{
    mach_io_write(m, cpu, port, size, val);
}

static void cl_profile_block(void *m, Cpu *cpu, const BlockEntry *blk, uint32_t from, uint32_t to, bool window)
{
    Machine *mm = m;
    if (mm->profile)
        profile_block(mm->profile, blk, from, to, window);
}

static void cl_branch_retired(void *m, Cpu *cpu, uint64_t pc, bool miss)
{
    profile_branch(((Machine *)m)->profile, pc, miss);
}

static void cl_profile_sample(void *m, Cpu *cpu, uint64_t pc, bool user, const char *counter)
{
    mach_profile_sample(m, cpu, pc, user, counter);
}

/* The x86 local APIC timer's bus clock: the clock-frequency of an intel,ce4100-lapic node. */
static uint64_t lapic_hz(const MachineDesc *d)
{
    uint64_t hz = 0;
    for (int i = 0; i < d->ndevs; i++)
        if (!strcmp(d->devs[i].compatible, "intel,ce4100-lapic"))
            hz = d->devs[i].clock_hz;
    return hz;
}

static const CpuOps *cpu_backend(Arch arch)
{
    return arch == ARCH_X86_64 ? &vcpu_x86_64_ops : arch == ARCH_ARM64 ? &vcpu_arm64_ops : &vcpu_ppc32_ops;
}

/* What the CPUs share and see of the machine (cpu/cluster.h); their creation fills cpus[]. */
static void cluster_wire(Machine *m)
{
    Cluster *cl = &m->cl;
    cl->arch = m->arch;
    cl->mem = &m->mem;
    cl->trace = &m->trace;
    cl->clock = &m->clock;
    cl->max_insns = m->cfg.max_insns;
    cl->max_cycles = m->cfg.max_cycles;
    cl->icount_check = m->cfg.icount_check;
    cl->semihosting = m->cfg.semihosting;
    cl->psci = m->desc.psci;
    cl->timer_hz = m->desc.timer_hz;
    cl->timer_intid[0] = m->desc.timer_intid[0];
    cl->timer_intid[1] = m->desc.timer_intid[1];
    cl->pmu_intid = m->desc.pmu_intid;
    cl->lapic_hz = lapic_hz(&m->desc);
    cl->x86_entry = m->image.boot == BOOT_BZIMAGE ? X86_ENTRY_LINUX64
                  : m->image.boot == BOOT_MULTIBOOT ? X86_ENTRY_MULTIBOOT : X86_ENTRY_LONG;
    cl->host = (ClusterHost){
        .opaque = m, .exit = cl_exit, .console_out = cl_putc, .map_devices = cl_map_devices,
        .io_read = cl_io_read, .io_write = cl_io_write, .profile_retired = cl_profile_block,
        .sample = cl_profile_sample,
    };
}

/* ------------------------------------------------------------------ what devices see */

static void host_putc(void *m, uint8_t c)
{
    console_putc(m, c);
}

static void host_exit(void *m, Cpu *cpu, int status, const char *reason)
{
    mach_exit(m, cpu, status, reason);
}

static int host_cpu_index(void *m, Cpu *cpu)
{
    return cpu->index;
}

static Cpu *host_cpu(void *m, int n)
{
    return ((Machine *)m)->cl.cpus[n];
}

static uint64_t host_cpu_cycles(void *m, int n)
{
    return ((Machine *)m)->cl.cpus[n]->cycles;
}

static EventQueue *host_cpu_events(void *m, int n)
{
    return &((Machine *)m)->cl.cpus[n]->events;
}

static void host_cpu_schedule(void *m, int n, Event *ev, uint64_t cycle)
{
    vcpu_schedule(((Machine *)m)->cl.cpus[n], ev, cycle);
}

/* The accessing instruction's own time: the CPU's clock has counted its whole block. */
static uint64_t host_now(void *m, Cpu *cpu)
{
    uint64_t pc = vcpu_access_current(cpu);
    return pc == UINT64_MAX ? cpu->cycles : vcpu_cycles_at(cpu, pc);
}

/* The `interrupts` specifier of an SPI on a GIC (bindings/interrupt-controller/arm,gic-v3.yaml,
 * arm,gic.yaml): <0 N flags> is SPI N, INTID 32 + N. */
enum { DT_GIC_CELLS = 3, DT_GIC_SPI = 0 };

/* Where every device interrupt is connected: the one place to change when a controller takes
 * them.  Entry n of the node's `interrupts` (dd->irqs[n], dd->irq_cells cells, parent
 * dd->irq_parent) names the input: an SPI of the GIC goes to its SPI input (a level); anything
 * else (no GIC, another parent, a PPI, an SPI beyond the GIC's) stays unconnected, and raising
 * it does nothing.  The devices ask at creation, after intc_create made the GIC. */
IrqLine mach_device_irq(Machine *m, const DevDesc *dd, unsigned n)
{
    IrqLine none = irq_line(NULL, NULL, 0);
    const Gic *g = m->cl.gic;
    if (m->arch == ARCH_X86_64)
        return intc_pc_line(&m->pcirq, &m->desc, dd, n);
    if (!g || n >= (unsigned)dd->nirqs || dd->irq_cells != DT_GIC_CELLS || strcmp(dd->irq_parent, g->node))
        return none;
    const DevIrq *q = &dd->irqs[n];
    if (q->cell[0] != DT_GIC_SPI || q->cell[1] >= GIC_NR_SPIS)
        return none;
    return gic_spi_line(m->cl.gic, GIC_PRIV + q->cell[1]);
}

static IrqLine host_irq(void *m, const DevDesc *dd, unsigned n)
{
    return mach_device_irq(m, dd, n);
}

/* The console's UART takes the input: the node /chosen stdout-path names, or without one the
 * first UART to ask (in tree order). */
static ConsoleInput *host_console_input(void *opaque, const DevDesc *dd)
{
    Machine *m = opaque;
    if (!m->conin.in.data || m->conin_owner[0])
        return NULL;
    if (m->desc.stdout_path[0] && strcmp(m->desc.stdout_path, dd->path))
        return NULL;
    snprintf(m->conin_owner, sizeof m->conin_owner, "%s", dd->path);
    return &m->conin.in;
}

static void host_console_taken(void *opaque, uint64_t pos, uint8_t c, int cpu, uint64_t when)
{
    conin_taken(&((Machine *)opaque)->conin, c, cpu, when);
}

/* A replay that cannot go on as logged: the run is not the recorded one any more (another
 * pmusim, a log edited to another valid one); it ends there, as a bad input does. */
static void host_console_refused(void *opaque, uint64_t pos, const char *why)
{
    Machine *m = opaque;
    const ConIn *ci = &m->conin;
    uint64_t i = pos - ci->in.first;
    progress_clear(&m->progress);
    fprintf(stderr, "pmusim: --replay %s: offset %" PRIu64 ": input byte %" PRIu64 " cannot arrive at cycle %" PRIu64
            " of cpu%u as logged: %s; the run has left the recorded one and ends here\n", ci->replay_path,
            conin_log_offset(ci, pos), pos, ci->in.at[i], ci->in.cpu[i], why);
    mach_diag(m, NULL, 0, "replay-diverged", "input byte %" PRIu64 " at cycle %" PRIu64 " of cpu%u: %s", pos,
              ci->in.at[i], ci->in.cpu[i], why);
    mach_exit(m, NULL, EXIT_USAGE, "replay-diverged");
}

static void host_cpu_schedule_last(void *m, int n, Event *ev, uint64_t cycle)
{
    vcpu_schedule_last(((Machine *)m)->cl.cpus[n], ev, cycle);
}

/* A device's diagnostic names the instruction making the access (else the last retired). */
static void host_diag(void *opaque, Cpu *cpu, const char *what, const char *fmt, ...)
{
    Machine *m = opaque;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t pc = cpu ? vcpu_access_current(cpu) : UINT64_MAX;
    if (cpu && pc == UINT64_MAX)
        pc = vcpu_last_retired_pc(cpu);
    mach_diag(m, cpu, pc, what, "%s", msg);
}

static void dev_host_init(Machine *m)
{
    m->dev_host = (DeviceHost){
        .opaque = m, .arch = m->arch, .trace = &m->trace, .cpu_hz = m->clock.freq_hz, .ncpus = m->desc.ncpus,
        .rtc_epoch = m->cfg.rtc_base_set ? m->cfg.rtc_base : DEV_RTC_DEFAULT_EPOCH,
        .console_out = host_putc, .exit = host_exit, .cpu_index = host_cpu_index, .cpu = host_cpu,
        .cpu_cycles = host_cpu_cycles, .cpu_events = host_cpu_events, .cpu_schedule = host_cpu_schedule,
        .now = host_now, .irq = host_irq, .console_input = host_console_input, .diag = host_diag,
        .console_taken = host_console_taken, .console_refused = host_console_refused,
        .cpu_schedule_last = host_cpu_schedule_last,
    };
}

/* The device of node dd, or a further window of the device its first reg window made
 * (sim/dev/device.h, device_window). */
static Device *make_device(Machine *m, const DevDesc *dd, Device *const *made, Error *err)
{
    int first = -1;
    unsigned nth = 0;                   /* dd is window nth of its node */
    for (int k = 0; k < (int)(dd - m->desc.devs); k++) {
        if (strcmp(m->desc.devs[k].path, dd->path))
            continue;
        if (first < 0)
            first = k;
        nth++;
    }
    if (first >= 0 && made[first])
        return device_window(made[first], nth, dd);
    /* dt_parse only lets device models through; never call NULL if that changes */
    DeviceCreateFn create = device_find(dd->compatible);
    const char *file = m->cfg.machine_file ? m->cfg.machine_file : "built-in board";
    if (!create)
        return err_set(err, "%s: node %s: \"%s\" has no device model", file, dd->path, dd->compatible), NULL;
    Device *d = create(&m->dev_host, dd, err);
    if (!d) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        err_set(err, "%s: %.400s", file, tmp);
    }
    return d;
}

static bool make_devices(Machine *m, Error *err)
{
    Device *made[DESC_MAX_DEVS] = { 0 };
    for (int i = 0; i < m->desc.ndevs; i++) {
        const DevDesc *dd = &m->desc.devs[i];
        if (dd->intc)
            continue;                   /* made by intc_create */
        if (m->ndevs == MAX_DEVICES)
            return err_set(err, "too many devices");
        Device *d = make_device(m, dd, made, err);
        if (!d)
            return false;
        made[i] = d;
        m->devs[m->ndevs++] = d;
    }
    return true;
}

/* --console-in / --console-input, or --replay (sim/conin.h). */
static bool open_console_input(Machine *m, Error *err)
{
    const MachineConfig *cfg = &m->cfg;
    if (cfg->replay_file)
        return conin_replay(&m->conin, cfg->replay_file, m->arch, mach_fingerprint(m), m->desc.ncpus, err);
    if (!cfg->console_input_file)
        return true;
    const char *opt = cfg->console_input_opt ? cfg->console_input_opt : "--console-input";
    return conin_read(&m->conin, opt, cfg->console_input_file, cfg->console_input_live, err);
}

uint64_t mach_fingerprint(const Machine *m)
{
    uint64_t h = FNV1A64_BASIS;
    h = fnv1a(h, m->fdt, m->fdt_size);
    h = fnv1a(h, m->image.data, m->image.size);
    h = fnv1a(h, &m->clock.quantum, sizeof m->clock.quantum);
    if (m->cfg.rtc_base_set)                /* only then: the logs of runs without it stay valid */
        h = fnv1a(h, &m->cfg.rtc_base, sizeof m->cfg.rtc_base);
    return h;
}

bool mach_create(Machine *m, const MachineConfig *cfg, Error *err)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->exit_cpu = -1;
    m->pause_round = UINT64_MAX;
    trace_init(&m->trace);
    trace_set_symbolizer(&m->trace, describe_for_trace, m);
    codewatch_init(&m->cl.cw);
    m->console.out.fd = -1;
    conin_init(&m->conin);

    if (cfg->kernel) {
        bool ok = cfg->raw ? image_load_raw(&m->image, cfg->kernel, cfg->arch, cfg->load_addr,
                                            cfg->entry_set ? cfg->entry : cfg->load_addr, err)
                           : image_load_kernel(&m->image, cfg->kernel, err);
        if (!ok)
            return false;
        if (cfg->arch != ARCH_NONE && cfg->arch != m->image.arch)
            return err_set(err, "%s: a %s image, but --arch %s", cfg->kernel, isa_name(m->image.arch),
                             isa_name(cfg->arch));
        if (cfg->entry_set)
            m->image.entry = cfg->entry;
        if (cfg->symbols_file && !image_load_symbols(&m->image, cfg->symbols_file, err))
            return false;
        m->arch = m->image.arch;
    } else {
        m->arch = cfg->arch;
    }
    if (m->arch == ARCH_NONE)
        return err_set(err, "no architecture: give a kernel ELF or --arch");

    FdtOptions fo = { cfg->machine_file, cfg->ncpus, cfg->cpu_model, cfg->bootargs, cfg->mem_size, cfg->gic_version };
    m->fdt = dt_build(m->arch, &fo, err);
    if (!m->fdt)
        return false;
    if (!dt_parse(m->fdt, m->arch, &m->desc, err)) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        return err_set(err, "%s%s: %.480s", cfg->machine_file ? cfg->machine_file : "built-in board",
                       cfg->mem_size ? " with --mem" : "", tmp);
    }
    if (m->image.boot == BOOT_BZIMAGE)
        linux_x86_sipi(&m->desc);
    if (!inject_check(cfg->inject, cfg->ninject, m->desc.ncpus, err))    /* the tree's CPUs, without --cpus */
        return false;
    for (int i = 0; i < m->desc.nmem; i++) {
        const MemDesc *md = &m->desc.mem[i];
        if (!mem_add(&m->mem, md->base, md->size, md->rom, err)) {
            char tmp[sizeof err->msg];
            memcpy(tmp, err->msg, sizeof tmp);
            return err_set(err, "%s: node %s: %.300s", cfg->machine_file ? cfg->machine_file : "built-in board",
                           md->path, tmp);
        }
    }
    clk_init(&m->clock, cfg->quantum ? cfg->quantum : DEFAULT_QUANTUM, m->desc.cpus[0].clock_hz);
    cluster_wire(m);

    if (m->image.linux_image && !place_linux_image(m, err))
        return false;
    m->linuxwatch.on = m->image.linux_image;
    if (cfg->kernel && !load_image(m, err))
        return false;
    if (cfg->guest_trace_file && !guesttrace_check(&m->image, err))
        return false;
    if (cfg->check_patching && !mach_check_patching(m, err))
        return false;
    if (m->arch == ARCH_X86_64 && !write_x86_boot(m, err))
        return false;
    if (!init_spin_tables(m, err))
        return false;
    m->image_end = image_ram_end(m);
    if (cfg->initrd_file && !load_initrd(m, err))
        return false;
    if (!place_dtb(m, &m->fdt_addr, err) || !reserve_regions(m, err))
        return false;
    if (m->arch == ARCH_X86_64 && !write_acpi(m, err))
        return false;
    if (m->image.boot == BOOT_BZIMAGE && !x86_linux_boot(m, err))
        return false;
    if (m->image.boot == BOOT_MULTIBOOT && !x86_multiboot_boot(m, err))
        return false;
    m->fdt_size = dt_finish(m->fdt);
    if (m->fdt_size > DTB_MAX_SIZE)
        return err_set(err, "%s: the device tree the guest gets (with --cpus, --bootargs and the reserved regions) is "
                       "%" PRIu64 " bytes; at most %llu fit the room reserved for it", m->cfg.machine_file ? m->cfg.machine_file : "the built-in board",
                       m->fdt_size, DTB_MAX_SIZE);
    memcpy(mem_ptr(&m->mem, m->fdt_addr, m->fdt_size), m->fdt, m->fdt_size);

    if (!open_console_input(m, err))
        return false;
    dev_host_init(m);
    IntcHost ih = { &m->dev_host, &m->trace, m->devs, &m->ndevs, MAX_DEVICES };
    if (!intc_create(&m->desc, &ih, &m->cl.gic, err)) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        return err_set(err, "%s: %.400s", cfg->machine_file ? cfg->machine_file : "built-in board", tmp);
    }
    if (m->arch == ARCH_X86_64 && !intc_pc_check(&m->desc, err)) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        return err_set(err, "%s: %.400s", cfg->machine_file ? cfg->machine_file : "built-in board", tmp);
    }
    if (!make_devices(m, err))
        return false;
    if (m->conin.in.data && !m->conin_owner[0])
        return err_set(err, "%s %s: the machine has no console UART to receive it (%s%s)", m->conin.opt,
                       m->conin.in.path, m->desc.stdout_path[0] ? "/chosen stdout-path names " : "no UART model",
                       m->desc.stdout_path[0] ? m->desc.stdout_path : " in the tree");
    if (!conin_check_uart(&m->conin, m->conin_owner, err))
        return false;

    if (cfg->samples_file || cfg->stat_profile) {
        m->profile = xcalloc(1, sizeof *m->profile);
        profile_init(m->profile);
    }
    if (cfg->stat_profile && cfg->stat_branches)     /* pmusim stat: branches by symbol */
        m->cl.host.branch_retired = cl_branch_retired;
    m->cl.ncpus = m->desc.ncpus;
    for (int i = 0; i < m->cl.ncpus; i++) {
        const CpuDesc *cd = &m->desc.cpus[i];
        m->cl.cpus[i] = vcpu_create(&m->cl, i, cd, cpu_backend(m->arch), err);
        if (!m->cl.cpus[i]) {
            m->cl.ncpus = i;
            return false;
        }
        m->cl.cpus[i]->prof.on = m->profile != NULL;
        for (int k = 0; k < cfg->ninject; k++)
            if (cfg->inject[k].cpu == i)
                vcpu_stall_add(m->cl.cpus[i], cfg->inject[k].cycle, cfg->inject[k].len);
        if (cfg->stat)
            vcpu_priv_start(m->cl.cpus[i], cfg->stat_branches, cfg->stat_mem);
    }
    if (m->arch == ARCH_X86_64)
        intc_pc_connect(&m->pcirq, &m->cl, m->devs, m->ndevs);     /* the devices' lines to the CPUs */
    return true;
}

/* --trace-dat: a second sink of the same events (tracer/tracedat.h), under the same limit. */
static bool open_trace_dat(Machine *m, Error *err)
{
    char uname[96];
    snprintf(uname, sizeof uname, "pmusim %s %s, %d CPUs at %" PRIu64 " Hz", PMUSIM_VERSION, isa_name(m->arch),
             m->cl.ncpus, m->clock.freq_hz);
    TraceDatConfig dc = { m->cfg.trace_dat_file, m->cfg.trace_limit, m->cl.ncpus, m->clock.freq_hz, &m->image, uname };
    m->tracedat = tracedat_open(&dc, err);
    if (!m->tracedat)
        return false;
    trace_add_sink(&m->trace, m->tracedat);
    trace_set_full_handler(&m->trace, trace_full, m);
    return true;
}

bool mach_open_outputs(Machine *m, Error *err)
{
    const MachineConfig *cfg = &m->cfg;
    if (cfg->trace_file) {
        TraceSink *s = trace_text_sink_open(cfg->trace_file, cfg->trace_limit, err);
        if (!s)
            return false;
        trace_add_sink(&m->trace, s);
        trace_set_full_handler(&m->trace, trace_full, m);
    }
    if (cfg->trace_dat_file && !open_trace_dat(m, err))
        return false;
    if (cfg->trace_json_file) {
        m->trace_json = tracejson_open(cfg->trace_json_file, &m->cl, m->desc.model, cfg->trace_limit, err);
        if (!m->trace_json)
            return false;
        trace_add_sink(&m->trace, m->trace_json);
        trace_set_full_handler(&m->trace, trace_full, m);
    }
    if (!outfile_open(&m->console.out, "--console", cfg->console_file, err))
        return false;
    m->console.line_flush = !cfg->console_file && isatty(STDOUT_FILENO);
    /* a replay goes on from the input position (a checkpoint's), a record starts a log there */
    const UartRx *rx = m->conin.in.rx;
    if (rx && !conin_check_start(&m->conin, rx->pos, m->conin.digest, err))
        return false;
    if (cfg->record_file && !conin_record(&m->conin, cfg->record_file, m->arch, mach_fingerprint(m), rx ? rx->pos : 0,
                                          m->conin_owner, err))
        return false;
    return true;
}

void mach_interrupt(Machine *m, int sig)
{
    m->cl.interrupted = sig;
    if (!m->running)
        return;
    for (int i = 0; i < m->cl.ncpus; i++)
        if (m->cl.cpus[i])
            m->cl.cpus[i]->lim.fast = 0;  /* the next block takes the slow path, which sees the flag */
}

void mach_rescue_outputs(Machine *m)
{
    trace_flush_all();
    outfile_write(&m->console.out, m->console.buf, m->console.len);
    trace_rescue_all();
    if (m->tracedat)
        tracedat_abandon(m->tracedat);
    if (m->trace_json)
        tracejson_rescue(m->trace_json);
    outfile_rescue(&m->console.out);
    conin_rescue(&m->conin);
}

/* A sample with the guest's call chain, walked now: the PMU reports the sample before the
 * exception entry that delivers it changes a register (docs/profiling.md, "Call chains"). */
void mach_profile_sample(Machine *m, Cpu *c, uint64_t pc, bool user, const char *counter)
{
    if (!m->profile)
        return;
    uint64_t chain[CALLCHAIN_DEPTH];
    size_t n = callchain_of_cpu(c, pc, &m->image, chain, CALLCHAIN_DEPTH);
    profile_sample(m->profile, c->index, c->cycles, pc, user, counter, chain, n);
}

static void output_lost(Machine *m, const Error *err)
{
    progress_clear(&m->progress);
    fprintf(stderr, "pmusim: %s\n", err->msg);
    m->output_lost = true;
}

/* --samples: the blocks the CPUs are in, then the file. */
static bool fill_samples(FILE *f, void *arg, Error *err)
{
    Machine *m = arg;
    profile_print(m->profile, isa_name(m->arch), m->clock.freq_hz, f);
    return true;
}

static bool fill_guest_trace(FILE *f, void *arg, Error *err)
{
    Machine *m = arg;
    return guesttrace_print(&m->image, &m->mem, f, err);
}

static void write_samples(Machine *m)
{
    if (!m->cfg.samples_file)
        return;
    for (int i = 0; i < m->cl.ncpus; i++) {
        vcpu_profile_flush(m->cl.cpus[i]);
        vcpu_mem_flush(m->cl.cpus[i]);  /* its loads and stores too: pmusim stat reads them after */
        m->cl.cpus[i]->blk_counted = 0;
    }
    Error err = { { 0 } };
    if (!outfile_write_stdio("--samples", m->cfg.samples_file, fill_samples, m, &err))
        output_lost(m, &err);
}

void mach_boot(Machine *m)
{
    Cpu *boot = m->cl.cpus[0];
    if (m->image.boot == BOOT_BZIMAGE) {        /* RSI = the zero page (boot.rst, 64-bit protocol) */
        vcpu_start(boot, m->image.entry, 0, X86_ZERO_PAGE, 0, "boot");
        return;
    }
    if (m->image.boot == BOOT_MULTIBOOT) {      /* EAX = the magic, EBX = the information */
        vcpu_start(boot, m->image.entry, MB_BOOT_MAGIC, MB_INFO, 0, "boot");
        return;
    }
    /* second argument register: x86 RSI = APIC ID; ppc32 r6 = the ePAPR magic (docs/guest-abi.md) */
    vcpu_start(boot, m->image.entry, m->fdt_addr, m->arch == ARCH_PPC32 ? EPAPR_MAGIC : boot->hwid, 0, "boot");
}

void mach_destroy(Machine *m)
{
    for (int i = 0; i < m->cl.ncpus; i++)
        vcpu_destroy(m->cl.cpus[i]);
    for (int i = 0; i < m->ndevs; i++) {
        if (m->devs[i]->ops->destroy)
            m->devs[i]->ops->destroy(m->devs[i]);
        else
            free(m->devs[i]);
    }
    free(m->cl.gic);
    for (int i = 0; i < m->nmmio_ctx; i++)
        free(m->mmio_ctx[i]);
    free(m->mmio_ctx);
    outfile_discard(&m->console.out);   /* mach_run committed it; on an error path no run began */
    trace_close(&m->trace, &(Error){ { 0 } });
    m->trace_json = NULL;
    if (m->profile) {
        profile_destroy(m->profile);
        free(m->profile);
    }
    if (m->patchcheck) {
        patchcheck_destroy(m->patchcheck);
        free(m->patchcheck);
    }
    if (m->icache) {
        icache_destroy(m->icache);
        free(m->icache);
    }
    clk_destroy(&m->clock);
    codewatch_destroy(&m->cl.cw);
    mem_destroy(&m->mem);
    image_free(&m->image);
    free(m->fdt);
    conin_free(&m->conin);
    memset(m, 0, sizeof *m);
}

bool mach_dump_dtb(Machine *m, Error *err)
{
    char *text;
    if (!dt_to_dts(m->fdt, &text, err))
        return false;
    fputs(text, stdout);
    free(text);
    return true;
}

/* ------------------------------------------------------------------ running */

/* A held CPU starts once released: by a PSCI CPU_ON accepted earlier, or when its spin-table
 * word says so (docs/machines.md).  Checked at the start of its quantum: a deterministic point. */
static void poll_power_on(Machine *m, Cpu *c)
{
    const CpuDesc *cd = &m->desc.cpus[c->index];
    if (c->start.pending) {
        c->start.pending = false;
        vcpu_start(c, c->start.entry, c->start.arg, 0, c->start.at, cd->enable == ENABLE_SIPI ? "sipi" : "psci-cpu-on");
        return;
    }
    if (cd->enable != ENABLE_SPIN_TABLE || c->state != CPU_OFF || c->insns)
        return;
    if (m->arch == ARCH_PPC32) {
        const uint8_t *p = mem_ptr(&m->mem, cd->release_addr, 24);
        uint64_t entry = load_be(p, 8);
        if (entry & 1)
            return;
        uint64_t r3 = load_be(p + 8, 8), pir = load_be(p + 20, 4);
        c->hwid = pir;
        vcpu_start(c, (uint32_t)entry, r3, 0, m->clock.now, "spin-table");
        return;
    }
    uint64_t entry = load_le(mem_ptr(&m->mem, cd->release_addr, 8), 8);
    if (entry)
        vcpu_start(c, entry, m->fdt_addr, c->hwid, m->clock.now, "spin-table");
}

static bool mach_hung(Machine *m)
{
    if (m->clock.global.n || conin_open(&m->conin, m->clock.now))
        return false;
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        if (vcpu_stalled_forever(c) && !vcpu_stall_alive(c))
            continue;
        if (vcpu_stalled_forever(c))
            return false;
        /* instruction events cannot fire while a CPU sleeps: only its cycle events can wake it */
        if (c->state == CPU_RUNNING || c->start.pending || evq_has_wakers(&c->events) || c->pins.nmi ||
            c->pins.irq)
            return false;
    }
    return true;
}

/* --trace-dat: the guest's own ftrace rings, if it keeps any, go into the file too (a guest that
 * never set them up has none: said, not an error). */
static void trace_dat_guest(Machine *m)
{
    if (!guesttrace_present(&m->image))
        return;
    GuestTrace gt;
    Error err = { { 0 } };
    if (guesttrace_read(&m->image, &m->mem, &gt, &err))
        tracedat_add_guest(m->tracedat, &gt);
    else
        fprintf(stderr, "pmusim: --trace-dat %s: without the guest's trace rings: %s\n", m->cfg.trace_dat_file, err.msg);
    guesttrace_free(&gt);
}

/* The end of a run: every output written and put in place, or its loss reported. */
static void finish_outputs(Machine *m)
{
    Error err = { { 0 } };
    console_flush(m);
    if (!outfile_commit(&m->console.out, &err))
        output_lost(m, &err);
    if (m->tracedat)
        trace_dat_guest(m);
    m->tracedat = NULL;
    if (!trace_close(&m->trace, &err))
        output_lost(m, &err);
    m->trace_json = NULL;               /* closed with the trace */
    if (!conin_finish(&m->conin, &err))
        output_lost(m, &err);
    write_samples(m);
    if (m->cfg.guest_trace_file &&
        !outfile_write_stdio("--guest-trace", m->cfg.guest_trace_file, fill_guest_trace, m, &err))
        output_lost(m, &err);
    if (m->patchcheck) {
        patchcheck_finish(m->patchcheck);
        fflush(stdout);
        patchcheck_report(m->patchcheck, stderr);
        if (m->icache)
            icache_report(m->icache, stderr);
    }
}

static uint64_t total_insns(const Machine *m)
{
    uint64_t n = 0;
    for (int i = 0; i < m->cl.ncpus; i++)
        n += m->cl.cpus[i]->insns;
    return n;
}

/* A live input: what standard input has now goes to the receiver (between rounds, so that
 * no block pays for it). */
static void poll_console_input(Machine *m)
{
    if (conin_poll(&m->conin, m->clock.now) && m->conin.in.rx)
        uartrx_more(m->conin.in.rx);
}

/* The end of a round: machine-wide events, the limits, a hung machine, --save-at, then the
 * round hook (time travel's snapshots).  False: the run ends here. */
static bool round_finish(Machine *m, uint64_t end)
{
    if (m->cl.stopping)
        return false;
    if (m->cl.interrupted) {       /* the CPUs stopped early: the round did not complete */
        mach_exit(m, NULL, 128 + m->cl.interrupted, "interrupted");
        return false;
    }
    evq_run_due(&m->clock.global, end);
    m->clock.now = end;
    poll_console_input(m);
    if (progress_due(&m->progress))
        progress_show(&m->progress, m->clock.now, total_insns(m));
    if (m->trace_json && m->clock.now > m->mute_now)
        tracejson_tick(m->trace_json);
    if (m->cfg.max_cycles && m->clock.now >= m->cfg.max_cycles) {
        mach_exit(m, NULL, EXIT_LIMIT, "max-cycles");
        return false;
    }
    if (mach_hung(m)) {
        mach_exit(m, NULL, EXIT_HUNG, "all-cpus-asleep");
        return false;
    }
    if (m->cl.dbg.poll)             /* a debugger: its client's Ctrl-C, a new client */
        m->cl.dbg.poll(m->cl.dbg.opaque);
    if (m->cl.stopping)
        return false;
    if (m->cfg.save_file && m->cfg.save && !m->saved && m->clock.now >= m->cfg.save_at) {
        Error err = { { 0 } };
        m->saved = true;
        if (!m->cfg.save(m, m->cfg.save_file, &err)) {
            output_lost(m, &err);
            mach_exit(m, NULL, EXIT_OUTPUT, "checkpoint-failed");
            return false;
        }
    }
    kaslr_follow(m, true);
    if (m->hooks.round_end)
        m->hooks.round_end(m->hooks.opaque, m);
    return !m->cl.stopping;
}

/* A new round: its end (machine time plus the quantum, --max-cycles at most). */
static void round_open(Machine *m)
{
    uint64_t end = m->clock.now + m->clock.quantum;
    if (m->cfg.max_cycles && end > m->cfg.max_cycles)
        end = m->cfg.max_cycles;
    m->round = (RoundProgress){ .open = true, .end = end, .next = 0 };
}

/* The CPUs of the open round from round.next on; false if one paused (it stays next). */
static bool round_cpus(Machine *m)
{
    RoundProgress *r = &m->round;
    for (; r->next < m->cl.ncpus && !m->cl.stopping && !m->cl.interrupted; r->next++) {
        Cpu *c = m->cl.cpus[r->next];
        if (!c->pause.paused)       /* a paused CPU was polled when its quantum began */
            poll_power_on(m, c);
        vcpu_run(c, r->end);
        if (c->pause.paused)
            return false;
    }
    return true;
}

MachAdvance mach_advance(Machine *m)
{
    MachAdvance why = MACH_ENDED;
    m->running = 1;
    while (!m->cl.stopping) {
        if (!m->round.open) {
            if (m->clock.now >= m->pause_round) {
                m->pause_round = UINT64_MAX;
                why = MACH_PAUSED;
                break;
            }
            round_open(m);
        }
        if (!round_cpus(m)) {
            why = MACH_PAUSED;
            break;
        }
        m->round.open = false;
        if (!round_finish(m, m->round.end))
            break;
    }
    m->running = 0;
    return why;
}

void mach_begin(Machine *m)
{
    if (m->conin.replay && m->conin.in.rx)
        uartrx_more(m->conin.in.rx);        /* the log's first byte (or the next, restored) */
    progress_init(&m->progress, m->cfg.progress, m->clock.freq_hz, m->cfg.max_insns, m->cfg.max_cycles);
}

int mach_finish(Machine *m)
{
    progress_clear(&m->progress);
    if (m->cfg.save_file && !m->saved)
        fprintf(stderr, "pmusim: --save-at %" PRIu64 ": the run ended before a quantum boundary at or after"
                " that cycle; %s was not written\n", m->cfg.save_at, m->cfg.save_file);
    kaslr_follow(m, false);
    finish_outputs(m);
    if (m->output_lost)
        return EXIT_OUTPUT;
    if (m->patchcheck && m->cfg.strict && m->patchcheck->nv)
        return EXIT_VIOLATION;
    return m->exit_status;
}

int mach_run(Machine *m)
{
    mach_begin(m);
    while (mach_advance(m) == MACH_PAUSED)
        ;
    return mach_finish(m);
}

/* Where every CPU is, for a run a limit ended (a hung guest): "cpu1: pc 0x... <sym+0x1c> (asleep)". */
void mach_print_pcs(Machine *m, FILE *f)
{
    static const char *const state[] = { "off", "running", "asleep", "dead" };
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        char sym[160];
        uint64_t pc = c->ops->get_pc(c);
        fprintf(f, "pmusim: cpu%d: pc 0x%" PRIx64 " <%s> (%s) at cycle %" PRIu64 "\n", i, pc,
                mach_describe(m, pc, sym, sizeof sym), state[c->state], c->cycles);
    }
}

void mach_print_stats(Machine *m)
{
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        const char *why = c->stop_reason;
        if (c->state == CPU_RUNNING && (i != m->exit_cpu))
            why = c->stall.active ? "stalled" : m->exit_cpu < 0 && m->exit_reason ? m->exit_reason : "running";
        fprintf(stderr, "cpu%d: insns=%" PRIu64 " cycles=%" PRIu64 " exit=%s\n", i, c->insns, c->cycles, why);
    }
}
