# trace-events.awk — base/trace-events -> trace_events.h (awk -v out=h) or trace_events.c (out=c).
# The format is described at the top of base/trace-events.  Any malformed line stops the build
# with the file and line.
function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; bad = 1; exit 1 }
function ident(s) { gsub(/-/, "_", s); return s }
function upper(s) { return toupper(ident(s)) }
/^[ \t]*(#|$)/ { next }
{
    nk = split($1, kinds, ",")
    for (i = 1; i <= nk; i++) {
        if (kinds[i] !~ /^[a-z][a-z0-9-]*$/) fail("bad kind " kinds[i])
        if (kinds[i] in seen) fail("kind " kinds[i] " declared twice")
        seen[kinds[i]] = 1
        allkinds[++nall] = kinds[i]
        group[nall] = NR
    }
    line[NR] = $0
    nf[NR] = NF - 1
    for (i = 2; i <= NF; i++) {
        if ($i !~ /^[a-z][a-z0-9_]*:(hex|dec|str|bytes|sym\([a-z][a-z0-9_]*\))\??$/) fail("bad field " $i)
        split($i, kv, ":")
        key[NR, i - 1] = kv[1]
        t = kv[2]
        opt[NR, i - 1] = t ~ /\?$/
        sub(/\?$/, "", t)
        if (t ~ /^sym\(/) {
            ref = t; sub(/^sym\(/, "", ref); sub(/\)$/, "", ref)
            found = 0
            for (j = 1; j < i - 1; j++) if (key[NR, j] == ref) found = j
            if (!found) fail("sym(" ref "): no earlier field " ref)
            symref[NR, i - 1] = found
            t = "sym"
        }
        type[NR, i - 1] = t
    }
    first[NR] = kinds[1]
    multi[NR] = nk > 1
    lines[++nlines] = NR
}
function ctype(t, o) {
    if (t == "str") return "const char *"
    if (t == "bytes") return "const void *"
    return o ? "const uint64_t *" : "uint64_t "
}
function header(   n, r, i, s, k) {
    print "/* trace_events.h — generated from base/trace-events by cmake/trace-events.awk: do not edit. */"
    print "#ifndef PMUSIM_TRACE_EVENTS_H"
    print "#define PMUSIM_TRACE_EVENTS_H"
    print ""
    print "#include \"base/trace.h\""
    print ""
    print "typedef enum TraceKind {"
    for (k = 1; k <= nall; k++) printf "    TK_%s,\n", upper(allkinds[k])
    print "    TK_COUNT"
    print "} TraceKind;"
    print ""
    print "typedef struct TraceKindField {"
    print "    const char *key;"
    print "    TraceFieldType type;"
    print "    bool optional;"
    print "    int sym_of;                 /* TF_SYM: the index of the address field */"
    print "} TraceKindField;"
    print ""
    print "typedef struct TraceKindDesc {"
    print "    const char *name;"
    print "    int nfields;"
    print "    const TraceKindField *fields;"
    print "} TraceKindDesc;"
    print ""
    print "extern const TraceKindDesc trace_kinds[TK_COUNT];"
    for (n = 1; n <= nlines; n++) {
        r = lines[n]
        print ""
        printf "/* %s */\n", line[r]
        s = "static inline void trace_" ident(first[r]) "(Trace *t, "
        if (multi[r]) s = s "TraceKind tk, "
        s = s "uint64_t cycle, int cpu"
        for (i = 1; i <= nf[r]; i++) {
            if (type[r, i] == "sym") continue
            s = s ", " ctype(type[r, i], opt[r, i]) key[r, i]
            if (type[r, i] == "bytes") s = s ", unsigned " key[r, i] "_len"
        }
        print s ")"
        print "{"
        print "    if (!trace_on(t))"
        print "        return;"
        printf "    TraceEvent ev = trace_begin(cycle, cpu, %s);\n", multi[r] ? "trace_kinds[tk].name" : "\"" first[r] "\""
        for (i = 1; i <= nf[r]; i++) emit(r, i)
        print "    trace_end(t, &ev);"
        print "}"
    }
    print ""
    print "#endif"
}
function emit(r, i,   k, t, v, ind) {
    k = key[r, i]; t = type[r, i]; ind = "    "
    if (t == "sym") {
        v = key[r, symref[r, i]]
        if (opt[r, symref[r, i]]) { printf "    if (%s)\n", v; ind = "        "; v = "*" v }
        printf "%strace_sym(&ev, \"%s\", %s);\n", ind, k, v
        return
    }
    v = k
    if (opt[r, i]) { printf "    if (%s)\n", k; ind = "        "; if (t != "str") v = "*" k }
    if (t == "bytes") printf "%strace_bytes(&ev, \"%s\", %s, %s_len);\n", ind, k, k, k
    else printf "%strace_%s(&ev, \"%s\", %s);\n", ind, t, k, v
}
function table(   n, r, i, k) {
    print "/* trace_events.c — generated from base/trace-events by cmake/trace-events.awk: do not edit. */"
    print "#include \"base/trace_events.h\""
    for (n = 1; n <= nlines; n++) {
        r = lines[n]
        print ""
        printf "static const TraceKindField fields_%s[] = {\n", ident(first[r])
        for (i = 1; i <= nf[r]; i++)
            printf "    { \"%s\", TF_%s, %s, %d },\n", key[r, i], toupper(type[r, i]), opt[r, i] ? "true" : "false",
                   type[r, i] == "sym" ? symref[r, i] - 1 : -1
        print "};"
    }
    print ""
    print "const TraceKindDesc trace_kinds[TK_COUNT] = {"
    for (k = 1; k <= nall; k++)
        printf "    [TK_%s] = { \"%s\", %d, fields_%s },\n", upper(allkinds[k]), allkinds[k], nf[group[k]], ident(first[group[k]])
    print "};"
}
END {
    if (bad) exit 1
    if (out == "h") header(); else table()
}
