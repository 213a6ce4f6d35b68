#!/usr/bin/env python3
"""check_trace_json.py — a Chrome trace-event JSON file against the format's rules.

    python3 tests/e2e/check_trace_json.py [--ordered] FILE

The rules (the Trace Event Format document, "JSON Array Format" / "JSON Object Format", "Event
Descriptions", "Duration Events", "Complete Events", "Instant Events", "Counter Events",
"Metadata Events"; Perfetto's legacy JSON importer reads the same):

  - the file is JSON (no NaN or Infinity), an array of events or an object whose "traceEvents"
    is one; the object's "displayTimeUnit", if present, is "ms" or "ns";
  - every event is an object with a known "ph" and the keys its phase needs (below); "ts" and
    "dur" are numbers >= 0, "pid" and "tid" integers, "args" an object, "name" and "cat" strings;
  - B/E (duration events) are balanced on each thread (pid, tid) and nest properly with each
    other and with X events (complete events, dur >= 0), in time order: a slice ends after
    every slice that began inside it; an E with a name names the slice it ends;
  - i/I (instant) events have "s" in g, p, t if they have one;
  - C (counter) events have a non-empty "args" whose every value is a number;
  - M (metadata) events are process_name, process_labels, process_sort_index, thread_name or
    thread_sort_index, with "args" holding "name" (a string) or "sort_index" (an integer);
  - every thread an event uses has a thread_name, every process a process_name (the rule of
    this project: Perfetto shows unnamed tracks by number).

--ordered adds pmusim's own promise: on each thread, events come in time order in the file.
Prints "ok: N events, B=.. E=.. X=.. i=.. C=.. M=.. slices=.." and exits 0; else one line
per problem (at most 20) naming the event's index, and exits 1.
"""
import json
import sys

REQUIRED = {
    "B": ("name", "ts", "pid", "tid"),
    "E": ("ts", "pid", "tid"),
    "X": ("name", "ts", "dur", "pid", "tid"),
    "i": ("name", "ts", "pid"),
    "I": ("name", "ts", "pid"),
    "C": ("name", "ts", "pid", "args"),
    "M": ("name", "pid", "args"),
}
METADATA = {"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
            "thread_name": "name", "thread_sort_index": "sort_index"}
MAX_PROBLEMS = 20


class Problems(Exception):
    pass


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise Problems(["not valid JSON: %s" % e])
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise Problems(["neither an array nor an object with a traceEvents array"])
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        raise Problems(["displayTimeUnit %r is not ms or ns" % doc["displayTimeUnit"]])
    return doc["traceEvents"]


def check_keys(i, ev, out):
    """The keys of one event, by its phase."""
    if not isinstance(ev, dict):
        out.append("event %d: not an object" % i)
        return False
    ph = ev.get("ph")
    if ph not in REQUIRED:
        out.append("event %d: ph %r is not one of %s" % (i, ph, " ".join(sorted(REQUIRED))))
        return False
    missing = [k for k in REQUIRED[ph] if k not in ev]
    if missing:
        out.append("event %d (ph %s): missing %s" % (i, ph, ", ".join(missing)))
        return False
    return check_values(i, ev, out)


def check_values(i, ev, out):
    bad = []
    for k in ("ts", "dur"):
        if k in ev and not (is_number(ev[k]) and ev[k] >= 0):
            bad.append("%s %r is not a number >= 0" % (k, ev[k]))
    for k in ("pid", "tid"):
        if k in ev and not is_int(ev[k]):
            bad.append("%s %r is not an integer" % (k, ev[k]))
    for k in ("name", "cat"):
        if k in ev and not isinstance(ev[k], str):
            bad.append("%s is not a string" % k)
    if "args" in ev and not isinstance(ev["args"], dict):
        bad.append("args is not an object")
    if ev["ph"] in "iI" and ev.get("s", "t") not in ("g", "p", "t"):
        bad.append("s %r is not g, p or t" % ev.get("s"))
    if ev["ph"] in "iI" and ev.get("s", "t") == "t" and "tid" not in ev:
        bad.append("a thread-scoped instant without tid")
    bad += check_phase_args(ev)
    for b in bad:
        out.append("event %d (ph %s): %s" % (i, ev["ph"], b))
    return not bad


def check_phase_args(ev):
    if ev["ph"] == "C" and isinstance(ev["args"], dict):
        if not ev["args"]:
            return ["a counter with no values"]
        return ["counter value %s=%r is not a number" % (k, v) for k, v in ev["args"].items() if not is_number(v)]
    if ev["ph"] == "M" and isinstance(ev["args"], dict):
        key = METADATA.get(ev["name"])
        if key is None:
            return ["metadata %r is not one of %s" % (ev["name"], " ".join(sorted(METADATA)))]
        v = ev["args"].get(key)
        ok = isinstance(v, str) if key == "name" else is_int(v) if key == "sort_index" else isinstance(v, list)
        if not ok:
            return ["metadata %s without a valid args.%s" % (ev["name"], key)]
    return []


def intervals(track, out):
    """The slices of one thread as (start, end, name, index), from its B/E pairs (in time order,
    stable) and its X events."""
    spans, stack = [], []
    for i, ev in sorted(track, key=lambda p: p[1]["ts"]):
        ph = ev["ph"]
        if ph == "X":
            spans.append((ev["ts"], ev["ts"] + ev["dur"], ev["name"], i))
        elif ph == "B":
            stack.append((ev["ts"], ev["name"], i))
        elif ph == "E":
            if not stack:
                out.append("event %d: E with no open B on pid %d tid %d" % (i, ev["pid"], ev["tid"]))
                continue
            ts, name, j = stack.pop()
            if "name" in ev and ev["name"] != name:
                out.append("event %d: E named %r ends B %r (event %d)" % (i, ev["name"], name, j))
            spans.append((ts, ev["ts"], name, j))
    for ts, name, j in stack:
        out.append("event %d: B %r never ends" % (j, name))
    return spans


def check_nesting(spans, out):
    """Properly nested: each slice inside the one still open when it starts, or after it."""
    open_ = []
    for start, end, name, i in sorted(spans, key=lambda s: (s[0], -s[1], s[3])):
        while open_ and open_[-1][1] <= start:
            open_.pop()
        if open_ and end > open_[-1][1]:
            out.append("event %d: slice %r [%s, %s] overlaps %r [%s, %s] (event %d) without nesting"
                       % (i, name, start, end, open_[-1][2], open_[-1][0], open_[-1][1], open_[-1][3]))
        open_.append((start, end, name, i))


def check_tracks(events, ordered, out):
    tracks, named_threads, named_procs, used = {}, set(), set(), set()
    for i, ev in enumerate(events):
        if ev["ph"] == "M":
            if ev["name"] == "thread_name":
                named_threads.add((ev["pid"], ev.get("tid")))
            if ev["name"] == "process_name":
                named_procs.add(ev["pid"])
            continue
        if "tid" in ev:
            used.add((ev["pid"], ev["tid"]))
            tracks.setdefault((ev["pid"], ev["tid"]), []).append((i, ev))
        used.add((ev["pid"], None))
    for pid, tid in sorted(used, key=lambda p: (p[0], -1 if p[1] is None else p[1])):
        if tid is None and pid not in named_procs:
            out.append("pid %d: no process_name metadata" % pid)
        elif tid is not None and (pid, tid) not in named_threads:
            out.append("pid %d tid %d: no thread_name metadata" % (pid, tid))
    slices = 0
    for key in sorted(tracks):
        if ordered:
            check_order(tracks[key], out)
        spans = intervals(tracks[key], out)
        slices += len(spans)
        check_nesting(spans, out)
    return slices


def check_order(track, out):
    last = None
    for i, ev in track:
        if last is not None and ev["ts"] < last:
            out.append("event %d: ts %s before the previous event of its thread (%s)" % (i, ev["ts"], last))
        last = ev["ts"]


def check(path, ordered):
    events = load(path)
    out = []
    good = [ev for i, ev in enumerate(events) if check_keys(i, ev, out)]
    if out:
        raise Problems(out)
    slices = check_tracks(good, ordered, out)
    if out:
        raise Problems(out)
    counts = {ph: sum(1 for ev in good if ev["ph"] == ph) for ph in "BEXiCM"}
    counts["i"] += sum(1 for ev in good if ev["ph"] == "I")
    return "ok: %d events, %s slices=%d" % (len(good), " ".join("%s=%d" % kv for kv in counts.items()), slices)


def main(argv):
    args = [a for a in argv[1:] if a != "--ordered"]
    if len(args) != 1:
        print("usage: check_trace_json.py [--ordered] FILE", file=sys.stderr)
        return 2
    try:
        print(check(args[0], "--ordered" in argv))
    except Problems as p:
        for line in p.args[0][:MAX_PROBLEMS]:
            print("%s: %s" % (args[0], line))
        return 1
    except OSError as e:
        print("%s: %s" % (args[0], e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
