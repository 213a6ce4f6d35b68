/* config.h — build-time limits shared by C, assembly and the linker scripts (macros only). */
#ifndef GUEST_CONFIG_H
#define GUEST_CONFIG_H

#define MAX_CPUS            16
#define STACK_SHIFT         14                  /* 16 KiB per CPU */
#define STACK_SIZE          (1 << STACK_SHIFT)
#define PERCPU_AREA_SIZE    0x1000              /* per CPU copy of .data.percpu */

/* guest_exit() code of a failed guest: status 33 on the debug-exit boards, clear of pmusim's
 * own statuses 2..5 (arm64 has no failure status: a failed guest hangs, pmusim reports 4). */
#define GUEST_EXIT_FAIL     0x10

#endif
