/* test_bzimage.c — the Linux/x86 boot protocol (base/bzimage.h): the setup header and its
 * refusals, the zero page, the e820 map, and a machine booting a synthetic bzImage: where the
 * kernel goes, what the zero page in RAM holds, the entry state of boot.rst's 64-bit protocol.
 * The compressed payload (base/bzpayload.h) in each format, its refusals, and the symbols the
 * loader reads from the kernel inside (tests/unit/paybuild.c builds them), KASLR's offset
 * applied to them. */
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <unicorn/unicorn.h>

#include "base/bzimage.h"
#include "base/bzpayload.h"
#include "base/loader.h"
#include "paybuild.h"
#include "testutil.h"

#define SETUP_SECTS 3
#define PM_OFF ((SETUP_SECTS + 1) * 512)
#define PM_SIZE 0x1000
#define PREF 0x1000000ull
#define INIT_SIZE 0x400000u
#define LEN (PM_OFF + PM_SIZE)
#define HDR_END 0x26c                   /* 0x202 + 0x6a, as Linux 6.12's header.S */

/* A bzImage as Linux 6.12's header.S lays it out (protocol 2.15), with a protected-mode kernel
 * of PM_SIZE bytes whose 64-bit entry (offset 0x200) is `hlt`. */
static uint8_t *bz(void)
{
    static uint8_t b[LEN];
    memset(b, 0, sizeof b);
    b[0x1f1] = SETUP_SECTS;
    store_le(b + 0x1f4, 4, PM_SIZE / 16);
    store_le(b + 0x1fe, 2, 0xaa55);
    b[0x200] = 0xeb;
    b[0x201] = HDR_END - 0x202;
    memcpy(b + 0x202, "HdrS", 4);
    store_le(b + 0x206, 2, 0x020f);
    b[0x211] = 1;                                   /* LOADED_HIGH */
    store_le(b + 0x214, 4, 0x100000);
    store_le(b + 0x22c, 4, 0x7fffffff);
    store_le(b + 0x230, 4, 0x200000);
    b[0x234] = 1;
    b[0x235] = 21;
    store_le(b + 0x236, 2, 0x7f);
    store_le(b + 0x238, 4, 2047);
    store_le(b + 0x258, 8, PREF);
    store_le(b + 0x260, 4, INIT_SIZE);
    b[HDR_END] = 0x5a;                              /* past the header: not copied */
    for (unsigned i = 0; i < PM_SIZE; i++)
        b[PM_OFF + i] = (uint8_t)(i * 13 + 1);
    b[PM_OFF + 0x200] = 0xf4;                       /* hlt */
    return b;
}

START_TEST(setup_header_fields)
{
    BzHeader h;
    Error err = { { 0 } };
    uint8_t *b = bz();
    ck_assert(bzimage_is(b, LEN));
    ck_assert_msg(bzimage_header(b, LEN, "k", &h, &err), "%s", err.msg);
    ck_assert_uint_eq(h.setup_sects, SETUP_SECTS);
    ck_assert_uint_eq(h.pm_offset, PM_OFF);
    ck_assert_uint_eq(h.pm_size, PM_SIZE);
    ck_assert_uint_eq(h.version, 0x020f);
    ck_assert_uint_eq(h.pref_address, PREF);
    ck_assert_uint_eq(h.init_size, INIT_SIZE);
    ck_assert_uint_eq(h.kernel_alignment, 0x200000);
    ck_assert_uint_eq(h.cmdline_size, 2047);
    ck_assert_uint_eq(h.initrd_addr_max, 0x7fffffff);
    ck_assert_uint_eq(h.hdr_end, HDR_END);
    /* setup_sects 0 means 4 (boot.rst): the kernel then starts at 5 * 512, past this file */
    b[0x1f1] = 0;
    ck_assert(!bzimage_header(b, PM_OFF, "k", &h, &err));
    ck_assert_uint_eq(h.setup_sects, 4);
}
END_TEST

/* Each refusal names the field and its offset. */
static void refused(size_t off, unsigned n, uint64_t v, size_t len, const char *want)
{
    uint8_t *b = bz();
    store_le(b + off, n, v);
    BzHeader h;
    Error err = { { 0 } };
    ck_assert_msg(!bzimage_header(b, len, "kernel.bz", &h, &err), "accepted 0x%zx = 0x%" PRIx64, off, v);
    ck_assert_msg(strstr(err.msg, "kernel.bz") && strstr(err.msg, want), "want \"%s\": %s", want, err.msg);
}

START_TEST(setup_header_refusals)
{
    refused(0x206, 2, 0x020b, LEN, "offset 0x206: boot protocol version 2.11");
    refused(0x236, 2, 0x7e, LEN, "offset 0x236: xloadflags 0x7e lack XLF_KERNEL_64");
    refused(0x211, 1, 0, LEN, "offset 0x211: loadflags 0x0 lack LOADED_HIGH");
    refused(0x1f4, 4, PM_SIZE / 16 + 1, LEN, "offset 0x1f4: syssize");
    refused(0x1f4, 4, 0, LEN, "offset 0x1f4: syssize");
    refused(0x1f1, 1, 200, LEN, "offset 0x1f1: setup_sects 200");
    refused(0x260, 4, PM_SIZE - 1, LEN, "offset 0x260: init_size");
    refused(0x230, 4, 0x300000, LEN, "offset 0x230: kernel_alignment 0x300000");
    refused(0x201, 1, 0xff, LEN, "offset 0x201: the setup header would end at 0x301");
    refused(0x202, 4, 0x53726449, LEN, "offset 0x202: no \"HdrS\"");
    refused(0x202, 4, 0x53726448, 0x230, "shorter than a bzImage's setup header");
}
END_TEST

static E820Entry E(uint64_t a, uint64_t s, uint32_t t)
{
    return (E820Entry){ a, s, t };
}

static void expect_map(const E820Entry *got, unsigned n, const E820Entry *want, unsigned nwant)
{
    ck_assert_uint_eq(n, nwant);
    for (unsigned i = 0; i < n; i++)
        ck_assert_msg(got[i].addr == want[i].addr && got[i].size == want[i].size && got[i].type == want[i].type,
                      "entry %u: 0x%" PRIx64 "+0x%" PRIx64 " type %u, want 0x%" PRIx64 "+0x%" PRIx64 " type %u", i,
                      got[i].addr, got[i].size, got[i].type, want[i].addr, want[i].size, want[i].type);
}

/* RAM less the reserved ranges, sorted, adjacent ranges of one type merged, reserved ranges
 * outside RAM kept, empty ones dropped. */
START_TEST(e820_map)
{
    E820Entry ram[] = { E(0x100000000ull, 0x1000000, 1), E(0, 0x8000000, 1) };
    E820Entry resv[] = { E(0x10000, 0x10000, 2), E(0x8000, 0x8000, 2), E(0x9fc00, 0x60400, 2), E(0x20000, 0x2000, 2),
                         E(0x5000, 0, 2), E(0xfffc0000ull, 0x40000, 2) };
    E820Entry out[16];
    unsigned n;
    Error err = { { 0 } };
    ck_assert_msg(e820_build(ram, 2, resv, 6, out, 16, &n, &err), "%s", err.msg);
    E820Entry want[] = { E(0, 0x8000, 1), E(0x8000, 0x1a000, 2), E(0x22000, 0x9fc00 - 0x22000, 1),
                         E(0x9fc00, 0x60400, 2), E(0x100000, 0x7f00000, 1), E(0xfffc0000ull, 0x40000, 2),
                         E(0x100000000ull, 0x1000000, 1) };
    expect_map(out, n, want, 7);
    /* a reserved range over a RAM boundary splits both */
    E820Entry r2[] = { E(0x7ff0000, 0x20000, 2) };
    ck_assert(e820_build(ram + 1, 1, r2, 1, out, 16, &n, &err));
    E820Entry want2[] = { E(0, 0x7ff0000, 1), E(0x7ff0000, 0x20000, 2) };
    expect_map(out, n, want2, 2);
    /* more entries than the zero page holds */
    ck_assert(!e820_build(ram, 2, resv, 6, out, 3, &n, &err));
    ck_assert_msg(strstr(err.msg, "more than the 3 e820 entries"), "%s", err.msg);
}
END_TEST

/* The zero page: the header copied to its end and no further, then the loader's fields. */
START_TEST(zero_page_fields)
{
    uint8_t *b = bz(), zp[BZ_ZERO_PAGE_SIZE];
    BzHeader h;
    Error err = { { 0 } };
    ck_assert(bzimage_header(b, LEN, "k", &h, &err));
    E820Entry map[] = { E(0, 0x9fc00, 1), E(0x9fc00, 0x60400, 2), E(0x100000, 0x7f00000, 1) };
    BzBoot bb = { 0x1200000, 0x123421000ull, 0x4800000, 0x5678, map, 3 };
    memset(zp, 0xcc, sizeof zp);
    bzimage_zero_page(zp, b, &h, &bb);
    ck_assert(!memcmp(zp + 0x1f1, b + 0x1f1, 0x1fa - 0x1f1));
    ck_assert(!memcmp(zp + 0x1fc, b + 0x1fc, 0x210 - 0x1fc));
    ck_assert(!memcmp(zp + 0x22c, b + 0x22c, HDR_END - 0x22c));
    ck_assert_uint_eq(zp[0x1ef], 0);                 /* the sentinel: a clean zero page */
    ck_assert_uint_eq(zp[HDR_END], 0);               /* not copied past the header */
    ck_assert_uint_eq(zp[0x210], 0xff);              /* type_of_loader */
    ck_assert_uint_eq(load_le(zp + 0x1fa, 2), 0xffff);   /* vid_mode normal */
    ck_assert_uint_eq(load_le(zp + 0x214, 4), 0x1200000);
    ck_assert_uint_eq(load_le(zp + 0x228, 4), 0x23421000);
    ck_assert_uint_eq(load_le(zp + 0x0c8, 4), 0x1);  /* ext_cmd_line_ptr */
    ck_assert_uint_eq(load_le(zp + 0x218, 4), 0x4800000);
    ck_assert_uint_eq(load_le(zp + 0x21c, 4), 0x5678);
    ck_assert_uint_eq(load_le(zp + 0x0c0, 4), 0);
    ck_assert_uint_eq(zp[0x1e8], 3);
    ck_assert_uint_eq(load_le(zp + 0x2d0 + 20, 8), 0x9fc00);
    ck_assert_uint_eq(load_le(zp + 0x2d0 + 28, 8), 0x60400);
    ck_assert_uint_eq(load_le(zp + 0x2d0 + 36, 4), 2);
    ck_assert_uint_eq(load_le(zp + 0x2d0 + 60, 8), 0);   /* the fourth entry: none */
}
END_TEST

/* A machine booting the bzImage: placed at pref_address, the zero page in RAM, RSI, the GDT
 * and the selectors of the 64-bit protocol; the run stops at the kernel's hlt. */
START_TEST(machine_boots_bzimage)
{
    const char *kpath = testutil_temp_file(bz(), LEN, ".bzImage");
    static const char initrd[] = "not a cpio: a RAM disk";
    const char *ipath = testutil_temp_file(initrd, sizeof initrd, ".img");
    MachineConfig cfg = { .kernel = kpath, .bootargs = "console=ttyS0 root=/dev/ram0", .initrd_file = ipath,
                          .max_insns = 10 };
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert_msg(mach_create(m, &cfg, &err), "%s", err.msg);
    ck_assert_uint_eq(m->image.segs[0].paddr, PREF);
    ck_assert_uint_eq(tm_read(m, PREF + 0x200, 1), 0xf4);
    ck_assert_uint_eq(tm_read(m, PREF + PM_SIZE, 8), 0);         /* init_size window zeroed */
    ck_assert_uint_eq(m->initrd_addr, 0x4000000);               /* RAM / 2 (128 MiB), above the window */
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    uint64_t zp = vcpu_reg_read(c, UC_X86_REG_RSI);
    ck_assert_uint_eq(vcpu_reg_read(c, UC_X86_REG_RIP), PREF + 0x200);
    ck_assert_uint_eq(vcpu_reg_read(c, UC_X86_REG_CS), 0x10);
    ck_assert_uint_eq(vcpu_reg_read(c, UC_X86_REG_DS), 0x18);
    ck_assert_uint_eq(vcpu_reg_read(c, UC_X86_REG_SS), 0x18);
    ck_assert_uint_eq(vcpu_reg_read(c, UC_X86_REG_RFLAGS) & 0x200, 0);   /* interrupts off */
    uint64_t accessed = 1ull << 40;                 /* the engine sets it, loading the selectors */
    ck_assert_uint_eq(tm_read(m, 0x8010, 8) & ~accessed, 0x00af9a000000ffffull);    /* __BOOT_CS: 64-bit code */
    ck_assert_uint_eq(tm_read(m, 0x8018, 8) & ~accessed, 0x00cf92000000ffffull);    /* __BOOT_DS: data */
    ck_assert_uint_eq(tm_read(m, zp + 0x210, 1), 0xff);
    uint64_t cmd = tm_read(m, zp + 0x228, 4);
    ck_assert_str_eq((const char *)mem_ptr(&m->mem, cmd, 64), "console=ttyS0 root=/dev/ram0");
    ck_assert_uint_eq(tm_read(m, zp + 0x218, 4), m->initrd_addr);
    ck_assert_uint_eq(tm_read(m, zp + 0x21c, 4), sizeof initrd);
    /* e820: 0-0x8000 RAM, the boot structures, DTB and zero page reserved, RAM to the EBDA,
     * the legacy area, RAM from 1 MiB */
    ck_assert_uint_eq(tm_read(m, zp + 0x1e8, 1), 5);
    uint64_t want[5][3] = { { 0, 0x8000, 1 }, { 0x8000, 0x1a000, 2 }, { 0x22000, 0x9fc00 - 0x22000, 1 },
                            { 0x9fc00, 0x60400, 2 }, { 0x100000, 0x7f00000, 1 } };
    for (unsigned i = 0; i < 5; i++)
        for (unsigned k = 0; k < 3; k++)
            ck_assert_uint_eq(tm_read(m, zp + 0x2d0 + 20 * i + 8 * k, k == 2 ? 4 : 8), want[i][k]);
    ck_assert_int_eq(mach_run(m), EXIT_HUNG);       /* its hlt, with nothing to wake it */
    mach_destroy(m);
    free(m);
}
END_TEST

/* A "kernel" whose 64-bit entry prints Linux's last panic line on the 16550 (port 0x3f8):
 * the run ends as for any Linux image (sim/linuxwatch.c), status 8. */
START_TEST(machine_bzimage_panic_ends_the_run)
{
    static const uint8_t code[] = {
        0x48, 0x8d, 0x35, 0x0d, 0x00, 0x00, 0x00,  /* lea msg(%rip), %rsi */
        0x66, 0xba, 0xf8, 0x03,                    /* mov $0x3f8, %dx */
        0xac,                                      /* 1: lodsb */
        0x84, 0xc0,                                /* test %al, %al */
        0x74, 0x03,                                /* jz 2f */
        0xee,                                      /* out %al, (%dx) */
        0xeb, 0xf8,                                /* jmp 1b */
        0xf4,                                      /* 2: hlt */
    };
    static const char msg[] = "---[ end Kernel panic - not syncing: VFS: Unable to mount root fs ]---\n";
    uint8_t *b = bz();
    memcpy(b + PM_OFF + 0x200, code, sizeof code);
    memcpy(b + PM_OFF + 0x200 + sizeof code, msg, sizeof msg);
    MachineConfig cfg = { .kernel = testutil_temp_file(b, LEN, ".bzImage"), .console_file = "/dev/null",
                          .max_insns = 100000 };
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert_msg(mach_create(m, &cfg, &err), "%s", err.msg);
    ck_assert(m->linuxwatch.on);
    ck_assert_msg(mach_open_outputs(m, &err), "%s", err.msg);
    mach_boot(m);
    ck_assert_int_eq(mach_run(m), EXIT_PANIC);
    ck_assert_str_eq(m->exit_reason, "linux-panic");
    mach_destroy(m);
    free(m);
}
END_TEST

static const char *machine_error(MachineConfig *cfg)
{
    static Error err;
    Machine *m = calloc(1, sizeof *m);
    memset(&err, 0, sizeof err);
    ck_assert(!mach_create(m, cfg, &err));
    mach_destroy(m);
    free(m);
    return err.msg;
}

/* pref_address taken (a /memreserve/ of the tree): a relocatable kernel goes to the next
 * kernel_alignment multiple that is free; one that is not relocatable is refused; a command
 * line longer than cmdline_size is refused. */
START_TEST(machine_placement_and_refusals)
{
    static const char dts[] = "/dts-v1/;\n/memreserve/ 0x1100000 0x1000;\n/ { compatible = \"pmusim,x86_64\"; "
                              "#address-cells = <2>; #size-cells = <2>;\n memory@0 { device_type = \"memory\"; "
                              "reg = <0 0 0 0x8000000>; };\n cpus { #address-cells = <1>; #size-cells = <0>;\n"
                              "  cpu@0 { device_type = \"cpu\"; compatible = \"pmusim,x86-64-generic\"; reg = <0>; "
                              "clock-frequency = <1000000000>; }; };\n};\n";
    char *mpath = strdup(testutil_temp_file(dts, sizeof dts - 1, ".dts"));
    uint8_t *b = bz();
    const char *kpath = testutil_temp_file(b, LEN, ".bzImage");
    MachineConfig cfg = { .kernel = kpath, .machine_file = mpath };
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert_msg(mach_create(m, &cfg, &err), "%s", err.msg);
    ck_assert_uint_eq(m->image.segs[0].paddr, 0x1200000);   /* 0x1000000 + 0x400000 would cover 0x1100000 */
    ck_assert_uint_eq(m->image.entry, 0x1200200);
    mach_destroy(m);
    free(m);
    b[0x234] = 0;                                   /* not relocatable */
    cfg.kernel = testutil_temp_file(b, LEN, ".bzImage");
    const char *msg = machine_error(&cfg);
    ck_assert_msg(strstr(msg, "init_size") && strstr(msg, "too big for memory"), "%s", msg);
    b[0x234] = 1;
    store_le(b + 0x238, 4, 8);                      /* cmdline_size */
    cfg = (MachineConfig){ .kernel = testutil_temp_file(b, LEN, ".bzImage"), .bootargs = "console=ttyS0" };
    msg = machine_error(&cfg);
    ck_assert_msg(strstr(msg, "--append") && strstr(msg, "cmdline_size"), "%s", msg);
    store_le(b + 0x238, 4, 2047);
    store_le(b + 0x258, 8, 0x7e00000);              /* pref_address near the end of RAM */
    cfg = (MachineConfig){ .kernel = testutil_temp_file(b, LEN, ".bzImage") };
    msg = machine_error(&cfg);
    ck_assert_msg(strstr(msg, "too big for memory"), "%s", msg);
    remove(mpath);
    free(mpath);
}
END_TEST

/* ------------------------------------------------------------------ the payload */

#define VM_TEXT 0xffffffff81000000ull
#define VM_ELF 0x1000u                  /* the ELF's bytes: one PT_LOAD of them at _text */
#define VM_SYMS 300                     /* two kallsyms markers */

/* A vmlinux: an ELF64 x86-64 executable whose one PT_LOAD maps its VM_ELF bytes at _text, then
 * the kallsyms tables (paybuild.c). */
static uint8_t *vmlinux(size_t *len)
{
    static uint8_t elf[VM_ELF];
    Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_entry = VM_TEXT,
                      .e_phoff = sizeof eh, .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64, eh.e_ident[EI_DATA] = ELFDATA2LSB, eh.e_ident[EI_VERSION] = EV_CURRENT;
    Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = VM_TEXT,
                      .p_paddr = 0x1000000, .p_filesz = VM_ELF, .p_memsz = VM_ELF, .p_align = 0x200000 };
    memcpy(elf, &eh, sizeof eh);
    memcpy(elf + sizeof eh, &ph, sizeof ph);
    for (unsigned i = sizeof eh + sizeof ph; i < VM_ELF; i++)
        elf[i] = (uint8_t)(i * 7 + 3);
    return pay_vmlinux(elf, VM_ELF, VM_SYMS, len);
}

static uint8_t *bz_with(const char *kind, const uint8_t *in, size_t n, size_t *len)
{
    uint8_t *img = pay_bzimage(bz(), PM_OFF, PM_SIZE, kind, in, n, len);
    ck_assert_msg(img, "the %s compressor", kind);
    return img;
}

/* Each format unpacks to the vmlinux, whose ELF and bytes at _text are found. */
START_TEST(payload_formats)
{
    static const char *const kinds[] = PAY_KINDS;
    size_t vlen, len, out_len;
    uint8_t *v = vmlinux(&vlen), *out;
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
        uint8_t *img = bz_with(kinds[k], v, vlen, &len);
        BzHeader h;
        Error err = { { 0 } };
        ck_assert_msg(bzimage_header(img, len, "k", &h, &err), "%s: %s", kinds[k], err.msg);
        ck_assert_msg(bzpayload_unpack(img, len, &h, "k", &out, &out_len, &err), "%s: %s", kinds[k], err.msg);
        ck_assert_uint_eq(out_len, vlen);
        ck_assert(!memcmp(out, v, vlen));
        ck_assert_msg(bzpayload_check_elf(out, out_len, "k", &err), "%s", err.msg);
        ck_assert_ptr_eq(bzpayload_elf_bytes(out, out_len, VM_TEXT + 0x40, 16), out + 0x40);
        ck_assert_ptr_null(bzpayload_elf_bytes(out, out_len, VM_TEXT + VM_ELF - 8, 16));   /* past the segment */
        free(out);
        free(img);
    }
    free(v);
}
END_TEST

/* The payload of the bzImage img (of format `kind`) refused with a message holding want. */
static void payload_refused(const char *kind, uint8_t *img, size_t len, const char *want)
{
    BzHeader h;
    Error err = { { 0 } };
    uint8_t *out = NULL;
    size_t out_len;
    ck_assert_msg(bzimage_header(img, len, "vmlinuz", &h, &err), "%s", err.msg);
    ck_assert_msg(!bzpayload_unpack(img, len, &h, "vmlinuz", &out, &out_len, &err), "%s accepted: want %s", kind, want);
    ck_assert_msg(strstr(err.msg, want), "%s: '%s' lacks '%s'", kind, err.msg, want);
}

START_TEST(payload_refusals)
{
    size_t vlen, len;
    uint8_t *v = vmlinux(&vlen);
    static const char *const kinds[] = PAY_KINDS;
    char want[96];
    snprintf(want, sizeof want, "vmlinuz: payload at offset 0x%x: ", PM_OFF + PM_SIZE);
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
        uint8_t *img = bz_with(kinds[k], v, vlen, &len);
        uint32_t plen = (uint32_t)load_le(img + BZ_PAYLOAD_LENGTH, 4);
        store_le(img + BZ_PAYLOAD_LENGTH, 4, plen / 2);             /* truncated */
        payload_refused(kinds[k], img, len, want);
        payload_refused(kinds[k], img, len, "truncated");
        store_le(img + BZ_PAYLOAD_LENGTH, 4, plen);
        memset(img + PM_OFF + PM_SIZE + plen / 2, 0x55, 32);        /* corrupt */
        payload_refused(kinds[k], img, len, want);
        free(img);
    }
    uint8_t *img = bz_with("zstd", v, vlen, &len);
    memcpy(img + PM_OFF + PM_SIZE, "BZh9", 4);
    payload_refused("zstd", img, len, "a bzip2 payload: pmusim reads gzip, zstd, xz and lzma payloads");
    memcpy(img + PM_OFF + PM_SIZE, "\x01\x02\x03\x04", 4);
    payload_refused("zstd", img, len, "is none of the kernel's compressors");
    store_le(img + BZ_PAYLOAD_LENGTH, 4, (uint32_t)len);
    payload_refused("zstd", img, len, "offset 0x248: the payload");
    store_le(img + BZ_PAYLOAD_LENGTH, 4, 0);
    payload_refused("zstd", img, len, "is empty");
    free(img);
    /* not an ELF inside */
    img = bz_with("gzip", (const uint8_t *)"plain text, not a kernel", 24, &len);
    BzHeader h;
    Error err = { { 0 } };
    uint8_t *out;
    size_t out_len;
    ck_assert(bzimage_header(img, len, "k", &h, &err) && bzpayload_unpack(img, len, &h, "k", &out, &out_len, &err));
    ck_assert(!bzpayload_check_elf(out, out_len, "k (its unpacked kernel)", &err));
    ck_assert_msg(strstr(err.msg, "k (its unpacked kernel): offset 0: not an ELF"), "%s", err.msg);
    free(out);
    free(img);
    free(v);
}
END_TEST

/* The loader's symbols of a bzImage: the kernel's own tables, per-CPU ones absolute and not
 * naming the decompressor's physical PCs; KASLR's offset moves the kernel's, not those. */
START_TEST(payload_symbols_and_kaslr)
{
    size_t vlen, len;
    uint8_t *v = vmlinux(&vlen);
    uint8_t *img = bz_with("zstd", v, vlen, &len);
    Image im;
    Error err = { { 0 } };
    ck_assert_msg(image_load_kernel(&im, testutil_temp_file(img, len, ".bz"), &err), "%s", err.msg);
    ck_assert_msg(im.nsyms == VM_SYMS, "%d symbols: %s", im.nsyms, im.nosyms ? im.nosyms : "");
    uint64_t a;
    ck_assert(image_symbol_addr(&im, "_text", &a) && a == VM_TEXT);
    ck_assert(image_symbol_addr(&im, "sym_1", &a) && a == 0x100);
    ck_assert_int_eq(im.syms[1].type, 'A');
    ck_assert(im.kaslr.pending && im.kaslr.text == VM_TEXT && im.kaslr.align == 0x200000);
    ck_assert(!memcmp(im.kaslr.bytes, v, KASLR_PROBE_LEN));
    uint64_t off;
    ck_assert_ptr_null(image_symbol_at(&im, PREF + 0x200, &off));      /* startup_64 of the decompressor */
    image_kaslr_apply(&im, 0xe00000);
    ck_assert(!im.kaslr.pending && im.kaslr.offset == 0xe00000);
    ck_assert(image_symbol_addr(&im, "_text", &a) && a == VM_TEXT + 0xe00000);
    ck_assert(image_symbol_addr(&im, "sym_1", &a) && a == 0x100);
    const Symbol *s = image_symbol_at(&im, VM_TEXT + 0xe00000 + 0x24, &off);
    ck_assert(s && !strcmp(s->name, "sym_6") && off == 4);
    image_free(&im);
    free(img);
    free(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bzimage");
    TCase *t = tcase_create("bzimage");
    tcase_add_test(t, setup_header_fields);
    tcase_add_test(t, setup_header_refusals);
    tcase_add_test(t, e820_map);
    tcase_add_test(t, zero_page_fields);
    tcase_add_test(t, machine_boots_bzimage);
    tcase_add_test(t, machine_placement_and_refusals);
    tcase_add_test(t, machine_bzimage_panic_ends_the_run);
    tcase_add_test(t, payload_formats);
    tcase_add_test(t, payload_refusals);
    tcase_add_test(t, payload_symbols_and_kaslr);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
