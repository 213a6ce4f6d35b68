#!/bin/sh
# --trace-dat FILE (docs/trace-format.md, "trace.dat"): a trace.dat that Debian's trace-cmd reads.
# On all three architectures, with the watchdog guest (x86_64, arm64) or the oprofile guest
# (ppc32) for pmusim's events, and the ftrace guest for the guest's own function and
# function_graph rings: `trace-cmd report` exits 0 and says nothing on stderr; it shows the same
# pmusim events as the text trace of the same run (per kind, and every event's fields); each
# event's time is its cycle in ns of the CPU clock, and every CPU's times are monotone; the
# guest's rings come out as --guest-trace prints them (the function_graph calls with their
# durations, the function entries with their parents, by name); --events shows the generated
# formats and -F selects by them; the file is the same on two runs and without --trace;
# --trace-limit ends the run there; an output that cannot be written, or is an input, is refused.
. "$(dirname "$0")/lib.sh" "$@"

if ! command -v trace-cmd >/dev/null 2>&1; then
    echo "SKIP: trace-cmd is not installed (sh scripts/install-deps.sh installs it)"
    exit 77
fi

# report DAT PREFIX [OPTIONS...]: trace-cmd report -t into PREFIX.rep; exit 0, nothing on stderr
report() {
    _dat=$1 _p=$2
    shift 2
    trace-cmd report -t "$@" "$_dat" >"$_p.rep" 2>"$_p.rerr"
    check "$_p: trace-cmd report exits 0" [ $? -eq 0 ]
    check "$_p: trace-cmd report says nothing on stderr ($(head -c 200 "$_p.rerr"))" [ ! -s "$_p.rerr" ]
}

# The pmusim events of a report as the text trace writes them: "cpuN kind fields" (the machine's
# block, the last, as "machine"); ftrace's events left out.
dat_events() {   # dat_events REP NCPUS
    awk -v n="$2" '$4 ~ /:$/ && $4 !~ /^(function|funcgraph_entry|funcgraph_exit):$/ {
        c = $2; gsub(/[][]/, "", c); c = c + 0
        k = $4; sub(/:$/, "", k)
        $1 = $2 = $3 = $4 = ""; sub(/^ +/, "")
        print (c == n ? "machine" : "cpu" c), k, $0 }' "$1" | tr -d '"'
}
text_events() {  # text_events TRACE
    awk '{ k = $3; gsub(/-/, "_", k); c = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); print c, k, $0 }' "$1" |
        sed 's/=- /= /g; s/=-$/=/' | tr -d '"'
}
# "cpuN ns" per pmusim event, in each CPU's order: the report's times, and the text trace's
# cycles in ns of HZ (made monotone per CPU as the writer does: docs/trace-format.md)
dat_times() {    # dat_times REP NCPUS
    awk -v n="$2" '$4 ~ /:$/ && $4 !~ /^(function|funcgraph_entry|funcgraph_exit):$/ {
        c = $2; gsub(/[][]/, "", c); c = c + 0; t = $3; sub(/:$/, "", t); split(t, p, ".")
        print (c == n ? "machine" : "cpu" c), p[1] * 1000000000 + p[2] }' "$1" | sort -s -k1,1
}
text_times() {   # text_times TRACE HZ
    awk -v hz="$2" '{ c = $2
        ns = hz >= 1e9 && hz % 1e9 == 0 ? int($1 / (hz / 1e9)) : $1 * (1e9 / hz)
        if (c in last && ns < last[c]) ns = last[c]
        last[c] = ns; printf "%s %.0f\n", c, ns }' "$1" | sort -s -k1,1
}
# every CPU's times (all events) never go back
monotone() {     # monotone REP
    awk '$3 ~ /:$/ { c = $2; t = $3; sub(/:$/, "", t); split(t, p, "."); ns = p[1] * 1000000000 + p[2]
        if (c in last && ns < last[c]) bad++; last[c] = ns } END { exit bad > 0 }' "$1"
}

# check_events NAME NCPUS: the report NAME.rep against the text trace NAME.trace
check_events() {
    _n=$1 _c=$2
    text_events "$T/$_n.trace" | awk '{ print $2 }' | sort | uniq -c >"$T/$_n.tk"
    dat_events "$T/$_n.rep" "$_c" | awk '{ print $2 }' | sort | uniq -c >"$T/$_n.dk"
    check "$_n: as many pmusim events of every kind as the text trace" cmp -s "$T/$_n.tk" "$T/$_n.dk"
    text_events "$T/$_n.trace" | sort >"$T/$_n.tf"
    dat_events "$T/$_n.rep" "$_c" | sort >"$T/$_n.df"
    check "$_n: every event with the text trace's fields ($(diff "$T/$_n.tf" "$T/$_n.df" | head -n 3))" \
        cmp -s "$T/$_n.tf" "$T/$_n.df"
    hz=$(trace-cmd report --uname "$T/$_n.dat" 2>/dev/null | sed -n 's/.* at \([0-9]*\) Hz$/\1/p')
    check "$_n: the CPU clock in the uname ($hz)" [ -n "$hz" ]
    text_times "$T/$_n.trace" "${hz:-1}" >"$T/$_n.tt"
    dat_times "$T/$_n.rep" "$_c" >"$T/$_n.dt"
    check "$_n: every event at its cycle in ns of the CPU clock ($(diff "$T/$_n.tt" "$T/$_n.dt" | head -n 3))" \
        cmp -s "$T/$_n.tt" "$T/$_n.dt"
    check "$_n: every CPU's times are monotone" monotone "$T/$_n.rep"
}

for a in $ARCHES; do
    # pmusim's own events: PMU overflows, exceptions and interrupts with their symbols
    case $a in
    ppc32) elf=$GUESTS/ppc32/oprofile.elf args="--bootargs samples=300" ncpus=1 ;;
    *) elf=$GUESTS/$a/watchdog.elf args="--cpus 2" ncpus=2 ;;
    esac
    n=$a-pmu
    run "$T/$n" $args --trace "$T/$n.trace" --trace-dat "$T/$n.dat" "$elf"
    check "$n: pmusim says nothing on stderr ($(head -c 200 "$T/$n.err"))" [ ! -s "$T/$n.err" ]
    run "$T/$n-b" $args --trace-dat "$T/$n-b.dat" "$elf"
    check "$n: the same file on a second run, without --trace" cmp -s "$T/$n.dat" "$T/$n-b.dat"
    check "$n: the same exit status without --trace" [ "$(cat "$T/$n.status")" = "$(cat "$T/$n-b.status")" ]
    report "$T/$n.dat" "$T/$n"
    check_events "$n" "$ncpus"
    check "$n: pmu_overflow events with their counters" grep -Eq ' pmu_overflow: +pc=0x[0-9a-f]+ counter=[A-Za-z]' "$T/$n.rep"
    check "$n: exceptions or interrupts with their symbols" \
        grep -Eq ' (exception|interrupt|nmi): +vector=0x[0-9a-f]+ name=[^ ]+ from=0x[0-9a-f]+ sym=[a-z_]' "$T/$n.rep"
    check "$n: the exit event last" sh -c "tail -n 1 '$T/$n.rep' | grep -q ' exit: '"
    trace-cmd report --events "$T/$n.dat" >"$T/$n.events" 2>&1
    check "$n: --events shows the generated pmu_overflow format" \
        sh -c "grep -A12 '^name: pmu_overflow' '$T/$n.events' | grep -q 'field:__data_loc char\[\] counter;'"
    check "$n: --events shows exception's print fmt" \
        grep -q '^print fmt: "vector=0x%llx name=%s from=0x%llx sym=%s to=0x%llx info=0x%llx"' "$T/$n.events"
    f=$(trace-cmd report -F pmu_overflow "$T/$n.dat" 2>/dev/null | grep -c ' pmu_overflow: ')
    t=$(grep -c ' pmu-overflow ' "$T/$n.trace")
    check "$n: -F pmu_overflow selects the $t overflows ($f)" [ "$f" = "$t" ]

    # the guest's rings: function_graph on one CPU, as --guest-trace prints it
    n=$a-graph
    run "$T/$n" --bootargs ftrace=function_graph --trace "$T/$n.trace" --guest-trace "$T/$n.txt" \
        --trace-dat "$T/$n.dat" "$GUESTS/$a/ftrace.elf"
    report "$T/$n.dat" "$T/$n"
    check_events "$n" 1
    grep -v '^#' "$T/$n.txt" | sed 's/^ *[0-9]*) *//; s/ *| /|/' >"$T/$n.g"
    grep -E ' funcgraph_(entry|exit): ' "$T/$n.rep" | sed -E 's/.*funcgraph_(entry|exit): *//; s/ *\| /|/' >"$T/$n.d"
    check "$n: the graph of the guest's calls, durations included ($(wc -l <"$T/$n.g") lines)" \
        sh -c "[ -s '$T/$n.g' ] && cmp -s '$T/$n.g' '$T/$n.d'"
    check "$n: function names resolved" grep -Eq 'funcgraph_entry: .*\|  work_round\(\) \{$' "$T/$n.rep"

    # function on two CPUs: every CPU's calls with their parents
    n=$a-function
    run "$T/$n" --cpus 2 --bootargs ftrace=function --trace "$T/$n.trace" --guest-trace "$T/$n.txt" \
        --trace-dat "$T/$n.dat" "$GUESTS/$a/ftrace.elf"
    report "$T/$n.dat" "$T/$n" -O parent=1
    check_events "$n" 2
    awk '!/^#/ { c = $2; gsub(/[][]/, "", c); print c + 0, $5, $6 }' "$T/$n.txt" | sed 's/ <-/ /' | sort -s -k1,1 >"$T/$n.g"
    awk '$4 == "function:" { c = $2; gsub(/[][]/, "", c); print c + 0, $5, $7 }' "$T/$n.rep" | sort -s -k1,1 >"$T/$n.d"
    check "$n: every CPU's functions and parents ($(wc -l <"$T/$n.g") entries)" \
        sh -c "[ -s '$T/$n.g' ] && cmp -s '$T/$n.g' '$T/$n.d'"
    check "$n: both CPUs traced" sh -c "awk '{ print \$1 }' '$T/$n.d' | sort -u | wc -l | grep -qx 2"
done

# --trace-limit bounds the pmusim event pages and ends the run there
run "$T/limit" --cpus 2 --trace-limit 8192 --trace-dat "$T/limit.dat" "$GUESTS/x86_64/watchdog.elf"
check "limit: status 3" [ "$(cat "$T/limit.status")" = 3 ]
check "limit: the message names --trace-dat" grep -q -- "--trace-dat $T/limit.dat: the next event would take it past --trace-limit 8192" "$T/limit.err"
report "$T/limit.dat" "$T/limit"
check "limit: its last event is the exit at the limit" sh -c "tail -n 1 '$T/limit.rep' | grep -q ' exit: .*status=3 reason=trace-limit'"

# outputs that cannot be: a missing directory, an input
run "$T/bad" --trace-dat "$T/no/such/dir/x.dat" "$GUESTS/x86_64/watchdog.elf"
check "bad: a missing directory is status 2" [ "$(cat "$T/bad.status")" = 2 ]
check "bad: the message names --trace-dat" grep -q -- "--trace-dat" "$T/bad.err"
cp "$GUESTS/x86_64/watchdog.elf" "$T/k.elf"
run "$T/same" --trace-dat "$T/k.elf" "$T/k.elf"
check "same: the kernel as --trace-dat is status 2" [ "$(cat "$T/same.status")" = 2 ]
check "same: the kernel is untouched" cmp -s "$GUESTS/x86_64/watchdog.elf" "$T/k.elf"
finish
