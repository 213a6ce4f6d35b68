#!/bin/sh
# trace-kinds.sh — docs/trace-format.md's table of kinds against the registry, base/trace-events.
#
#   sh tests/structure/trace-kinds.sh SOURCE_DIR
#
# Every kind of the registry must have a row of the table (a row may name several kinds, as
# `a`, `b`) whose keys column lists its fields in order, an optional field in brackets
# ("pc sym msr name [old] value [result]"); every kind the table names must be in the
# registry.  And every diag `what` the sources write must be named in the document.  Exit 0
# when they agree, 1 with one line per difference.
set -u
SRC=$1
REG=$SRC/base/trace-events
DOC=$SRC/docs/trace-format.md
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# kind<TAB>keys, from the registry
awk '/^[ \t]*(#|$)/ { next }
     { keys = ""
       for (i = 2; i <= NF; i++) { split($i, kv, ":"); k = kv[1]; if ($i ~ /\?$/ || (kv[2] ~ /^sym/ && opt[kv[2]])) k = "[" k "]"
                                   if ($i ~ /\?$/) opt["sym(" kv[1] ")"] = 1
                                   keys = keys (keys == "" ? "" : " ") k }
       delete opt
       n = split($1, kinds, ","); for (j = 1; j <= n; j++) printf "%s\t%s\n", kinds[j], keys }' "$REG" | sort >"$TMP/registry"

# kind<TAB>keys, from the table rows between "## Kinds" and the next heading
awk '/^## Kinds/ { on = 1; next } /^## / { on = 0 } on && /^\| `/ {
       split($0, col, "|"); kinds = col[2]; keys = col[3]
       gsub(/`/, "", keys); gsub(/^[ \t]+|[ \t]+$/, "", keys)
       n = split(kinds, ks, ","); for (j = 1; j <= n; j++) { k = ks[j]; gsub(/[ `\t]/, "", k); printf "%s\t%s\n", k, keys } }' \
    "$DOC" | sort >"$TMP/docs"

rc=0
join -t "$(printf '\t')" -a 1 -a 2 -e MISSING -o 0,1.2,2.2 "$TMP/registry" "$TMP/docs" >"$TMP/joined"
while IFS="$(printf '\t')" read -r kind reg doc; do
    if [ "$doc" = MISSING ]; then
        echo "trace-kinds: $kind is in base/trace-events but has no row in docs/trace-format.md"; rc=1
    elif [ "$reg" = MISSING ]; then
        echo "trace-kinds: docs/trace-format.md has $kind, which base/trace-events does not declare"; rc=1
    elif [ "$reg" != "$doc" ]; then
        echo "trace-kinds: $kind: the registry has \"$reg\", the table \"$doc\""; rc=1
    fi
done <"$TMP/joined"
echo "trace-kinds: $(wc -l <"$TMP/registry") kinds in the registry, $(wc -l <"$TMP/docs") in the table"

# Every `what` of a diag line that the sources write as a literal (the first string of a call to
# vcpu_diag, port_diag, mach_diag, trace_diagf, a DeviceHost's diag ...) is in the table's words.
find "$SRC/base" "$SRC/cpu" "$SRC/sim" "$SRC/apic" "$SRC/pmu" "$SRC/gic" "$SRC/tracer" -name '*.c' 2>/dev/null |
    sort | xargs cat | tr '\n' ' ' | grep -oE '(_diag|_diagf|->diag)\([^";]*"[a-z0-9-]+"' |
    grep -oE '"[a-z0-9-]+"$' | tr -d '"' | sort -u >"$TMP/whats"
while read -r what; do
    grep -q "\`$what\`" "$DOC" || { echo "trace-kinds: diag what=$what is not in docs/trace-format.md"; rc=1; }
done <"$TMP/whats"
echo "trace-kinds: $(wc -l <"$TMP/whats") diag whats in the sources"
exit $rc
