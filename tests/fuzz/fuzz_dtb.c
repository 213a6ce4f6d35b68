/* fuzz_dtb.c — device-tree blobs as --machine FILE.dtb, with the option edits.
 *
 * Input: the option header (fuzz.h: architecture, --cpus, --cpu-model, --bootargs) and then a
 * flattened device tree (its magic forced: fz_dtb_file).  dt_build() must build the effective
 * tree or refuse the file with a message, and dt_parse() must turn what it built into a
 * MachineDesc within its limits or refuse it with a message (fz_check_tree).  Everything stays
 * in the process: this is the fast path through the machine description (fuzz_dts covers DTS
 * text, through dtc; fuzz_machine the machine built from it).
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
    const char *path = fz_dtb_file(data + FZ_OPT_BYTES, size - FZ_OPT_BYTES);
    if (path)
        fz_check_tree(&o, path);
    return 0;
}
