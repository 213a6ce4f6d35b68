/* fdt.c — building and parsing the machine's device tree (see fdt.h, docs/machines.md). */
#include "sim/fdt.h"

#include "gic/gic.h"

#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hostproc.h"
#include "base/tunables.h"
#include "cpu/cpu.h"
#include "gic/gic.h"
#include "sim/devices.h"

extern const unsigned char board_x86_64_dtb[], board_arm64_dtb[], board_ppc32_dtb[];
extern const unsigned int board_x86_64_dtb_len, board_arm64_dtb_len, board_ppc32_dtb_len;

/* Where secondaries' spin-table words go on the built-in boards (docs/machines.md). */
#define SPIN_TABLE_BASE 0xf000ull

const void *dt_board_blob(Arch arch, size_t *len)
{
    switch (arch) {
    case ARCH_X86_64: *len = board_x86_64_dtb_len; return board_x86_64_dtb;
    case ARCH_ARM64: *len = board_arm64_dtb_len; return board_arm64_dtb;
    case ARCH_PPC32: *len = board_ppc32_dtb_len; return board_ppc32_dtb;
    default: *len = 0; return NULL;
    }
}

/* ------------------------------------------------------------------ files and dtc */

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* The whole of a regular file of at most `max` bytes (`max_text` names the limit in messages).
 * FIFOs and devices are refused before the first read: they can block, or never end (/dev/zero). */
static bool read_whole(const char *path, size_t max, const char *max_text, uint8_t **data, size_t *len, Error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);     /* opening a FIFO must not wait for a writer */
    if (fd < 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        err_set(err, "%s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        if (!S_ISREG(st.st_mode))
            return err_set(err, "%s: %s, not a regular file", path, file_kind(st.st_mode));
        return err_set(err, "%s: larger than %s", path, max_text);
    }
    /* read at most max + 1 bytes whatever fstat said: the file may be growing */
    size_t cap = (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1, n = 0;
    uint8_t *buf = xcalloc(1, cap);
    bool failed = false;
    for (;;) {
        if (n == cap) {
            if (cap > max)
                break;
            cap = cap > (max + 1) / 2 ? max + 1 : 2 * cap;
            buf = xrealloc(buf, cap);
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            err_set(err, "%s: %s", path, strerror(errno));
            failed = true;
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (failed || n > max) {
        free(buf);
        return n > max ? err_set(err, "%s: larger than %s", path, max_text) : false;
    }
    *data = buf;
    *len = n;
    return true;
}

/* The oldest blob version read.  Before 16 a node's name is its full path, and libfdt 1.6.1's
 * fdt_check_full dereferences the NULL fdt_get_name returns for a root node without a '/' (a
 * crash the dtb fuzzing harness found, tests/fuzz/crashes/dtb); dtc has written 17 since 2005. */
#define DT_MIN_VERSION 16u

/* Limits of a dtc run: /incbin/ and /include/ let a DTS name any file (/dev/zero), and dtc reads
 * it without bound; with these it fails instead of taking the host's memory or disk, and the
 * alarm ends an /incbin/ of a FIFO, which blocks in open() until a writer comes. */
static const HostLimits dtc_limits = { .mem_bytes = 256ull << 20, .file_bytes = 16ull << 20, .seconds = 10 };

static int make_temp(char *path, size_t len, const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/pmusim-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
    return mkstemps(path, (int)strlen(suffix));
}

static bool dtc_failed(int rc, const char *path, const char *what, Error *err)
{
    if (rc < 0)
        return err_set(err, "%s: cannot run dtc (install device-tree-compiler)", path);
    if (rc >= HOSTPROC_SIGNALLED)
        return err_set(err, "%s: dtc could not %s: stopped by signal %d (dtc may use at most %llu MiB of memory, "
                       "write %llu MiB and run %u s)", path, what, rc - HOSTPROC_SIGNALLED,
                       (unsigned long long)(dtc_limits.mem_bytes >> 20),
                       (unsigned long long)(dtc_limits.file_bytes >> 20), dtc_limits.seconds);
    return err_set(err, "%s: dtc could not %s (exit status %d; its message is above)", path, what, rc);
}

void *dt_compile_dts(const char *path, size_t *blob_len, Error *err)
{
    char out[4096];
    int fd = make_temp(out, sizeof out, ".dtb");
    if (fd < 0) {
        err_set(err, "cannot create a temporary file: %s", strerror(errno));
        return NULL;
    }
    close(fd);
    /* "--": a path such as "-x.dts" is a file, not an option */
    char *argv[] = { "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", out, "--", (char *)path, NULL };
    int rc = hostproc_run(argv, -1, &dtc_limits);
    uint8_t *blob = NULL;
    size_t len = 0;
    Error rerr = { { 0 } };
    bool ok = false;
    if (rc != 0)
        dtc_failed(rc, path, "compile it", err);
    else if (!read_whole(out, DT_FILE_MAX, DT_FILE_MAX_TEXT, &blob, &len, &rerr))
        err_set(err, "%s: the blob dtc made of it: %.400s", path, rerr.msg);
    else if (len < sizeof(struct fdt_header))
        err_set(err, "%s: dtc produced no tree", path);
    else
        ok = true;
    unlink(out);
    if (!ok) {
        free(blob);
        return NULL;
    }
    *blob_len = len;
    return blob;
}

bool dt_to_dts(const void *fdt, char **text, Error *err)
{
    char in[4096], out[4096];
    int fd = make_temp(in, sizeof in, ".dtb");
    if (fd < 0)
        return err_set(err, "cannot create a temporary file: %s", strerror(errno));
    bool ok = write(fd, fdt, fdt_totalsize(fdt)) == (ssize_t)fdt_totalsize(fdt);
    close(fd);
    int ofd = make_temp(out, sizeof out, ".dts");
    if (!ok || ofd < 0) {
        unlink(in);
        if (ofd >= 0)
            close(ofd), unlink(out);
        return err_set(err, "cannot write a temporary file");
    }
    char *argv[] = { "dtc", "-q", "-I", "dtb", "-O", "dts", "--", in, NULL };
    int rc = hostproc_run(argv, ofd, &dtc_limits);
    close(ofd);
    uint8_t *data = NULL;
    size_t len = 0;
    if (rc == 0)
        ok = read_whole(out, dtc_limits.file_bytes, "16 MiB", &data, &len, err);
    else
        ok = dtc_failed(rc, "the tree", "decompile it", err);
    unlink(in);
    unlink(out);
    if (!ok)
        return false;
    data = xrealloc(data, len + 1);
    data[len] = 0;
    *text = (char *)data;
    return true;
}

/* ------------------------------------------------------------------ helpers */

static const char *node_path(const void *fdt, int node, char *buf, int len)
{
    if (fdt_get_path(fdt, node, buf, len) < 0)
        snprintf(buf, (size_t)len, "(node at offset %d)", node);
    return buf;
}

static uint64_t read_cells(const fdt32_t *p, int cells)
{
    uint64_t v = 0;
    for (int i = 0; i < cells; i++)
        v = v << 32 | fdt32_to_cpu(p[i]);
    return v;
}

/* A numeric property of 1 or 2 cells; false if absent, error if malformed. */
static bool prop_u64(const void *fdt, int node, const char *name, uint64_t *v, bool *bad, Error *err)
{
    int len;
    const fdt32_t *p = fdt_getprop(fdt, node, name, &len);
    if (!p)
        return false;
    if (len != 4 && len != 8) {
        char path[128];
        *bad = true;
        err_set(err, "node %s: property %s: expected 1 or 2 cells, found %d bytes",
                  node_path(fdt, node, path, sizeof path), name, len);
        return false;
    }
    *v = read_cells(p, len / 4);
    return true;
}

static bool is_cpu_node(const void *fdt, int node)
{
    const char *dt = fdt_getprop(fdt, node, "device_type", NULL);
    return dt && !strcmp(dt, "cpu");
}

/* Every string property pmusim reads must end in a NUL inside the property: a hand-made blob
 * could otherwise make strcmp and the messages read past it. */
static const char *const string_props[] = { "compatible", "status", "device_type", "model", "method",
                                            "enable-method", "bootargs", "stdout-path" };

static bool check_strings(const void *fdt, Error *err)
{
    for (int node = 0; node >= 0; node = fdt_next_node(fdt, node, NULL)) {
        for (size_t i = 0; i < ARRAY_SIZE(string_props); i++) {
            int len;
            const char *p = fdt_getprop(fdt, node, string_props[i], &len);
            char path[128];
            if (p && (len <= 0 || p[len - 1]))
                return err_set(err, "node %s: property %s: not a NUL-terminated string",
                               node_path(fdt, node, path, sizeof path), string_props[i]);
        }
    }
    return true;
}

/* #address-cells or #size-cells of `node` into *cells: `dflt` when absent, else one cell from
 * DT_CELLS_MIN (or 0 for #size-cells) to DT_CELLS_MAX: pmusim keeps addresses and sizes in 64 bits,
 * and every length it computes from a cell count stays small. */
static bool cells_of(const void *fdt, int node, const char *prop, int dflt, int *cells, Error *err)
{
    int len, lo = strcmp(prop, "#size-cells") ? DT_CELLS_MIN : 0;
    const fdt32_t *p = fdt_getprop(fdt, node, prop, &len);
    char path[128];
    if (!p) {
        *cells = dflt;
        return true;
    }
    if (len != 4)
        return err_set(err, "node %s: property %s: expected one cell, found %d bytes",
                       node_path(fdt, node, path, sizeof path), prop, len);
    uint32_t v = fdt32_to_cpu(*p);
    if (v < (uint32_t)lo || v > DT_CELLS_MAX)
        return err_set(err, "node %s: property %s: %" PRIu32 " is not supported (pmusim reads %d to %d cells)",
                       node_path(fdt, node, path, sizeof path), prop, v, lo, DT_CELLS_MAX);
    *cells = (int)v;
    return true;
}

Arch dt_arch(const void *fdt)
{
    int len;
    const char *compat = fdt_getprop(fdt, 0, "compatible", &len);
    if (!compat)
        return ARCH_NONE;
    for (int a = 0; a < ARCH_COUNT; a++) {
        char want[32];
        snprintf(want, sizeof want, "pmusim,%s", isa_name((Arch)a));
        if (fdt_stringlist_contains(compat, len, want))
            return (Arch)a;
    }
    if (fdt_stringlist_contains(compat, len, "linux,dummy-virt"))
        return ARCH_ARM64;
    return ARCH_NONE;
}

/* ------------------------------------------------------------------ building */

static uint64_t clone_hwid(Arch arch, int i)
{
    /* arm64: QEMU virt's GICv3 rule, 16 CPUs per Aff1 cluster */
    return arch == ARCH_ARM64 ? (uint64_t)(i / 16) << 8 | (uint64_t)(i % 16) : (uint64_t)i;
}

static int find_cpus(const void *fdt, int *nodes, int max)
{
    int cpus = fdt_path_offset(fdt, "/cpus"), n = 0, node;
    if (cpus < 0)
        return 0;
    fdt_for_each_subnode(node, fdt, cpus) {
        if (is_cpu_node(fdt, node) && n < max)
            nodes[n++] = node;
    }
    return n;
}

/* A copy of a cpu node, so /cpus can be rebuilt in order (libfdt inserts a new subnode before
 * the existing ones). */
typedef struct NodeCopy {
    char name[96];
    int nprops;
    struct {
        char name[64];
        int len;
        uint8_t val[256];
    } props[32];
} NodeCopy;

static bool copy_node(const void *fdt, int node, NodeCopy *nc, Error *err)
{
    snprintf(nc->name, sizeof nc->name, "%s", fdt_get_name(fdt, node, NULL));
    nc->nprops = 0;
    int prop;
    fdt_for_each_property_offset(prop, fdt, node) {
        const char *pname;
        int plen;
        const void *val = fdt_getprop_by_offset(fdt, prop, &pname, &plen);
        if (nc->nprops == (int)ARRAY_SIZE(nc->props) || plen > (int)sizeof nc->props[0].val ||
            strlen(pname) >= sizeof nc->props[0].name)
            return err_set(err, "cpu node %s is too large to clone for --cpus", nc->name);
        snprintf(nc->props[nc->nprops].name, sizeof nc->props[0].name, "%s", pname);
        nc->props[nc->nprops].len = plen;
        memcpy(nc->props[nc->nprops].val, val, (size_t)plen);
        nc->nprops++;
    }
    return true;
}

static void nc_set(NodeCopy *nc, const char *name, const void *val, int len)
{
    int i;
    for (i = 0; i < nc->nprops; i++)
        if (!strcmp(nc->props[i].name, name))
            break;
    if (i == nc->nprops) {
        if (nc->nprops == (int)ARRAY_SIZE(nc->props))
            return;
        nc->nprops++;
        snprintf(nc->props[i].name, sizeof nc->props[0].name, "%s", name);
    }
    nc->props[i].len = len;
    memcpy(nc->props[i].val, val, (size_t)len);
}

static bool set_cpu_count(void *fdt, Arch arch, int want, const char *what, Error *err)
{
    if (want < 1 || want > DESC_MAX_CPUS)
        return err_set(err, "--cpus %d: at most %d CPUs are supported", want, DESC_MAX_CPUS);
    int nodes[DESC_MAX_CPUS + 1];
    int have = find_cpus(fdt, nodes, DESC_MAX_CPUS + 1);
    if (have == 0)
        return err_set(err, "the machine has no cpu nodes under /cpus to clone for --cpus");
    int acells;
    if (!cells_of(fdt, fdt_path_offset(fdt, "/cpus"), "#address-cells", 1, &acells, err)) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        return err_set(err, "%s: %.400s", what, tmp);
    }
    NodeCopy *copies = xcalloc((size_t)want, sizeof *copies);
    bool ok = true;
    for (int i = 0; i < want && ok; i++) {
        ok = copy_node(fdt, nodes[i < have ? i : 0], &copies[i], err);
        if (!ok || i < have)
            continue;
        /* a clone of the first cpu: new hardware id, and a spin-table slot where the board has them */
        NodeCopy *nc = &copies[i];
        uint64_t hwid = clone_hwid(arch, i);
        char *at = strchr(nc->name, '@');
        if (at)
            *at = 0;
        char nm[96];
        snprintf(nm, sizeof nm, "%s@%" PRIx64, nc->name, hwid);
        snprintf(nc->name, sizeof nc->name, "%s", nm);
        uint8_t reg[4 * DT_CELLS_MAX];
        store_be(reg, (unsigned)acells * 4, hwid);
        nc_set(nc, "reg", reg, acells * 4);
        if (arch != ARCH_ARM64) {
            uint64_t stride = arch == ARCH_PPC32 ? 32 : 8;
            uint8_t rel[8];
            store_be(rel, 8, SPIN_TABLE_BASE + stride * (uint64_t)i);
            nc_set(nc, "enable-method", "spin-table", sizeof "spin-table");
            nc_set(nc, "cpu-release-addr", rel, 8);
        }
    }
    /* Delete every cpu node, then insert the copies last-first: each lands before the others. */
    for (int i = have - 1; ok && i >= 0; i--) {
        find_cpus(fdt, nodes, DESC_MAX_CPUS + 1);
        if (fdt_del_node(fdt, nodes[i]) < 0)
            ok = err_set(err, "cannot rebuild /cpus");
    }
    for (int i = want - 1; ok && i >= 0; i--) {
        int nn = fdt_add_subnode(fdt, fdt_path_offset(fdt, "/cpus"), copies[i].name);
        if (nn < 0) {
            ok = err_set(err, "cannot add cpu node %s: %s", copies[i].name, fdt_strerror(nn));
            break;
        }
        for (int k = copies[i].nprops - 1; k >= 0 && ok; k--) {     /* setprop prepends */
            nn = fdt_path_offset(fdt, "/cpus");
            nn = fdt_subnode_offset(fdt, nn, copies[i].name);
            int rc = fdt_setprop(fdt, nn, copies[i].props[k].name, copies[i].props[k].val, copies[i].props[k].len);
            if (rc < 0)
                ok = err_set(err, "cannot set %s on %s: %s", copies[i].props[k].name, copies[i].name,
                               fdt_strerror(rc));
        }
    }
    free(copies);
    return ok;
}

static bool set_cpu_model(void *fdt, Arch arch, const char *name, Error *err)
{
    const CpuModel *model = vcpu_model_find(arch, name);
    if (!model)
        return err_set(err, "--cpu-model %s: unknown for %s (known: %s)", name, isa_name(arch), vcpu_model_list(arch));
    int nodes[DESC_MAX_CPUS + 1];
    int n = find_cpus(fdt, nodes, DESC_MAX_CPUS + 1);
    for (int i = 0; i < n; i++) {
        n = find_cpus(fdt, nodes, DESC_MAX_CPUS + 1);
        int rc = fdt_setprop_string(fdt, nodes[i], "compatible", model->compatible);
        if (rc >= 0 && arch == ARCH_PPC32) {           /* Linux names ppc cpu nodes after the CPU */
            n = find_cpus(fdt, nodes, DESC_MAX_CPUS + 1);
            const char *old = fdt_get_name(fdt, nodes[i], NULL);
            const char *at = strchr(old, '@');
            char nm[96];
            snprintf(nm, sizeof nm, "%s%s", model->compatible, at ? at : "");
            rc = fdt_set_name(fdt, nodes[i], nm);
        }
        if (rc < 0)
            return err_set(err, "cannot set the CPU model: %s", fdt_strerror(rc));
    }
    return true;
}

static bool node_enabled(const void *fdt, int node)
{
    const char *status = fdt_getprop(fdt, node, "status", NULL);
    return !status || !strcmp(status, "okay") || !strcmp(status, "ok");
}

/* The one memory node (device_type "memory", a child of /) of a tree, with one range in its
 * reg: the node --mem resizes.  Its offset, or -1 after an error naming the tree. */
static int the_memory_node(const void *fdt, int acells, int scells, const char *what, Error *err)
{
    int node, found = -1, n = 0;
    fdt_for_each_subnode(node, fdt, 0) {
        const char *dt = fdt_getprop(fdt, node, "device_type", NULL);
        if (dt && !strcmp(dt, "memory") && node_enabled(fdt, node) && n++ == 0)
            found = node;
    }
    char path[128];
    int len = 0;
    if (n != 1)
        err_set(err, "--mem: %s has %d memory nodes; --mem sets the size of exactly one", what, n);
    else if (!fdt_getprop(fdt, found, "reg", &len) || len != 4 * (acells + scells))
        err_set(err, "--mem: %s: node %s: property reg: --mem sets the size of a node with one range",
                what, node_path(fdt, found, path, sizeof path));
    else
        return found;
    return -1;
}

/* --mem: the memory node keeps its base and gets `size` (checked against the rest of the tree,
 * device windows included, by dt_parse). */
static bool set_mem_size(void *fdt, uint64_t size, const char *what, Error *err)
{
    int acells, scells;
    if (!cells_of(fdt, 0, "#address-cells", 2, &acells, err) || !cells_of(fdt, 0, "#size-cells", 1, &scells, err))
        return false;
    int node = the_memory_node(fdt, acells, scells, what, err);
    if (node < 0)
        return false;
    char path[128];
    if (scells < 2 && size > UINT32_MAX)
        return err_set(err, "--mem 0x%" PRIx64 ": %s: node %s: #size-cells = <%d> cannot say more than 4 GiB - 1", size,
                       what, node_path(fdt, node, path, sizeof path), scells);
    uint8_t reg[4 * 2 * DT_CELLS_MAX];
    memcpy(reg, fdt_getprop(fdt, node, "reg", NULL), (size_t)(4 * acells));
    store_be(reg + 4 * acells, (unsigned)(4 * scells), size);
    int rc = fdt_setprop_inplace(fdt, node, "reg", reg, 4 * (acells + scells));
    return rc < 0 ? err_set(err, "--mem: cannot set %s's reg: %s", what, fdt_strerror(rc)) : true;
}

bool dt_set_initrd(void *fdt, uint64_t start, uint64_t end, Error *err)
{
    int acells;
    if (!cells_of(fdt, 0, "#address-cells", 2, &acells, err))
        return false;
    int chosen = fdt_path_offset(fdt, "/chosen");
    if (chosen < 0)
        chosen = fdt_add_subnode(fdt, 0, "chosen");
    uint8_t cell[4 * DT_CELLS_MAX];
    int rc = chosen;
    if (rc >= 0) {
        store_be(cell, (unsigned)(4 * acells), start);
        rc = fdt_setprop(fdt, chosen, "linux,initrd-start", cell, 4 * acells);
    }
    if (rc >= 0) {
        chosen = fdt_path_offset(fdt, "/chosen");
        store_be(cell, (unsigned)(4 * acells), end);
        rc = fdt_setprop(fdt, chosen, "linux,initrd-end", cell, 4 * acells);
    }
    return rc < 0 ? err_set(err, "--initrd: cannot set /chosen/linux,initrd-start and -end: %s", fdt_strerror(rc))
                  : true;
}

/* --gic-version: the interrupt controller node of QEMU's virt memory map (hw/arm/virt.c
 * base_memmap: VIRT_GIC_DIST 0x08000000, VIRT_GIC_CPU 0x08010000, VIRT_GIC_REDIST 0x080a0000),
 * as Linux's bindings describe them (Documentation/devicetree/bindings/interrupt-controller/
 * arm,gic.yaml and arm,gic-v3.yaml). */
#define VIRT_GIC_DIST 0x08000000u
#define VIRT_GIC_DIST_SIZE 0x10000u
#define VIRT_GIC_CPU 0x08010000u
#define VIRT_GIC_CPU_SIZE 0x10000u
#define VIRT_GIC_REDIST 0x080a0000u
#define VIRT_GIC_REDIST_SIZE 0xf60000u

static bool set_gic_version(void *fdt, int version, const char *what, Error *err)
{
    static const char *const gics[] = { "arm,gic-v3", "arm,cortex-a15-gic", "arm,gic-400" };
    int node = -1;
    for (size_t i = 0; i < ARRAY_SIZE(gics) && node < 0; i++)
        node = fdt_node_offset_by_compatible(fdt, -1, gics[i]);
    if (node < 0)
        return err_set(err, "--gic-version: %s has no GIC node (arm,gic-v3, arm,cortex-a15-gic or arm,gic-400)", what);
    uint32_t reg[8] = { 0, cpu_to_fdt32(VIRT_GIC_DIST), 0, cpu_to_fdt32(VIRT_GIC_DIST_SIZE), 0,
                        cpu_to_fdt32(version == 2 ? VIRT_GIC_CPU : VIRT_GIC_REDIST), 0,
                        cpu_to_fdt32(version == 2 ? VIRT_GIC_CPU_SIZE : VIRT_GIC_REDIST_SIZE) };
    int rc = fdt_setprop_string(fdt, node, "compatible", version == 2 ? "arm,cortex-a15-gic" : "arm,gic-v3");
    if (rc >= 0)
        rc = fdt_setprop(fdt, node, "reg", reg, sizeof reg);
    if (rc >= 0 && version == 2)
        rc = fdt_delprop(fdt, node, "#redistributor-regions");
    if (rc >= 0 && version == 3)
        rc = fdt_setprop_u32(fdt, node, "#redistributor-regions", 1);
    if (rc == -FDT_ERR_NOTFOUND)
        rc = 0;
    return rc >= 0 || err_set(err, "--gic-version: cannot edit the GIC node of %s: %s", what, fdt_strerror(rc));
}

void *dt_build(Arch arch, const FdtOptions *opt, Error *err)
{
    size_t bootargs_len = opt->bootargs ? strlen(opt->bootargs) : 0;
    if (bootargs_len > DT_BOOTARGS_MAX) {
        err_set(err, "--bootargs: %zu characters; at most %d are supported (with its NUL the command line "
                "fills 4096 bytes, arm64 Linux's COMMAND_LINE_SIZE)", bootargs_len, DT_BOOTARGS_MAX);
        return NULL;
    }
    uint8_t *src = NULL;
    size_t srclen = 0;
    const char *what = opt->machine_file;
    if (!what) {
        const void *b = dt_board_blob(arch, &srclen);
        src = xcalloc(1, srclen);
        memcpy(src, b, srclen);
        what = "built-in board";
    } else {
        if (!read_whole(what, DT_FILE_MAX, DT_FILE_MAX_TEXT, &src, &srclen, err))
            return NULL;
        if (srclen < 4 || fdt_magic(src) != FDT_MAGIC) {        /* not a blob: DTS source */
            free(src);
            src = dt_compile_dts(what, &srclen, err);
            if (!src)
                return NULL;
        }
    }
    if (srclen >= sizeof(struct fdt_header) && fdt_version(src) < DT_MIN_VERSION) {
        err_set(err, "%s: offset 0x14: device tree blob version %u: pmusim reads versions %u and later (dtc writes 17)",
                what, fdt_version(src), DT_MIN_VERSION);
        free(src);
        return NULL;
    }
    int rc = srclen >= sizeof(struct fdt_header) ? fdt_check_full(src, srclen) : -FDT_ERR_TRUNCATED;
    if (rc < 0) {
        err_set(err, "%s: malformed device tree blob: %s", what, fdt_strerror(rc));
        free(src);
        return NULL;
    }
    if (!check_strings(src, err)) {
        char tmp[sizeof err->msg];
        memcpy(tmp, err->msg, sizeof tmp);
        err_set(err, "%s: %.400s", what, tmp);
        free(src);
        return NULL;
    }
    Arch tarch = dt_arch(src);
    if (tarch != ARCH_NONE && tarch != arch) {
        err_set(err, "%s: the tree describes a %s machine but the guest is %s (root compatible)", what,
                  isa_name(tarch), isa_name(arch));
        free(src);
        return NULL;
    }
    /* Room for every edit: 32 KiB for the /memreserve/ entries and small changes, the bootargs,
     * and up to DESC_MAX_CPUS --cpus clones (each at most a NodeCopy's worth).  The tree (at most
     * DT_FILE_MAX) stays far from INT_MAX; whether the result fits DTB_MAX_SIZE is checked when
     * the DTB is placed in guest RAM. */
    size_t cap = fdt_totalsize(src) + 0x8000 + bootargs_len + 64 + (size_t)DESC_MAX_CPUS * sizeof(NodeCopy);
    void *fdt = xcalloc(1, cap);
    rc = fdt_open_into(src, fdt, (int)cap);
    free(src);
    if (rc < 0) {
        err_set(err, "%s: cannot open the device tree: %s", what, fdt_strerror(rc));
        free(fdt);
        return NULL;
    }
    if (opt->ncpus && !set_cpu_count(fdt, arch, opt->ncpus, what, err))
        goto fail;
    if (opt->cpu_model && !set_cpu_model(fdt, arch, opt->cpu_model, err))
        goto fail;
    if (opt->mem_size && !set_mem_size(fdt, opt->mem_size, what, err))
        goto fail;
    if (opt->gic_version && arch != ARCH_ARM64) {
        err_set(err, "--gic-version: the %s machine has no GIC (arm64 only)", isa_name(arch));
        goto fail;
    }
    if (opt->gic_version && !set_gic_version(fdt, opt->gic_version, what, err))
        goto fail;
    if (opt->bootargs) {
        int chosen = fdt_path_offset(fdt, "/chosen");
        if (chosen < 0)
            chosen = fdt_add_subnode(fdt, 0, "chosen");
        rc = chosen < 0 ? chosen : fdt_setprop_string(fdt, chosen, "bootargs", opt->bootargs);
        if (rc < 0) {
            err_set(err, "cannot set /chosen/bootargs: %s", fdt_strerror(rc));
            goto fail;
        }
    }
    return fdt;
fail:
    free(fdt);
    return NULL;
}

bool dt_reserve(void *fdt, uint64_t addr, uint64_t size, Error *err)
{
    int rc = fdt_add_mem_rsv(fdt, addr, size);
    return rc < 0 ? err_set(err, "cannot add a /memreserve/ entry: %s", fdt_strerror(rc)) : true;
}

uint64_t dt_finish(void *fdt)
{
    fdt_pack(fdt);
    return fdt_totalsize(fdt);
}

/* ------------------------------------------------------------------ parsing */

/* Interrupt controllers: their windows are devices that sim/intc.c makes, not the device table. */
static const char *const interrupt_controllers[] = { "arm,gic-v3", "arm,cortex-a15-gic", "arm,gic-400" };
/* Compatibles consumed by pmusim itself rather than by a device model. */
static const char *const handled_elsewhere[] = { "arm,armv8-timer", "arm,armv8-pmuv3", "arm,psci-1.0",
                                                 "arm,psci-0.2", "arm,psci", "isa", "pmusim,rom", "fixed-clock" };

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], s))
            return true;
    return false;
}

/* The first string of `compatible` pmusim knows, or NULL. */
static const char *known_compatible(const void *fdt, int node, bool *intc, bool *elsewhere)
{
    int len;
    const char *list = fdt_getprop(fdt, node, "compatible", &len);
    *intc = *elsewhere = false;
    for (int i = 0; list && i < fdt_stringlist_count(fdt, node, "compatible"); i++) {
        const char *s = fdt_stringlist_get(fdt, node, "compatible", i, NULL);
        if (!s)
            break;
        if (device_find(s))
            return s;
        if (in_list(interrupt_controllers, ARRAY_SIZE(interrupt_controllers), s)) {
            *intc = true;
            return s;
        }
        if (in_list(handled_elsewhere, ARRAY_SIZE(handled_elsewhere), s)) {
            *elsewhere = true;
            return s;
        }
    }
    return NULL;
}

/* Entry `idx` of a node's reg; false at the end or on error (err set).  acells and scells are
 * already checked (cells_of), so the stride is small. */
static bool parse_reg(const void *fdt, int node, int acells, int scells, uint64_t *base, uint64_t *size, int idx,
                      Error *err)
{
    int len;
    const fdt32_t *p = fdt_getprop(fdt, node, "reg", &len);
    char path[128];
    int cells = acells + scells;
    if (!p)
        return err_set(err, "node %s: property reg is missing", node_path(fdt, node, path, sizeof path));
    if (len % (cells * 4))
        return err_set(err, "node %s: property reg: %d bytes do not fit #address-cells=%d #size-cells=%d",
                       node_path(fdt, node, path, sizeof path), len, acells, scells);
    if (idx >= len / (cells * 4))
        return false;
    *base = read_cells(p + idx * cells, acells);
    *size = read_cells(p + idx * cells + acells, scells);
    return true;
}

static bool parse_cpus(const void *fdt, Arch arch, MachineDesc *d, Error *err)
{
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0)
        return err_set(err, "node /cpus is missing");
    int acells, node;
    if (!cells_of(fdt, cpus, "#address-cells", 1, &acells, err))
        return false;
    char path[128];
    fdt_for_each_subnode(node, fdt, cpus) {
        if (!is_cpu_node(fdt, node))
            continue;
        node_path(fdt, node, path, sizeof path);
        if (d->ncpus == DESC_MAX_CPUS)
            return err_set(err, "node %s: more than %d CPUs", path, DESC_MAX_CPUS);
        CpuDesc *cd = &d->cpus[d->ncpus];
        snprintf(cd->path, sizeof cd->path, "%s", path);
        int len;
        const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
        if (!reg || len != acells * 4)
            return err_set(err, "node %s: property reg: expected %d cell(s) (the CPU's hardware id)", path, acells);
        cd->hwid = read_cells(reg, acells);
        const char *compat = fdt_getprop(fdt, node, "compatible", NULL);
        cd->model = compat ? vcpu_model_find(arch, compat) : vcpu_model_default(arch);
        if (!cd->model)
            return err_set(err, "node %s: property compatible: CPU \"%s\" is not supported for %s (known: %s)",
                             path, compat, isa_name(arch), vcpu_model_list(arch));
        bool bad = false;
        if (!prop_u64(fdt, node, "clock-frequency", &cd->clock_hz, &bad, err)) {
            if (bad)
                return false;
            return err_set(err, "node %s: property clock-frequency is missing (the core clock in Hz)", path);
        }
        if (cd->clock_hz == 0)
            return err_set(err, "node %s: property clock-frequency: must not be 0", path);
        if (arch == ARCH_PPC32 && !prop_u64(fdt, node, "timebase-frequency", &cd->timebase_hz, &bad, err)) {
            if (bad)
                return false;
            return err_set(err, "node %s: property timebase-frequency is missing", path);
        }
        if (arch == ARCH_PPC32 && (cd->timebase_hz == 0 || cd->timebase_hz > cd->clock_hz))
            return err_set(err, "node %s: property timebase-frequency: must be between 1 and clock-frequency", path);
        prop_u64(fdt, node, "pmusim,tpidr-el1", &cd->tpidr_el1, &bad, err);
        if (bad)
            return false;
        const char *em = fdt_getprop(fdt, node, "enable-method", NULL);
        if (d->ncpus == 0)
            cd->enable = ENABLE_BOOT;
        else if (!em && arch == ARCH_X86_64)
            cd->enable = ENABLE_SIPI;       /* a PC's way: INIT/SIPI through the local APIC */
        else if (!em)
            return err_set(err, "node %s: property enable-method is missing: a secondary CPU needs one", path);
        else if (!strcmp(em, "psci") && arch == ARCH_ARM64)
            cd->enable = ENABLE_PSCI;
        else if (!strcmp(em, "spin-table")) {
            cd->enable = ENABLE_SPIN_TABLE;
            if (!prop_u64(fdt, node, "cpu-release-addr", &cd->release_addr, &bad, err))
                return bad ? false : err_set(err, "node %s: property cpu-release-addr is missing", path);
        } else
            return err_set(err, "node %s: property enable-method: \"%s\" is not supported for %s", path, em,
                             isa_name(arch));
        if (d->ncpus && cd->clock_hz != d->cpus[0].clock_hz)
            return err_set(err, "node %s: property clock-frequency: all CPUs must share one clock", path);
        for (int i = 0; i < d->ncpus; i++)
            if (d->cpus[i].hwid == cd->hwid)
                return err_set(err, "node %s: property reg: hardware id 0x%" PRIx64 " is used twice", path, cd->hwid);
        d->ncpus++;
    }
    if (!d->ncpus)
        return err_set(err, "node /cpus has no cpu nodes (device_type = \"cpu\")");
    return true;
}

/* The GIC's interrupt specifier (Linux's arm,gic-v3.yaml and arm,gic.yaml): <type number flags>,
 * type 0 an SPI (INTID 32 + number), 1 a PPI (INTID 16 + number). */
enum { GIC_SPEC_SPI = 0, GIC_SPEC_PPI = 1, GIC_SPEC_CELLS = 3 };

/* Entry idx of a node's `interrupts`, which must be a PPI: its INTID; 0 without the property. */
static bool parse_ppi(const void *fdt, int node, const char *path, int idx, unsigned *intid, Error *err)
{
    int len;
    const fdt32_t *p = fdt_getprop(fdt, node, "interrupts", &len);
    *intid = 0;
    if (!p)
        return true;
    if (len % (GIC_SPEC_CELLS * 4) || len / (GIC_SPEC_CELLS * 4) <= idx)
        return err_set(err, "node %s: property interrupts: %d bytes are not %d or more <type number flags> "
                       "entries", path, len, idx + 1);
    uint32_t type = fdt32_to_cpu(p[idx * GIC_SPEC_CELLS]), num = fdt32_to_cpu(p[idx * GIC_SPEC_CELLS + 1]);
    if (type != GIC_SPEC_PPI || num >= 16)
        return err_set(err, "node %s: property interrupts: entry %d is <%u %u ...>, not a PPI (<1 0..15 ...>)", path,
                       idx, type, num);
    *intid = 16 + num;
    return true;
}

/* The timer's PPIs (entries 1 and 2: non-secure physical and virtual; Linux's
 * arm,arch_timer.yaml) and the PMU's. */
static bool parse_local_irqs(const void *fdt, int node, const char *compat, const char *path, MachineDesc *d,
                             Error *err)
{
    if (!strcmp(compat, "arm,armv8-pmuv3")) {
        snprintf(d->pmu_path, sizeof d->pmu_path, "%s", path);
        return parse_ppi(fdt, node, path, 0, &d->pmu_intid, err);
    }
    snprintf(d->timer_path, sizeof d->timer_path, "%s", path);
    return parse_ppi(fdt, node, path, 1, &d->timer_intid[0], err) && parse_ppi(fdt, node, path, 2, &d->timer_intid[1], err);
}

/* A device's interrupts: SPIs of the GIC (the only controller pmusim models). */
static bool check_spis(const DevDesc *dd, const char *gic, Error *err)
{
    if (!dd->nirqs || dd->intc)
        return true;
    if (strcmp(dd->irq_parent, gic))
        return err_set(err, "node %s: property interrupts: its interrupt parent %s is not the GIC %s", dd->path,
                       dd->irq_parent, gic);
    for (int k = 0; k < dd->nirqs; k++)
        if (dd->irqs[k].cell[0] != GIC_SPEC_SPI || dd->irqs[k].cell[1] >= GIC_NR_SPIS)
            return err_set(err, "node %s: property interrupts: entry %d is <%u %u ...>, not one of the GIC's SPIs "
                           "(<0 0..%d ...>)", dd->path, k, dd->irqs[k].cell[0], dd->irqs[k].cell[1], GIC_NR_SPIS - 1);
    return true;
}

/* With a GIC, the timer and the PMU must say which PPIs they raise; the GIC node must be an
 * interrupt controller with 3-cell specifiers. */
static bool check_interrupts(const void *fdt, const MachineDesc *d, Error *err)
{
    const DevDesc *gic = NULL;
    for (int i = 0; i < d->ndevs && !gic; i++)
        gic = d->devs[i].intc ? &d->devs[i] : NULL;
    if (!gic)
        return true;
    int node = fdt_path_offset(fdt, gic->path), len;
    const fdt32_t *cells = fdt_getprop(fdt, node, "#interrupt-cells", &len);
    if (!fdt_getprop(fdt, node, "interrupt-controller", NULL))
        return err_set(err, "node %s: property interrupt-controller is missing", gic->path);
    if (!cells || len != 4 || fdt32_to_cpu(*cells) != GIC_SPEC_CELLS)
        return err_set(err, "node %s: property #interrupt-cells: must be <3> (<type number flags>)", gic->path);
    if (d->timer_path[0] && !d->timer_intid[0])
        return err_set(err, "node %s: property interrupts is missing (the timers' PPIs, which the GIC needs)",
                       d->timer_path);
    if (d->pmu_path[0] && !d->pmu_intid)
        return err_set(err, "node %s: property interrupts is missing (the PMU's PPI, which the GIC needs)", d->pmu_path);
    for (int i = 0; i < d->ndevs; i++)
        if (!check_spis(&d->devs[i], gic->path, err))
            return false;
    return true;
}

/* A node's interrupt parent: its interrupt-parent, else its parent's, up to the root (the
 * Devicetree Specification v0.4, 2.4.1); a negative libfdt error if none names a node. */
static int irq_parent(const void *fdt, int node)
{
    for (int n = node; n >= 0; n = fdt_parent_offset(fdt, n)) {
        int len;
        const fdt32_t *p = fdt_getprop(fdt, n, "interrupt-parent", &len);
        if (p)
            return len == 4 ? fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*p)) : -FDT_ERR_BADVALUE;
    }
    return -FDT_ERR_NOTFOUND;
}

/* `interrupts`: whole entries of the parent's #interrupt-cells, at most DEV_MAX_IRQS of them. */
static bool parse_irqs(const void *fdt, int node, const char *path, DevDesc *dd, Error *err)
{
    int len, clen;
    const fdt32_t *p = fdt_getprop(fdt, node, "interrupts", &len);
    if (!p)
        return true;
    int parent = irq_parent(fdt, node);
    if (parent < 0)
        return err_set(err, "node %s: property interrupts: no interrupt-parent names the controller", path);
    node_path(fdt, parent, dd->irq_parent, sizeof dd->irq_parent);
    const fdt32_t *cells = fdt_getprop(fdt, parent, "#interrupt-cells", &clen);
    uint32_t nc = cells && clen == 4 ? fdt32_to_cpu(*cells) : 0;
    if (nc < 1 || nc > DEV_IRQ_CELLS_MAX)
        return err_set(err, "node %s: property interrupts: the interrupt parent %s needs #interrupt-cells of 1 to %d",
                       path, dd->irq_parent, DEV_IRQ_CELLS_MAX);
    if (len % (int)(nc * 4) || len / (int)(nc * 4) > DEV_MAX_IRQS)
        return err_set(err, "node %s: property interrupts: %d bytes are not 1 to %d entries of %u cells "
                       "(#interrupt-cells of %s)", path, len, DEV_MAX_IRQS, nc, dd->irq_parent);
    dd->irq_cells = nc;
    dd->nirqs = len / (int)(nc * 4);
    for (int i = 0; i < dd->nirqs; i++)
        for (uint32_t k = 0; k < nc; k++)
            dd->irqs[i].cell[k] = fdt32_to_cpu(p[i * nc + k]);
    return true;
}

/* The largest #clock-cells of a provider pmusim steps over in a `clocks` list. */
#define DT_CLOCK_CELLS_MAX 4

/* Without clock-frequency, the rate of the clock `clocks` names (the one clock-names calls
 * "uartclk", the PL011's, else the first): a fixed clock's clock-frequency (bindings/clock/
 * fixed-clock.yaml). */
static bool parse_clock(const void *fdt, int node, const char *path, DevDesc *dd, Error *err)
{
    int len;
    const fdt32_t *p = fdt_getprop(fdt, node, "clocks", &len);
    if (dd->clock_hz || !p)
        return true;
    int want = fdt_stringlist_search(fdt, node, "clock-names", "uartclk");
    want = want < 0 ? 0 : want;
    for (int at = 0, i = 0; at < len / 4; i++) {
        int prov = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(p[at]));
        uint64_t cc = 0;
        bool bad = false;
        if (prov < 0 || !prop_u64(fdt, prov, "#clock-cells", &cc, &bad, err) || cc > DT_CLOCK_CELLS_MAX)
            return bad ? false : err_set(err, "node %s: property clocks: entry %d names no clock provider with "
                                         "#clock-cells of 0 to %d", path, i, DT_CLOCK_CELLS_MAX);
        if (i == want) {
            char prov_path[128];
            if (!prop_u64(fdt, prov, "clock-frequency", &dd->clock_hz, &bad, err) || !dd->clock_hz)
                return bad ? false : err_set(err, "node %s: property clocks: %s has no clock-frequency (pmusim reads "
                                             "fixed clocks)", path, node_path(fdt, prov, prov_path, sizeof prov_path));
            return true;
        }
        at += 1 + (int)cc;
    }
    return true;
}

static bool add_dev(MachineDesc *d, const void *fdt, int node, const char *compat, uint64_t base, uint64_t size,
                    bool io, bool intc, Error *err)
{
    char path[128];
    node_path(fdt, node, path, sizeof path);
    if (d->ndevs == DESC_MAX_DEVS)
        return err_set(err, "node %s: too many devices", path);
    DevDesc *dd = &d->devs[d->ndevs++];
    snprintf(dd->path, sizeof dd->path, "%s", path);
    snprintf(dd->compatible, sizeof dd->compatible, "%s", compat);
    dd->base = base;
    dd->size = size;
    dd->io = io;
    dd->intc = intc;
    bool bad = false;
    prop_u64(fdt, node, "clock-frequency", &dd->clock_hz, &bad, err);
    return !bad && parse_clock(fdt, node, path, dd, err) && parse_irqs(fdt, node, path, dd, err);
}

/* /chosen stdout-path: a path or an alias, then ":options" (the console's node, for console
 * input); "" when it names no node. */
static void parse_stdout_path(const void *fdt, MachineDesc *d)
{
    int chosen = fdt_path_offset(fdt, "/chosen");
    const char *sp = chosen < 0 ? NULL : fdt_getprop(fdt, chosen, "stdout-path", NULL);
    if (!sp)
        return;
    const char *colon = strchr(sp, ':');
    int node = fdt_path_offset_namelen(fdt, sp, colon ? (int)(colon - sp) : (int)strlen(sp));
    if (node >= 0)
        node_path(fdt, node, d->stdout_path, sizeof d->stdout_path);
}

static void add_mem(MachineDesc *d, const char *path, uint64_t base, uint64_t size, bool rom)
{
    MemDesc *md = &d->mem[d->nmem++];
    *md = (MemDesc){ .base = base, .size = size, .rom = rom };
    snprintf(md->path, sizeof md->path, "%s", path);
}

/* ------------------------------------------------------------------ windows */

/* What the CPUs can address; no window may reach beyond it (so none wraps either).  x86-64:
 * MAXPHYADDR is at most 52 (Intel SDM Vol. 3A §4.1.4); arm64: 52 with FEAT_LPA; MPC7450: 36-bit
 * extended physical addresses (HID0[XAEN], MPC7450 RM §5.1). */
static unsigned phys_bits(Arch arch)
{
    return arch == ARCH_PPC32 ? 36 : 52;
}

typedef struct Window {
    const char *path;               /* the node */
    const char *what;               /* "memory", "device window", ... */
    uint64_t base, size;
} Window;

static bool window_fits(const Window *w, Arch arch, Error *err)
{
    unsigned bits = phys_bits(arch);
    uint64_t top = 1ull << bits;
    if (!w->size)
        return err_set(err, "node %s: property reg: the %s at 0x%" PRIx64 " is empty", w->path, w->what, w->base);
    if (w->base >= top || w->size > top - w->base)
        return err_set(err, "node %s: property reg: the %s 0x%" PRIx64 "+0x%" PRIx64 " goes beyond the %u-bit "
                       "physical address space of %s", w->path, w->what, w->base, w->size, bits, isa_name(arch));
    return true;
}

/* Memory and MMIO windows are mapped into the engines in whole 4 KiB pages: two that share a
 * page cannot both be mapped. */
static bool windows_apart(const Window *a, const Window *b, Error *err)
{
    uint64_t a0 = a->base >> 12, a1 = (a->base + a->size - 1) >> 12;
    uint64_t b0 = b->base >> 12, b1 = (b->base + b->size - 1) >> 12;
    if (a0 > b1 || b0 > a1)
        return true;
    return err_set(err, "node %s: property reg: the %s 0x%" PRIx64 "+0x%" PRIx64 " shares a 4 KiB page with the %s "
                   "0x%" PRIx64 "+0x%" PRIx64 " of node %s (pmusim maps memory and devices in whole pages)",
                   b->path, b->what, b->base, b->size, a->what, a->base, a->size, a->path);
}

/* I/O ports: inside the port space (x86: 64 Ki ports; ppc32: the ISA window), none shared. */
static bool ports_ok(const MachineDesc *d, Error *err)
{
    uint64_t nports = d->isa_window ? d->isa_size : 0x10000;
    for (int i = 0; i < d->ndevs; i++) {
        const DevDesc *x = &d->devs[i];
        if (!x->io)
            continue;
        if (!x->size || x->base >= nports || x->size > nports - x->base)
            return err_set(err, "node %s: property reg: ports 0x%" PRIx64 "+0x%" PRIx64 " are empty or outside the "
                           "0x%" PRIx64 " ports of the I/O space", x->path, x->base, x->size, nports);
        for (int k = 0; k < i; k++) {
            const DevDesc *y = &d->devs[k];
            if (y->io && x->base < y->base + y->size && y->base < x->base + x->size)
                return err_set(err, "node %s: property reg: ports 0x%" PRIx64 "+0x%" PRIx64 " overlap those of "
                               "node %s", x->path, x->base, x->size, y->path);
        }
    }
    return true;
}

static bool ram_ok(const MachineDesc *d, Error *err)
{
    uint64_t total = 0;
    for (int i = 0; i < d->nmem; i++) {
        total += d->mem[i].size;        /* each is below 2^52 (window_fits): no overflow */
        if (total > DT_RAM_MAX)
            return err_set(err, "node %s: property reg: 0x%" PRIx64 " bytes of memory in all, more than pmusim's "
                           DT_RAM_MAX_TEXT, d->mem[i].path, total);
    }
    return true;
}

static bool check_windows(const MachineDesc *d, Error *err)
{
    Window w[DESC_MAX_MEM + DESC_MAX_DEVS + 1];
    int n = 0;
    for (int i = 0; i < d->nmem; i++)
        w[n++] = (Window){ d->mem[i].path, d->mem[i].rom ? "ROM" : "memory range", d->mem[i].base, d->mem[i].size };
    for (int i = 0; i < d->ndevs; i++)
        if (!d->devs[i].io)
            w[n++] = (Window){ d->devs[i].path, "device window", d->devs[i].base, d->devs[i].size };
    if (d->isa_window)
        w[n++] = (Window){ d->isa_path, "ISA I/O window", d->isa_base, d->isa_size };
    for (int i = 0; i < n; i++) {
        if (!window_fits(&w[i], d->arch, err))
            return false;
        for (int k = 0; k < i; k++)
            if (!windows_apart(&w[k], &w[i], err))
                return false;
    }
    return ram_ok(d, err) && ports_ok(d, err);
}

/* An ISA child is a device model or nothing: the compatibles pmusim handles itself (a PSCI or
 * timer node, another bus, a ROM) and the interrupt controllers mean nothing on an I/O port. */
static bool parse_isa_child(const void *fdt, int node, MachineDesc *d, Error *err)
{
    char path[128];
    node_path(fdt, node, path, sizeof path);
    bool intc, elsewhere;
    const char *compat = known_compatible(fdt, node, &intc, &elsewhere);
    if (!compat) {
        const char *c0 = fdt_getprop(fdt, node, "compatible", NULL);
        return err_set(err, "node %s: property compatible: \"%s\" is not supported by pmusim", path,
                       c0 ? c0 : "(none)");
    }
    if (intc || elsewhere)
        return err_set(err, "node %s: property compatible: \"%s\" is not an ISA device (pmusim accepts it only "
                       "as a child of /)", path, compat);
    int len;
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    if (!reg || !len || len % 12)
        return err_set(err, "node %s: property reg: expected <space address size> entries (3 cells each)", path);
    for (int i = 0; i < len / 12; i++) {       /* several windows: one device (sim/dev/device.h) */
        if (fdt32_to_cpu(reg[3 * i]) != 1)
            return err_set(err, "node %s: property reg: entry %d: only I/O space (1) ISA devices are supported",
                           path, i);
        if (!add_dev(d, fdt, node, compat, fdt32_to_cpu(reg[3 * i + 1]), fdt32_to_cpu(reg[3 * i + 2]), true, false, err))
            return false;
    }
    return true;
}

/* `pac`: the root's #address-cells, already checked. */
static bool parse_isa(const void *fdt, int isa, Arch arch, int pac, MachineDesc *d, Error *err)
{
    char path[128];
    node_path(fdt, isa, path, sizeof path);
    if (d->isa_path[0])
        return err_set(err, "node %s: a second ISA bus (the first is %s; pmusim models one)", path, d->isa_path);
    snprintf(d->isa_path, sizeof d->isa_path, "%s", path);
    int len;
    const fdt32_t *ranges = fdt_getprop(fdt, isa, "ranges", &len);
    if (ranges && len > 0) {
        /* <1 0 cpu-address size>: the I/O space mapped into memory (ppc32 PReP). */
        if (len != (3 + pac) * 4 || fdt32_to_cpu(ranges[0]) != 1 || fdt32_to_cpu(ranges[1]) != 0)
            return err_set(err, "node %s: property ranges: expected <1 0 cpu-address size> for the I/O space", path);
        d->isa_window = true;
        d->isa_base = read_cells(ranges + 2, pac);
        d->isa_size = fdt32_to_cpu(ranges[2 + pac]);
    } else if (arch != ARCH_X86_64) {
        return err_set(err, "node %s: without ranges the ISA I/O space needs x86 port instructions", path);
    }
    int node;
    fdt_for_each_subnode(node, fdt, isa) {
        const char *status = fdt_getprop(fdt, node, "status", NULL);
        if (status && strcmp(status, "okay") && strcmp(status, "ok"))
            continue;
        if (!parse_isa_child(fdt, node, d, err))
            return false;
    }
    return true;
}

bool dt_parse(const void *fdt, Arch arch, MachineDesc *d, Error *err)
{
    memset(d, 0, sizeof *d);
    err->msg[0] = 0;
    d->arch = arch;
    const char *model = fdt_getprop(fdt, 0, "model", NULL);
    snprintf(d->model, sizeof d->model, "%s", model ? model : "(unnamed)");
    int acells, scells;
    if (!check_strings(fdt, err) || !cells_of(fdt, 0, "#address-cells", 2, &acells, err) ||
        !cells_of(fdt, 0, "#size-cells", 1, &scells, err))
        return false;
    if (!scells)
        return err_set(err, "node /: property #size-cells: 0, but memory and device windows need a size");
    if (!parse_cpus(fdt, arch, d, err))
        return false;
    char path[128];
    int node;
    fdt_for_each_subnode(node, fdt, 0) {
        node_path(fdt, node, path, sizeof path);
        const char *name = fdt_get_name(fdt, node, NULL);
        const char *status = fdt_getprop(fdt, node, "status", NULL);
        if (status && strcmp(status, "okay") && strcmp(status, "ok"))
            continue;
        const char *dtype = fdt_getprop(fdt, node, "device_type", NULL);
        if (dtype && !strcmp(dtype, "memory")) {
            uint64_t base, size;
            for (int i = 0; parse_reg(fdt, node, acells, scells, &base, &size, i, err); i++) {
                if (d->nmem == DESC_MAX_MEM)
                    return err_set(err, "node %s: too many memory ranges", path);
                add_mem(d, path, base, size, false);
            }
            if (err->msg[0])
                return false;
            continue;
        }
        if (!strcmp(name, "cpus") || !strcmp(name, "chosen") || !strcmp(name, "aliases") ||
            !strcmp(name, "reserved-memory"))
            continue;
        bool intc, elsewhere;
        const char *compat = known_compatible(fdt, node, &intc, &elsewhere);
        const char *c0 = fdt_getprop(fdt, node, "compatible", NULL);
        if (!c0)
            continue;               /* describes nothing pmusim models */
        if (!compat)
            return err_set(err, "node %s: property compatible: \"%s\" is not supported by pmusim", path, c0);
        if (!strcmp(compat, "isa")) {
            if (!parse_isa(fdt, node, arch, acells, d, err))
                return false;
        } else if (!strncmp(compat, "arm,psci", 8)) {
            const char *method = fdt_getprop(fdt, node, "method", NULL);
            if (arch != ARCH_ARM64)
                return err_set(err, "node %s: PSCI is an arm64 interface", path);
            if (!method || strcmp(method, "hvc"))
                return err_set(err, "node %s: property method: \"%s\" is not supported (pmusim implements PSCI"
                                 " through HVC)", path, method ? method : "(missing)");
            d->psci = true;
        } else if (!strcmp(compat, "arm,armv8-pmuv3")) {
            if (!parse_local_irqs(fdt, node, compat, path, d, err))
                return false;
        } else if (!strcmp(compat, "arm,armv8-timer")) {
            bool bad = false;
            if (!parse_local_irqs(fdt, node, compat, path, d, err))
                return false;
            if (!prop_u64(fdt, node, "clock-frequency", &d->timer_hz, &bad, err))
                return bad ? false : err_set(err, "node %s: property clock-frequency is missing (CNTFRQ_EL0)", path);
            if (!d->timer_hz || d->timer_hz > d->cpus[0].clock_hz)
                return err_set(err, "node %s: property clock-frequency: must be between 1 and the CPU clock", path);
        } else if (!strcmp(compat, "pmusim,rom")) {
            uint64_t base, size;
            if (!parse_reg(fdt, node, acells, scells, &base, &size, 0, err))
                return false;
            if (d->nmem == DESC_MAX_MEM)
                return err_set(err, "node %s: too many memory ranges", path);
            add_mem(d, path, base, size, true);
        } else if (!elsewhere) {
            uint64_t base, size;
            for (int i = 0; parse_reg(fdt, node, acells, scells, &base, &size, i, err); i++)
                if (!add_dev(d, fdt, node, compat, base, size, false, intc, err))
                    return false;
            if (err->msg[0])
                return false;
        }
    }
    parse_stdout_path(fdt, d);
    if (!d->nmem)
        return err_set(err, "the tree has no memory node (device_type = \"memory\")");
    if (arch == ARCH_ARM64 && !d->timer_hz)
        return err_set(err, "node /timer (arm,armv8-timer) with clock-frequency is missing");
    for (int i = 0; i < d->ncpus; i++)
        if (d->cpus[i].enable == ENABLE_PSCI && !d->psci)
            return err_set(err, "node %s: enable-method \"psci\" but the tree has no psci node", d->cpus[i].path);
    return check_interrupts(fdt, d, err) && check_windows(d, err);
}
