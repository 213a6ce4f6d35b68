/* cmdline.h — the kernel command line (/chosen/bootargs), parsed the way Linux's obsolete
 * __setup() parameters are (init/main.c obsolete_checksetup): words separated by blanks; a
 * parameter "name=" takes the rest of its word as the value, a bare "name" is a flag.  Unknown
 * words are ignored, as by Linux; a value its handler refuses is reported and ignored. */
#ifndef GUEST_CMDLINE_H
#define GUEST_CMDLINE_H

#include "guest.h"

struct kernel_param {
    const char *str;                                    /* "name=" or "name" */
    bool (*setup_func)(const char *val, size_t len);    /* false: a bad value */
};

/* /chosen/bootargs of the boot DTB, or NULL. */
const char *cmdline_bootargs(void);
/* Hands every word of s to the matching entry of params[0..n); bad values are reported as
 * "<who>: ignoring bad parameter '<word>'". */
void parse_bootargs(const char *s, const struct kernel_param *params, unsigned n, const char *who);
/* A decimal number that is the whole of val, at most max. */
bool parse_uint(const char *val, size_t len, unsigned max, unsigned *out);
/* Is the value exactly the string s? */
bool param_is(const char *val, size_t len, const char *s);

#endif
