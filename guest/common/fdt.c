/* fdt.c — read-only flattened device tree walker (see fdt.h).  All reads are byte-wise
 * big-endian, so the blob's alignment and the CPU's byte order do not matter. */
#include "fdt.h"

enum { FDT_BEGIN_NODE = 1, FDT_END_NODE = 2, FDT_PROP = 3, FDT_NOP = 4, FDT_END = 9 };

/* Header fields (byte offsets). */
enum {
    HDR_MAGIC = 0, HDR_TOTALSIZE = 4, HDR_OFF_STRUCT = 8, HDR_OFF_STRINGS = 12,
    HDR_VERSION = 20, HDR_LAST_COMP = 24, HDR_SIZE_STRINGS = 32, HDR_SIZE_STRUCT = 36,
    HDR_SIZE = 40,
};

static u32 be32(const void *p)
{
    const u8 *b = p;
    return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static u32 hdr(const void *fdt, unsigned field)
{
    return be32((const u8 *)fdt + field);
}

static const u8 *dt_struct(const void *fdt)
{
    return (const u8 *)fdt + hdr(fdt, HDR_OFF_STRUCT);
}

bool fdt_check(const void *fdt)
{
    u32 total = hdr(fdt, HDR_TOTALSIZE);
    u32 so = hdr(fdt, HDR_OFF_STRUCT), ss = hdr(fdt, HDR_SIZE_STRUCT);
    u32 to = hdr(fdt, HDR_OFF_STRINGS), ts = hdr(fdt, HDR_SIZE_STRINGS);

    return hdr(fdt, HDR_MAGIC) == FDT_MAGIC && hdr(fdt, HDR_VERSION) >= 17 &&
           hdr(fdt, HDR_LAST_COMP) <= 17 && total >= HDR_SIZE &&
           so <= total && ss <= total - so && to <= total && ts <= total - to;
}

/* The tag at off; *next is the offset of the following tag, -1 at the end or on a malformed
 * blob (then the tag is reported as FDT_END). */
static u32 next_tag(const void *fdt, int off, int *next)
{
    const u8 *s = dt_struct(fdt);
    u32 size = hdr(fdt, HDR_SIZE_STRUCT);
    u32 p = off + 4, len;

    *next = -1;
    if (off < 0 || size < 4 || (u32)off > size - 4 || (off & 3))
        return FDT_END;
    u32 tag = be32(s + off);
    switch (tag) {
    case FDT_BEGIN_NODE:
        len = strnlen((const char *)s + p, size - p);
        if (len >= size - p)
            return FDT_END;
        p += len + 1;
        break;
    case FDT_PROP:
        if (size - p < 8)
            return FDT_END;
        len = be32(s + p);
        if (len > size - p - 8)
            return FDT_END;
        p += 8 + len;
        break;
    case FDT_END_NODE:
    case FDT_NOP:
        break;
    default:
        return FDT_END;
    }
    *next = (p + 3) & ~3u;
    return tag;
}

/* The first tag at or after off that is not a property or a NOP. */
static int skip_props(const void *fdt, int off, u32 *tag)
{
    int next;

    for (;;) {
        *tag = next_tag(fdt, off, &next);
        if (*tag != FDT_PROP && *tag != FDT_NOP)
            return off;
        off = next;
    }
}

int fdt_first_subnode(const void *fdt, int node)
{
    int off;
    u32 tag;

    if (next_tag(fdt, node, &off) != FDT_BEGIN_NODE)
        return -1;
    off = skip_props(fdt, off, &tag);
    return tag == FDT_BEGIN_NODE ? off : -1;
}

int fdt_next_subnode(const void *fdt, int node)
{
    int depth = 0, off = node, next;
    u32 tag;

    do {
        tag = next_tag(fdt, off, &next);
        if (tag == FDT_BEGIN_NODE)
            depth++;
        else if (tag == FDT_END_NODE)
            depth--;
        else if (tag == FDT_END)
            return -1;
        off = next;
    } while (depth > 0);
    off = skip_props(fdt, off, &tag);
    return tag == FDT_BEGIN_NODE ? off : -1;
}

const char *fdt_name(const void *fdt, int node)
{
    int next;

    if (next_tag(fdt, node, &next) != FDT_BEGIN_NODE)
        return NULL;
    return (const char *)dt_struct(fdt) + node + 4;
}

const void *fdt_prop(const void *fdt, int node, const char *name, int *len)
{
    const u8 *s = dt_struct(fdt);
    const char *strings = (const char *)fdt + hdr(fdt, HDR_OFF_STRINGS);
    u32 strsize = hdr(fdt, HDR_SIZE_STRINGS);
    size_t nlen = strlen(name);
    int off, next;

    if (next_tag(fdt, node, &off) != FDT_BEGIN_NODE)
        return NULL;
    for (;; off = next) {
        u32 tag = next_tag(fdt, off, &next);
        if (tag == FDT_NOP)
            continue;
        if (tag != FDT_PROP)
            return NULL;
        u32 nameoff = be32(s + off + 8);
        if (nameoff < strsize && strsize - nameoff > nlen &&
            !memcmp(strings + nameoff, name, nlen + 1)) {
            if (len)
                *len = be32(s + off + 4);
            return s + off + 12;
        }
    }
}

const char *fdt_prop_str(const void *fdt, int node, const char *name)
{
    int len;
    const char *v = fdt_prop(fdt, node, name, &len);

    return v && len > 0 && strnlen(v, len) < (size_t)len ? v : NULL;
}

unsigned fdt_address_cells(const void *fdt, int node)
{
    int len;
    const void *v = fdt_prop(fdt, node, "#address-cells", &len);

    return v && len == 4 ? be32(v) : 2;
}

u64 fdt_read_cells(const void *p, unsigned cells)
{
    const u8 *b = p;
    return cells == 2 ? (u64)be32(b) << 32 | be32(b + 4) : be32(b);
}

/* name matches a path component of length len; "cpus" also matches "cpus@0". */
static bool name_matches(const char *name, const char *comp, size_t len)
{
    if (strncmp(name, comp, len))
        return false;
    if (name[len] == 0)
        return true;
    if (name[len] != '@')
        return false;
    for (size_t i = 0; i < len; i++)
        if (comp[i] == '@')
            return false;
    return true;
}

int fdt_path(const void *fdt, const char *path)
{
    u32 tag;
    int node = skip_props(fdt, 0, &tag);

    if (tag != FDT_BEGIN_NODE || *path != '/')
        return -1;
    while (*path) {
        while (*path == '/')
            path++;
        if (!*path)
            break;
        size_t len = 0;
        while (path[len] && path[len] != '/')
            len++;
        for (node = fdt_first_subnode(fdt, node); node >= 0; node = fdt_next_subnode(fdt, node))
            if (name_matches(fdt_name(fdt, node), path, len))
                break;
        if (node < 0)
            return -1;
        path += len;
    }
    return node;
}

static bool is_cpu(const void *fdt, int node)
{
    const char *type = fdt_prop_str(fdt, node, "device_type");
    return type && !strcmp(type, "cpu");
}

static int cpu_from(const void *fdt, int node)
{
    while (node >= 0 && !is_cpu(fdt, node))
        node = fdt_next_subnode(fdt, node);
    return node;
}

int fdt_first_cpu(const void *fdt)
{
    int cpus = fdt_path(fdt, "/cpus");
    return cpus < 0 ? -1 : cpu_from(fdt, fdt_first_subnode(fdt, cpus));
}

int fdt_next_cpu(const void *fdt, int cpu)
{
    return cpu_from(fdt, fdt_next_subnode(fdt, cpu));
}

unsigned fdt_count_cpus(const void *fdt)
{
    unsigned n = 0;
    int node;

    fdt_for_each_cpu(fdt, node)
        n++;
    return n;
}
