/* initrd — an initrd as QEMU's -initrd hands it over: /chosen's linux,initrd-start and
 * linux,initrd-end (root #address-cells wide) name it, above the image on a page boundary and
 * below the DTB; its bytes' POSIX cksum (CRC and length, as cksum(1) prints them) and its
 * first line show that it arrived whole.
 *
 * virt-initrd: yes
 * virt-bootargs: initrd-test
 */
#include "runtime/virt.h"

#define PAGE            4096UL
#define CKSUM_POLY      0x04c11db7u     /* POSIX cksum: CRC-32, MSB first, then the length */
#define FIRST_LINE_MAX  32

static u32 crc_table[256];

static void crc_init(void)
{
    for (u32 i = 0; i < 256; i++) {
        u32 c = i << 24;
        for (int k = 0; k < 8; k++)
            c = c & 0x80000000u ? c << 1 ^ CKSUM_POLY : c << 1;
        crc_table[i] = c;
    }
}

static u32 crc_byte(u32 crc, u8 b)
{
    return crc << 8 ^ crc_table[(crc >> 24 ^ b) & 0xff];
}

/* The checksum cksum(1) prints (POSIX, "cksum"): the bytes, then the length, low byte first,
 * in as few bytes as it takes, complemented. */
static u32 posix_cksum(const volatile u8 *p, u64 len)
{
    u32 crc = 0;

    crc_init();
    for (u64 i = 0; i < len; i++)
        crc = crc_byte(crc, p[i]);
    for (u64 n = len; n; n >>= 8)
        crc = crc_byte(crc, (u8)n);
    return ~crc;
}

static void print_first_line(const volatile u8 *p, u64 len)
{
    char line[FIRST_LINE_MAX + 1];
    unsigned n = 0;

    while (n < len && n < FIRST_LINE_MAX && p[n] != '\n')
        line[n] = (char)p[n], n++;
    line[n] = 0;
    printf("initrd: first line \"%s\"\n", line);
}

int main(void)
{
    int chosen = boot_fdt ? fdt_path(boot_fdt, "/chosen") : -1;
    u64 start = 0, end = 0, dtb = virt_boot_regs[0];
    bool found = chosen >= 0 && virt_prop_u64(boot_fdt, chosen, "linux,initrd-start", &start) &&
                 virt_prop_u64(boot_fdt, chosen, "linux,initrd-end", &end);

    printf("virt-initrd: /chosen/bootargs: %s\n", boot_fdt ? fdt_prop_str(boot_fdt, chosen, "bootargs") : "(none)");
    virt_check(found && start <= end, "/chosen: linux,initrd-start and linux,initrd-end");
    if (found && start <= end) {
        printf("initrd: 0x%lx..0x%lx, %lu bytes; dtb at 0x%lx\n", start, end, end - start, dtb);
        virt_check(start >= (u64)__image_end && start % PAGE == 0, "initrd above the image, page-aligned");
        virt_check(end <= dtb, "initrd below the dtb");
        printf("initrd: cksum %u %lu\n", posix_cksum((const volatile u8 *)start, end - start), end - start);
        print_first_line((const volatile u8 *)start, end - start);
    }
    return virt_done("virt-initrd");
}
