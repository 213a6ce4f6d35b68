/* virt.c — the QEMU-virt test images' shared helpers (see virt.h). */
#include "virt.h"

static unsigned checks, failed;

/* SMCCC: x0..x3 in, x0 out; x4..x17 may be clobbered (DEN 0028, "Register use"). */
s32 virt_psci(u64 fn, u64 a1, u64 a2, u64 a3)
{
    register u64 x0 asm("x0") = fn;
    register u64 x1 asm("x1") = a1;
    register u64 x2 asm("x2") = a2;
    register u64 x3 asm("x3") = a3;

    asm volatile("hvc #0"
                 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                 :
                 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
                   "x15", "x16", "x17", "memory");
    return (s32)x0;
}

void virt_check(bool ok, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(": %s\n", ok ? "ok" : "FAIL");
    checks++;
    failed += !ok;
}

int virt_done(const char *image)
{
    if (failed)
        printf("%s: %u of %u checks FAILED\n", image, failed, checks);
    else
        printf("%s: all %u checks passed\n", image, checks);
    return 0;
}

unsigned virt_root_cells(const void *fdt, unsigned *size_cells)
{
    int root = fdt_path(fdt, "/"), len;
    const void *p = fdt_prop(fdt, root, "#size-cells", &len);

    *size_cells = p && len == 4 ? (unsigned)fdt_read_cells(p, 1) : 1;
    return fdt_address_cells(fdt, root);
}

bool virt_prop_u64(const void *fdt, int node, const char *name, u64 *v)
{
    int len;
    const void *p = fdt_prop(fdt, node, name, &len);

    if (!p || (len != 4 && len != 8))
        return false;
    *v = fdt_read_cells(p, (unsigned)len / 4);
    return true;
}

/* An image without secondaries of its own parks any that arrive. */
__attribute__((weak)) void virt_secondary_main(u64 context)
{
    arch_cpu_park();
}
