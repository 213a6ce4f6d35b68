/* fdt.h — a small read-only flattened device tree parser (DTB version 17).
 *
 * Nodes are named by their offset in the structure block, as in libfdt; every function returns
 * a negative offset (or NULL) for "not found" and for a malformed blob, never reads outside the
 * blob's structure and strings blocks, and needs no memory of its own. */
#ifndef GUEST_FDT_H
#define GUEST_FDT_H

#include "guest.h"

#define FDT_MAGIC   0xd00dfeed

bool fdt_check(const void *fdt);        /* magic, version and block bounds */

/* "/", "/cpus", "/isa/serial": a component without '@' also matches "name@unit". */
int fdt_path(const void *fdt, const char *path);
int fdt_first_subnode(const void *fdt, int node);
int fdt_next_subnode(const void *fdt, int node);
const char *fdt_name(const void *fdt, int node);

/* The property's value and length, or NULL. */
const void *fdt_prop(const void *fdt, int node, const char *name, int *len);
/* A string property (checked to be NUL-terminated), or NULL. */
const char *fdt_prop_str(const void *fdt, int node, const char *name);
/* #address-cells / #size-cells of a node (for its children); 2 and 1 when absent. */
unsigned fdt_address_cells(const void *fdt, int node);
/* A big-endian number of 1 or 2 cells. */
u64 fdt_read_cells(const void *p, unsigned cells);

/* Iterates the /cpus children whose device_type is "cpu", in tree order. */
int fdt_first_cpu(const void *fdt);
int fdt_next_cpu(const void *fdt, int cpu);
unsigned fdt_count_cpus(const void *fdt);

#define fdt_for_each_cpu(fdt, node) \
    for ((node) = fdt_first_cpu(fdt); (node) >= 0; (node) = fdt_next_cpu(fdt, node))

#endif
