#!/bin/sh
# layers.sh — hold the code to its floors (tests/structure/layers.txt).
#
#   sh tests/structure/layers.sh BUILD_DIR SOURCE_DIR
#
# Two kinds of use are read: includes ('#include "dir/file.h"' in every .c and .h of the folders
# the floors name) and calls (a symbol one object of the core library leaves undefined and another
# defines, read with nm from BUILD_DIR; a function whose address is taken counts as called).  A
# use is wrong when it goes up a floor, or across folders on a floor of several folders.  Known
# wrong uses that the redesign has not removed yet are listed in tests/structure/debts.txt; the
# test fails on a wrong use not listed there, and on a listed one that is gone (strike it: the
# list only shrinks).  Exit 0 when clean, 1 with one line per finding.
set -u
BUILD=$1
SRC=$2
FLOORS=$SRC/tests/structure/layers.txt
DEBTS=$SRC/tests/structure/debts.txt
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cd "$SRC" || exit 1

# folder floor, one per line, longest folder first (so sim/dev wins over sim)
grep -v '^#' "$FLOORS" | awk 'NF && $1 != "module" { for (i = 2; i <= NF; i++) print $i, $1 }' |
    awk '{ print length($1), $0 }' | sort -k1,1nr | cut -d' ' -f2- >"$TMP/floors"
DIRS=$(awk '{ print $1 }' "$TMP/floors" | sort -u)
# file unit -> module (its first file), for the files a `module` line joins
grep -v '^#' "$FLOORS" | awk '$1 == "module" { for (i = 2; i <= NF; i++) print $i, $2 }' >"$TMP/modules"

# includes: "from to" as source paths
for d in $DIRS; do
    find "$d" -maxdepth 1 -name '*.[ch]'
done | sort -u | while read -r f; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | sed "s#^#$f #"
done >"$TMP/includes"

# calls: "from to" as source paths, from the core library's objects
OBJDIR=$BUILD/CMakeFiles/pmusim_core.dir
[ -d "$OBJDIR" ] || { echo "layers.sh: no objects in $OBJDIR (build first)" >&2; exit 1; }
find "$OBJDIR" -name '*.o' | sort | while read -r o; do
    src=${o#"$OBJDIR"/}
    src=${src%.o}
    [ -f "$src" ] || continue         # a stale object of a file that moved
    nm "$o" | awk -v f="$src" '$2 ~ /^[TDBR]$/ { print "def", $3, f } $1 == "U" { print "use", $2, f }'
done >"$TMP/syms"
awk '$1 == "def" { def[$2] = $3 } $1 == "use" { use[n++] = $2 " " $3 }
     END { for (i = 0; i < n; i++) { split(use[i], u, " "); if (u[1] in def && def[u[1]] != u[2]) print u[2], def[u[1]] } }' \
    "$TMP/syms" | sort -u >"$TMP/calls"

# Judge every use: unit of a file = the file without .c/.h; uses inside a unit are free.
judge() {
    awk -v kind="$1" 'FILENAME == ARGV[1] { mod[$1] = $2; next }
        FILENAME == ARGV[2] { floor[$1] = $2; order[++nf] = $1; next }
        function folder(p,   i) { for (i = 1; i <= nf; i++) if (index(p, order[i] "/") == 1 && p !~ "^" order[i] "/[^/]+/") return order[i]; return "" }
        function unit(p) { sub(/\.[ch]$/, "", p); return p in mod ? mod[p] : p }
        { a = folder($1); b = folder($2)
          if (a == "" || b == "" || unit($1) == unit($2)) next
          if (floor[b] > floor[a]) print kind, unit($1), "->", unit($2), "(up from floor " floor[a] " to " floor[b] ")"
          else if (floor[b] == floor[a] && a != b) print kind, unit($1), "->", unit($2), "(across floor " floor[a] ")" }' \
        "$TMP/modules" "$TMP/floors" -
}
# Cycles: two units that reach each other through uses of either kind (on any floor).
cycles() {
    awk 'FILENAME == ARGV[1] { mod[$1] = $2; next }
        function unit(p) { sub(/\.[ch]$/, "", p); return p in mod ? mod[p] : p }
        { a = unit($1); b = unit($2); if (a != b) { e[a, b] = 1; u[a] = 1; u[b] = 1 } }
        END { for (k in u) for (i in u) if ((i, k) in e) for (j in u) if ((k, j) in e) e[i, j] = 1
              for (i in u) { c = ""; n = 0
                  for (j in u) if (i == j || ((i, j) in e && (j, i) in e)) { m[++n] = j }
                  if (n < 2) continue
                  for (x = 2; x <= n; x++) for (y = x; y > 1 && m[y - 1] > m[y]; y--) { t = m[y]; m[y] = m[y - 1]; m[y - 1] = t }
                  for (x = 1; x <= n; x++) c = c " " m[x]
                  print "cycle" c } }' "$TMP/modules" -
}
{ judge include <"$TMP/includes"; judge call <"$TMP/calls"; cat "$TMP/includes" "$TMP/calls" | cycles; } | sort -u >"$TMP/found"

grep -v '^#' "$DEBTS" 2>/dev/null | sed 's/[[:space:]]*#.*//' | awk 'NF' | sort -u >"$TMP/debts"
rc=0
sed 's/ (.*//' "$TMP/found" | sort -u >"$TMP/found4"
comm -23 "$TMP/found4" "$TMP/debts" | while read -r line; do
    grep -F "$line" "$TMP/found" | head -1 | sed 's/^/layers: new wrong use: /'
done >"$TMP/new"
comm -13 "$TMP/found4" "$TMP/debts" | sed 's/^/layers: gone (strike it from tests\/structure\/debts.txt): /' >"$TMP/gone"
cat "$TMP/new" "$TMP/gone"
[ -s "$TMP/new" ] || [ -s "$TMP/gone" ] && rc=1
echo "layers: $(wc -l <"$TMP/includes") includes, $(wc -l <"$TMP/calls") cross-file calls read;" \
     "$(wc -l <"$TMP/found4") wrong uses, $(wc -l <"$TMP/debts") of them listed debts"
exit $rc
