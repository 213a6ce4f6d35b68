/* fuzz_dts.c — device-tree source as --machine FILE.dts.
 *
 * Input: the option header (fuzz.h) and then DTS text.  dt_build() compiles it with dtc (one
 * process per input: some milliseconds, so this harness runs far fewer inputs than the others;
 * the DTB path behind it is fuzz_dtb's), then the same checks as fuzz_dtb.  dtc's own messages
 * go to stderr (libFuzzer's -close_fd_mask=2 hides them).
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FzOptions o;
    if (!fz_options(data, size, &o))
        return 0;
    fz_check_tree(&o, fz_file("machine.dts", data + FZ_OPT_BYTES, size - FZ_OPT_BYTES));
    return 0;
}
