/* fuzz_report.c — the samples reader and the report (`pmusim report GUEST.elf SAMPLES`).
 *
 * Input: a samples file (docs/profiling.md, versions 1 and 2: call chains).  report_main() reads
 * it three times: against the tiny x86_64 image with --truth and with --perf-script, and against
 * the tiny ppc32 image (ELF32, big-endian) with --truth=cycles --folded; both images have the
 * symbols the seeds name (compare_keys, do_checksum, update_stats, ...).  Each must print its table (exit status 0) or refuse the file
 * with a message (exit status 2).  The table goes to /dev/null.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "sim/report.h"

static int report(const char *elf, const char *samples, const char *opt1, const char *opt2)
{
    char *argv[] = { (char *)"report", (char *)elf, (char *)samples, (char *)opt1, (char *)opt2, NULL };
    int argc = opt2 ? 5 : 4;
    int rc = report_main(argc, argv);
    fflush(stdout);
    if (rc != 0 && rc != EXIT_USAGE)
        fz_fail("pmusim report %s %s %s: exit status %d (0 or 2 expected)", elf, samples, opt1, rc);
    return rc;
}

/* The harness must reach the samples reader: a valid file is reported (status 0), or every input
 * would be refused before it is read and the harness would test nothing. */
static void check_reaches_reader(void)
{
    static const char ok[] = "# pmusim samples 2 arch=x86_64 hz=1000 samples=1\n"
                             "sample cpu=0 cycle=1 pc=0x100040 mode=kernel counter=PMC1 chain=0x100020\n";
    const char *path = fz_file("input.samples", ok, sizeof ok - 1);
    if (report(fz_tiny_elf_path(ARCH_X86_64, false), path, "--truth", NULL) != 0)
        fz_fail("pmusim report refuses a valid samples file: the harness does not reach the reader");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_tiny_elf_path(ARCH_X86_64, false);
    fz_tiny_elf_path(ARCH_PPC32, false);
    /* report_main prints on stdout; the harness's own output is on stderr */
    fflush(stdout);
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
        fz_fail("cannot send standard output to /dev/null");
    close(fd);
    check_reaches_reader();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file("input.samples", data, size);
    report(fz_tiny_elf_path(ARCH_X86_64, false), path, "--truth", NULL);
    report(fz_tiny_elf_path(ARCH_X86_64, false), path, "--perf-script", NULL);
    report(fz_tiny_elf_path(ARCH_PPC32, false), path, "--truth=cycles", "--folded");
    return 0;
}
