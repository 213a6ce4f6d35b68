/* hello: the console, the exit device and the device tree hand-over. */
#include "guest.h"
#include "fdt.h"

int main(void)
{
    printf("Hello from pmusim guest (%s)\n", ARCH_NAME);
    if (!boot_fdt) {
        printf("dtb: none\n");
        return 0;
    }
    const char *model = fdt_prop_str(boot_fdt, fdt_path(boot_fdt, "/"), "model");
    const char *bootargs = fdt_prop_str(boot_fdt, fdt_path(boot_fdt, "/chosen"), "bootargs");
    printf("dtb: model=%s cpus=%u\n", model ? model : "(none)", fdt_count_cpus(boot_fdt));
    printf("bootargs: %s\n", bootargs ? bootargs : "(none)");
    return 0;
}
