/* cmdline.c — the kernel command line, see cmdline.h. */
#include "cmdline.h"
#include "fdt.h"

const char *cmdline_bootargs(void)
{
    return boot_fdt ? fdt_prop_str(boot_fdt, fdt_path(boot_fdt, "/chosen"), "bootargs") : NULL;
}

bool parse_uint(const char *val, size_t len, unsigned max, unsigned *out)
{
    unsigned v = 0;

    if (!len)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (val[i] < '0' || val[i] > '9' || v > (max - (val[i] - '0')) / 10)
            return false;
        v = v * 10 + (val[i] - '0');
    }
    *out = v;
    return true;
}

bool param_is(const char *val, size_t len, const char *s)
{
    return strlen(s) == len && !strncmp(val, s, len);
}

static void setup_word(const char *word, size_t len, const struct kernel_param *params, unsigned n,
                       const char *who)
{
    for (unsigned i = 0; i < n; i++) {
        const char *str = params[i].str;
        size_t k = strlen(str);
        bool flag = str[k - 1] != '=';

        if (len < k || strncmp(word, str, k) || (flag && len != k))
            continue;
        if (!params[i].setup_func(word + k, len - k)) {
            char copy[64];
            size_t c = len < sizeof(copy) - 1 ? len : sizeof(copy) - 1;
            memcpy(copy, word, c);
            copy[c] = 0;
            printf("%s: ignoring bad parameter '%s'\n", who, copy);
        }
        return;
    }
}

void parse_bootargs(const char *s, const struct kernel_param *params, unsigned n, const char *who)
{
    while (s && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = 0;
        while (s[len] && s[len] != ' ' && s[len] != '\t')
            len++;
        if (len)
            setup_word(s, len, params, n, who);
        s += len;
    }
}
