/* checkpoint.c — machine checkpoints (format in checkpoint.h). */
#include "sim/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/tunables.h"
#include "sim/dev/uart_rx.h"
#include "sim/devices.h"
#include "sim/machine.h"

#define CK_MAGIC "PMUSIMCK"
#define CK_VERSION 5u
#define CK_HEADER 36u               /* magic .. options */
#define CK_LENGTH_AT 24u
#define CK_OPTIONS_AT 32u
#define CK_CRC 4u                   /* the trailer */
/* What a checkpoint may hold beyond guest RAM (CPU, device and tool state: the profile and the
 * violations grow with the run).  A file larger than RAM plus this is refused unread. */
#define CK_MAX_STATE (1ull << 30)
/* How far past the round's end a CPU's clock may be at a checkpoint: the last block it ran
 * (at most a few thousand cycles) and the entries it took.  A clock further on, or behind the
 * machine's, is refused: the machine would spend the run catching up. */
#define CK_MAX_OVERSHOOT (1ull << 20)
/* The longest string a section holds (a violation's text is under 512 bytes). */
#define CK_MAX_STR 1024u

/* The versions of the sections this file writes itself (the models' are beside their tables):
 * raise one when its state changes, and read the older ones (base/state.h). */
#define CK_MACHINE_VERSION 1u
#define CK_CPU_VERSION 2u             /* 2: --inject stall's state */
#define CK_CODE_VERSION 1u
#define CK_MEMORY_VERSION 1u
#define CK_WINDOWS_VERSION 1u
#define CK_CONSOLE_INPUT_VERSION 1u
#define CK_END_VERSION 1u

/* The options whose state is in the file (header offset 32). */
enum {
    CK_OPT_CHECK_PATCHING = 1, CK_OPT_ICACHE_STRICT = 2, CK_OPT_SAMPLES = 4,
    CK_OPT_CONSOLE_INPUT = 8,       /* the run had console input: the "console-input" section */
    CK_OPT_ALL = 15,
};

/* ------------------------------------------------------------------ machine state */


static uint32_t options_of(const Machine *m)
{
    return (m->patchcheck ? CK_OPT_CHECK_PATCHING : 0) | (m->icache ? CK_OPT_ICACHE_STRICT : 0) |
           (m->profile ? CK_OPT_SAMPLES : 0) | (m->conin.in.rx ? CK_OPT_CONSOLE_INPUT : 0);
}

static const StateField cpu_fields[] = {
    STATE_UPTO(Cpu, state, CPU_DEAD),
    STATE_FIELD(Cpu, hwid),
    STATE_FIELD(Cpu, insns),
    STATE_FIELD(Cpu, cycles),
    STATE_FIELD(Cpu, idle_cycles),
    STATE_FIELD(Cpu, exc.serialized),
    STATE_FIELD(Cpu, exc.serialized_at),
    STATE_FIELD(Cpu, exc.insns_at),
    STATE_UPTO(Cpu, exc.repeats, EXCEPTION_LOOP_LIMIT),
    STATE_FIELD(Cpu, pev.loads),
    STATE_FIELD(Cpu, pev.stores),
    STATE_FIELD(Cpu, pev.memops),
    STATE_BOOL(Cpu, pins.nmi),
    STATE_BOOL(Cpu, pins.irq),
    STATE_BOOL(Cpu, start.pending),
    STATE_FIELD(Cpu, start.entry),
    STATE_FIELD(Cpu, start.arg),
    STATE_FIELD(Cpu, start.at),
    STATE_FIELD(Cpu, pev.branches),
    STATE_FIELD(Cpu, pev.br_misses),
    STATE_ARRAY(Cpu, bp.pht),
    STATE_ARRAY(Cpu, bp.btb),
    STATE_ARRAY(Cpu, bp.ras),
    STATE_UPTO(Cpu, bp.ras_top, BP_RAS - 1),
    STATE_UPTO(Cpu, bp.ras_n, BP_RAS),
    /* --inject stall (cpu.h CpuStall): which stalls began, the one in progress and its end; the
     * stalls themselves are the restoring run's --inject options */
    STATE_UPTO_V(Cpu, stall.next, MAX_CPU_STALLS, 2),
    STATE_BOOL_V(Cpu, stall.active, 2),
    STATE_BOOL_V(Cpu, stall.in_nmi, 2),
    STATE_FIELD_V(Cpu, stall.end, 2),
};

/* The CPU's section holds its backend's (CpuOps.save writes it, named after the backend). */
static void save_cpu(Cpu *c, Blob *b)
{
    vcpu_mem_flush(c);               /* the current block's loads/stores into the saved totals */
    size_t at = blob_begin(b, "cpu", CK_CPU_VERSION);
    blob_fields(b, c, cpu_fields, ARRAY_SIZE(cpu_fields));
    blob_str(b, c->stop_reason);
    /* a PMU event firing before the restored CPU retires anything names this instruction */
    blob_u64(b, vcpu_last_retired_pc(c));
    c->ops->save(c, b);
    blob_end(b, at);
}

/* A restored stop reason, kept for the life of the process like the literals it stands for:
 * one copy per distinct text, reachable from here (not a leak however often restored). */
static const char *intern_reason(char *s)
{
    static char **pool;
    static size_t n, cap;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(pool[i], s)) {
            free(s);
            return pool[i];
        }
    if (n == cap) {
        cap = cap ? 2 * cap : 16;
        pool = xrealloc(pool, cap * sizeof *pool);
    }
    return pool[n++] = s;
}

static bool load_cpu(Cpu *c, BlobReader *r)
{
    if (!br_fields(r, c, cpu_fields, ARRAY_SIZE(cpu_fields)))
        return false;
    /* every CPU ran to the round's end (machine time) and at most a block beyond it */
    const Clock *clk = c->cl->clock;
    if (c->cycles < clk->now || c->cycles - clk->now > clk->quantum + CK_MAX_OVERSHOOT || c->idle_cycles > c->cycles)
        return br_fail(r, "cycles (not at the machine's time)");
    char *why = br_str(r, 256, "stop reason");
    if (!r->ok) {
        free(why);
        return false;
    }
    c->stop_reason = intern_reason(why);
    c->prev_last_pc = br_u64(r);
    /* no block in progress: the first block hook starts afresh, as on a new CPU */
    c->blk = NULL;
    c->blk_counted = c->prof.from = c->mem_from = 0;
    c->br_done = false;
    /* --icount-check compares the restored part: the reference count starts where the exact
     * count was saved */
    c->ref.insns = c->insns;
    return r->ok && c->ops->load(c, r);
}

static const uint8_t zero_page[GUEST_PAGE];

static bool page_is_zero(const uint8_t *p)
{
    return !memcmp(p, zero_page, GUEST_PAGE);
}

/* Pages looked at a chunk at a time: which the host ever backed (mem_pages_backed) decides
 * which are read at all. */
#define CK_PAGE_CHUNK 4096u

/* RAM as: for each page, a flag byte (0 = all zero) and the page if not. */
static void save_block(const RamBlock *rb, Blob *b)
{
    static uint8_t backed[CK_PAGE_CHUNK];
    uint64_t pages = rb->size / GUEST_PAGE;
    for (uint64_t p = 0; p < pages; p += CK_PAGE_CHUNK) {
        uint64_t n = pages - p < CK_PAGE_CHUNK ? pages - p : CK_PAGE_CHUNK;
        mem_pages_backed(rb, p, n, backed);
        for (uint64_t i = 0; i < n; i++) {
            const uint8_t *page = rb->host + (p + i) * GUEST_PAGE;
            bool nz = backed[i] && !page_is_zero(page);
            blob_u8(b, nz);
            if (nz)
                blob_put(b, page, GUEST_PAGE);
        }
    }
}

static void save_memory(Machine *m, Blob *b)
{
    blob_u32(b, (uint32_t)m->mem.n);
    for (int i = 0; i < m->mem.n; i++) {
        const RamBlock *rb = &m->mem.blk[i];
        blob_u64(b, rb->base);
        blob_u64(b, rb->size);
        save_block(rb, b);
    }
}

/* A page of code whose bytes a restore changes (time travel restores into a machine that has
 * run): every CPU drops what it translated and decoded from the old bytes. */
static void code_page_changed(Machine *m, uint64_t pa)
{
    if (!mem_page_is_code(&m->mem, pa))
        return;
    for (int i = 0; i < m->cl.ncpus; i++)
        vcpu_invalidate_code(m->cl.cpus[i], pa, pa + GUEST_PAGE);
}

/* One page of the checkpoint into `page`; true if its bytes changed. */
static bool load_page(uint8_t *page, bool backed, BlobReader *r)
{
    uint8_t nz = br_u8(r);
    if (nz > 1)
        return br_fail(r, "page flag");
    if (nz) {
        if (r->ok && r->off + GUEST_PAGE <= r->len && !memcmp(page, r->p + r->off, GUEST_PAGE)) {
            r->off += GUEST_PAGE;   /* the same bytes: a page not written since is not copied */
            return false;
        }
        return br_get(r, page, GUEST_PAGE);
    }
    if (!backed || page_is_zero(page))
        return false;
    memset(page, 0, GUEST_PAGE);
    return true;
}

/* A page the checkpoint has as zero is cleared unless it is already (reading a page never
 * written costs no memory, and one never touched is not even read). */
static void load_block(Machine *m, RamBlock *rb, BlobReader *r)
{
    static uint8_t backed[CK_PAGE_CHUNK];
    uint64_t pages = rb->size / GUEST_PAGE;
    for (uint64_t p = 0; p < pages && r->ok; p += CK_PAGE_CHUNK) {
        uint64_t n = pages - p < CK_PAGE_CHUNK ? pages - p : CK_PAGE_CHUNK;
        mem_pages_backed(rb, p, n, backed);
        for (uint64_t i = 0; i < n && r->ok; i++)
            if (load_page(rb->host + (p + i) * GUEST_PAGE, backed[i], r) && r->ok)
                code_page_changed(m, rb->base + (p + i) * GUEST_PAGE);
    }
}

static bool load_memory(Machine *m, BlobReader *r)
{
    if (br_u32(r) != (uint32_t)m->mem.n)
        return br_fail(r, "another RAM layout");
    for (int i = 0; i < m->mem.n; i++) {
        RamBlock *rb = &m->mem.blk[i];
        if (br_u64(r) != rb->base || br_u64(r) != rb->size)
            return br_fail(r, "another RAM layout");
        load_block(m, rb, r);
    }
    return r->ok;
}

static void save_code(Machine *m, Blob *b)
{
    blob_u64(b, m->cl.cw.writes);
    blob_u32(b, (uint32_t)m->cl.cw.n);
    for (int i = 0; i < m->cl.cw.n; i++) {
        blob_u64(b, m->cl.cw.ranges[i].start);
        blob_u64(b, m->cl.cw.ranges[i].end);
    }
}

static bool load_code(Machine *m, BlobReader *r)
{
    m->cl.cw.writes = br_u64(r);
    uint32_t nr = br_count(r, 16, UINT32_MAX, "code range count");
    for (uint32_t i = 0; i < nr && r->ok; i++) {
        uint64_t s = br_u64(r), e = br_u64(r);
        if (r->ok && (s >= e || !mem_ptr(&m->mem, s, e - s))) {
            r->off -= 16;
            return br_fail(r, "a code range outside RAM");
        }
        codewatch_add_range(&m->cl.cw, s, e);
        for (uint64_t a = s & ~(GUEST_PAGE - 1); a < e; a += GUEST_PAGE)
            if (!mem_page_is_code(&m->mem, a))
                mem_note_code_page(&m->mem, a);
    }
    return r->ok;
}

/* --samples: what the CPUs' current blocks retired goes into the profile first (the
 * restored CPUs start without a block), then each CPU's sampling-window flag (the profile is
 * the next section, tracer/profile.c's). */
static void save_windows(Machine *m, Blob *b)
{
    for (int i = 0; i < m->cl.ncpus; i++)
        vcpu_profile_flush(m->cl.cpus[i]);
    for (int i = 0; i < m->cl.ncpus; i++)
        blob_u8(b, m->cl.cpus[i]->prof.window);
}

static bool load_windows(Machine *m, BlobReader *r)
{
    uint8_t win[MAX_CPUS];
    for (int i = 0; i < m->cl.ncpus; i++)
        if ((win[i] = br_u8(r)) > 1)
            return br_fail(r, "sampling window");
    for (int i = 0; i < m->cl.ncpus && r->ok; i++)
        m->cl.cpus[i]->prof.window = win[i];
    return r->ok;
}

/* The console input's position (the UART's section has it too, with the next arrival) and
 * the digest of the bytes taken so far (sim/conlog.h): a --replay restored here must be the
 * log of this run, a --record started here carries both in its header. */
static void save_console_input(Machine *m, Blob *b)
{
    blob_u64(b, m->conin.in.rx->pos);
    blob_u64(b, m->conin.digest);
}

static bool load_console_input(Machine *m, BlobReader *r)
{
    uint64_t pos = br_u64(r), digest = br_u64(r);
    const UartRx *rx = m->conin.in.rx;
    if (r->ok && pos != (rx ? rx->pos : 0)) {
        r->off -= 16;
        return br_fail(r, "console input position: not the UART's");
    }
    m->conin.digest = digest;
    return r->ok;
}

static void save_machine(Machine *m, Blob *b)
{
    blob_u64(b, m->clock.now);
    blob_u64(b, m->clock.seq);
    blob_u64(b, m->console.bytes);
    blob_u32(b, (uint32_t)m->cl.ncpus);
}

/* ------------------------------------------------------------------ saving */

/* The one place the checkpoint file is written: through a temporary file renamed into place
 * (base/outfile.h), so a failed write leaves whatever was there before. */
static bool write_checkpoint_file(const char *path, const Blob *out, Error *err)
{
    OutFile o;
    if (!outfile_open(&o, "--save-at", path, err))
        return false;
    outfile_write(&o, out->data, out->len);
    return outfile_commit(&o, err);
}

/* One of this file's sections: `name` at `version`, its payload by save (NULL: none). */
static void save_section(Machine *m, Blob *out, const char *name, uint32_t version, void (*save)(Machine *, Blob *))
{
    size_t at = blob_begin(out, name, version);
    if (save)
        save(m, out);
    blob_end(out, at);
}

/* The models' sections: each model writes its own (name, version), a device under its path. */
static void save_sections(Machine *m, Blob *out)
{
    save_section(m, out, "machine", CK_MACHINE_VERSION, save_machine);
    for (int i = 0; i < m->cl.ncpus; i++)
        save_cpu(m->cl.cpus[i], out);
    for (int i = 0; i < m->ndevs; i++)
        if (m->devs[i]->ops->save)
            m->devs[i]->ops->save(m->devs[i], out);
    save_section(m, out, "code", CK_CODE_VERSION, save_code);
    save_section(m, out, "memory", CK_MEMORY_VERSION, save_memory);
    if (m->conin.in.rx)
        save_section(m, out, "console-input", CK_CONSOLE_INPUT_VERSION, save_console_input);
    if (m->patchcheck)
        patchcheck_save(m->patchcheck, out);
    if (m->icache)
        icache_save(m->icache, out);
    if (m->profile) {
        save_section(m, out, "windows", CK_WINDOWS_VERSION, save_windows);
        profile_save(m->profile, out);
    }
    save_section(m, out, "end", CK_END_VERSION, NULL);
}

void checkpoint_save_blob(Machine *m, Blob *out)
{
    out->len = 0;
    blob_put(out, CK_MAGIC, 8);
    blob_u32(out, CK_VERSION);
    blob_u32(out, (uint32_t)m->arch);
    blob_u64(out, mach_fingerprint(m));
    blob_u64(out, 0);              /* the length, once known */
    blob_u32(out, options_of(m));
    save_sections(m, out);
    store_le(out->data + CK_LENGTH_AT, 8, out->len + CK_CRC);
    blob_u32(out, blob_crc32(0, out->data, out->len));
}

bool checkpoint_save(Machine *m, const char *path, Error *err)
{
    Blob out;
    blob_init(&out);
    checkpoint_save_blob(m, &out);
    bool ok = write_checkpoint_file(path, &out, err);
    blob_free(&out);
    return ok;
}

/* ------------------------------------------------------------------ restoring */

/* The largest file a checkpoint of this machine can be: every RAM page with its flag byte,
 * plus the rest of the state. */
static uint64_t max_file_size(const Machine *m)
{
    uint64_t n = CK_HEADER + CK_CRC + CK_MAX_STATE;
    for (int i = 0; i < m->mem.n; i++)
        n += m->mem.blk[i].size + m->mem.blk[i].size / GUEST_PAGE + 16;
    return n;
}

/* The whole file into data: a regular file (a device or FIFO never ends or blocks), no larger
 * than a checkpoint of this machine can be, read up to the size it had when opened. */
static bool read_checkpoint_file(const Machine *m, const char *path, Blob *data, Error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);    /* O_NONBLOCK: a FIFO's open waits */
    if (fd < 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0) {
        err_set(err, "%s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        err_set(err, "%s: not a regular file: a checkpoint is a file written by --save-at", path);
    } else if ((uint64_t)st.st_size > max_file_size(m)) {
        err_set(err, "%s: %jd bytes: larger than any checkpoint of this machine can be (%" PRIu64 " bytes)", path,
                (intmax_t)st.st_size, max_file_size(m));
    } else {
        size_t size = (size_t)st.st_size, got = 0;
        data->data = xrealloc(data->data, size ? size : 1);
        data->cap = size ? size : 1;
        while (got < size) {
            ssize_t k = read(fd, data->data + got, size - got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        data->len = got;
        ok = got == size ? true : err_set(err, "%s: offset %zu: read error or the file shrank while read", path, got);
    }
    close(fd);
    return ok;
}

/* A restore in progress: the file and where its refusal goes. */
typedef struct Restore {
    Machine *m;
    BlobReader file;
    const char *path;
    Error *err;
} Restore;

/* The file's first failure, in the top-level section `name` (`what`: which one, "cpu1"). */
static bool refuse(Restore *rs, const char *name, const char *what)
{
    const BlobReader *r = &rs->file;
    const char *path = rs->path;
    if (r->newer && r->fail_in)
        return err_set(rs->err, "%s: offset %zu: %s (inside %s)", path, r->fail_at, r->bad, what);
    if (r->fail_in && strcmp(r->fail_in, name))
        return err_set(rs->err, "%s: offset %zu: the %s section is malformed (%s: %s)", path, r->fail_at, what,
                       r->fail_in, r->bad);
    if (r->fail_in)
        return err_set(rs->err, "%s: offset %zu: the %s section is malformed (%s)", path, r->fail_at, what, r->bad);
    if (!strcmp(r->bad, "truncated"))
        return err_set(rs->err, "%s: offset %zu: truncated checkpoint (in %s)", path, r->fail_at, what);
    return err_set(rs->err, "%s: offset %zu: %s", path, r->fail_at, r->bad);
}

/* The next section, one of this file's: `name` up to `version`, loaded by load (NULL: skipped,
 * its option is off in this run). */
static bool load_section(Restore *rs, const char *name, uint32_t version, bool (*load)(Machine *, BlobReader *))
{
    BlobReader *f = &rs->file;
    BrOuter outer;
    bool ok = !load ? br_skip(f, name) :
              br_begin(f, &outer, name, version) && (load(rs->m, f) || br_fail(f, "invalid contents")) &&
              br_end(f, &outer);
    return ok || refuse(rs, name, name);
}

/* The next section, a tool's (it reads its own header), or skipped if this run has not the tool. */
static bool load_tool(Restore *rs, const char *name, bool on, bool (*load)(Machine *, BlobReader *))
{
    BlobReader *f = &rs->file;
    bool ok = on ? load(rs->m, f) || br_fail(f, "invalid contents") : br_skip(f, name);
    return ok || refuse(rs, name, name);
}

/* Magic, version, length, CRC, machine and options: what must hold before any section is read. */
static bool check_header(const Machine *m, const Blob *data, const char *path, Error *err)
{
    const uint8_t *p = data->data;
    if (data->len < 8 || memcmp(p, CK_MAGIC, 8))
        return err_set(err, "%s: offset 0: not a pmusim checkpoint (bad magic)", path);
    if (data->len < 12)
        return err_set(err, "%s: offset 8: truncated checkpoint header", path);
    uint32_t version = (uint32_t)load_le(p + 8, 4);
    if (version != CK_VERSION)
        return err_set(err, "%s: offset 8: checkpoint format version %u; this pmusim reads version %u only (take the"
                            " checkpoint again with this pmusim)", path, version, CK_VERSION);
    if (data->len < CK_HEADER + CK_CRC)
        return err_set(err, "%s: offset %zu: truncated checkpoint header", path, data->len);
    uint64_t length = load_le(p + CK_LENGTH_AT, 8);
    if (length != data->len)
        return err_set(err, "%s: offset %u: the header says %" PRIu64 " bytes, the file has %zu: truncated or"
                            " corrupted checkpoint", path, CK_LENGTH_AT, length, data->len);
    uint32_t want = (uint32_t)load_le(p + data->len - CK_CRC, 4), got = blob_crc32(0, p, data->len - CK_CRC);
    if (want != got)
        return err_set(err, "%s: offset %zu: CRC-32 mismatch (stored 0x%08x, computed 0x%08x): the checkpoint is"
                            " corrupted", path, data->len - CK_CRC, want, got);
    if (load_le(p + 12, 4) != (uint32_t)m->arch || load_le(p + 16, 8) != mach_fingerprint(m))
        return err_set(err, "%s: offset 12: the checkpoint was taken on a different machine (device tree, guest"
                            " image or --quantum differ)", path);
    return true;
}

/* The compatibility rule of checkpoint.h for the options that carry state. */
static bool check_options(const Machine *m, uint32_t saved, const char *path, Error *err)
{
    uint32_t now = options_of(m);
    if (saved & ~(uint32_t)CK_OPT_ALL)
        return err_set(err, "%s: offset %u: unknown options 0x%x", path, CK_OPTIONS_AT, saved);
    if ((saved ^ now) & CK_OPT_ICACHE_STRICT)
        return err_set(err, "%s: the checkpoint was taken with --icache=%s; restore it with the same --icache (it"
                            " changes what the guest executes)", path,
                       saved & CK_OPT_ICACHE_STRICT ? "strict" : "coherent");
    if (now & ~saved & CK_OPT_CHECK_PATCHING)
        return err_set(err, "%s: the checkpoint was taken without --check-patching: the validator's state before it"
                            " is unknown, so it cannot be restored with --check-patching or --strict", path);
    if (now & ~saved & CK_OPT_SAMPLES)
        return err_set(err, "%s: the checkpoint was taken without --samples: the profile before it is unknown, so"
                            " it cannot be restored with --samples", path);
    return true;
}

static bool load_machine(Machine *m, BlobReader *r)
{
    m->clock.now = br_u64(r);
    m->clock.seq = br_u64(r);
    m->console.bytes = br_u64(r);
    if (br_u32(r) != (uint32_t)m->cl.ncpus)
        return br_fail(r, "another CPU count");
    return r->ok;
}

/* The end section is empty: the file's last bytes, before the CRC. */
static bool load_end(Machine *m, BlobReader *r)
{
    return true;
}

static bool load_patchcheck(Machine *m, BlobReader *r)
{
    return patchcheck_load(m->patchcheck, r);
}

static bool load_icache(Machine *m, BlobReader *r)
{
    return icache_load(m->icache, r);
}

static bool load_profile(Machine *m, BlobReader *r)
{
    return profile_load(m->profile, r, m->cl.ncpus);
}

/* Each CPU's section, then each device's (a device reads its own, named after its path). */
static bool load_cpus_devices(Restore *rs)
{
    BlobReader *f = &rs->file;
    BrOuter outer;
    for (int i = 0; i < rs->m->cl.ncpus; i++) {
        char what[16];
        snprintf(what, sizeof what, "cpu%d", i);
        if (!br_begin(f, &outer, "cpu", CK_CPU_VERSION) ||
            !(load_cpu(rs->m->cl.cpus[i], f) || br_fail(f, "invalid contents")) || !br_end(f, &outer))
            return refuse(rs, "cpu", what);
    }
    for (int i = 0; i < rs->m->ndevs; i++) {
        Device *d = rs->m->devs[i];
        if (d->ops->load && !(d->ops->load(d, f) || br_fail(f, "invalid contents")))
            return refuse(rs, d->name, d->name);
    }
    return true;
}

static bool load_sections(Restore *rs, uint32_t saved)
{
    Machine *m = rs->m;
    bool pc = saved & CK_OPT_CHECK_PATCHING, ic = saved & CK_OPT_ICACHE_STRICT, prof = saved & CK_OPT_SAMPLES;
    bool con = saved & CK_OPT_CONSOLE_INPUT;
    return load_section(rs, "machine", CK_MACHINE_VERSION, load_machine) && load_cpus_devices(rs) &&
           load_section(rs, "code", CK_CODE_VERSION, load_code) &&
           load_section(rs, "memory", CK_MEMORY_VERSION, load_memory) &&
           (!con || load_section(rs, "console-input", CK_CONSOLE_INPUT_VERSION, load_console_input)) &&
           (!pc || load_tool(rs, "patchcheck", m->patchcheck, load_patchcheck)) &&
           (!ic || load_tool(rs, "icache", true, load_icache)) &&
           (!prof || load_section(rs, "windows", CK_WINDOWS_VERSION, m->profile ? load_windows : NULL)) &&
           (!prof || load_tool(rs, "profile", m->profile, load_profile)) &&
           load_section(rs, "end", CK_END_VERSION, load_end);
}

/* What each CPU restores from guest memory (CpuOps.load_finish), now that RAM is restored. */
static bool finish_cpus(Machine *m, const char *path, Error *err)
{
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        if (c->ops->load_finish && !c->ops->load_finish(c, path, err))
            return false;
    }
    return true;
}

bool checkpoint_load_blob(Machine *m, const Blob *data, const char *path, Error *err)
{
    if (!check_header(m, data, path, err))
        return false;
    uint32_t saved = (uint32_t)load_le(data->data + CK_OPTIONS_AT, 4);
    Restore rs = { .m = m, .path = path, .err = err };
    br_init(&rs.file, data->data, data->len - CK_CRC, 0);
    rs.file.off = CK_HEADER;
    bool ok = check_options(m, saved, path, err) && load_sections(&rs, saved);
    if (ok && rs.file.off != rs.file.len)
        ok = err_set(err, "%s: offset %zu: bytes after the end section", path, rs.file.off);
    return ok && finish_cpus(m, path, err);
}

bool checkpoint_restore(Machine *m, const char *path, Error *err)
{
    Blob data;
    blob_init(&data);
    bool ok = read_checkpoint_file(m, path, &data, err) && checkpoint_load_blob(m, &data, path, err);
    blob_free(&data);
    return ok;
}
