#!/usr/bin/env python3
"""What the CUDA caching allocator reserved beyond what was allocated, from a snapshot that
slidedp_worker --memory-snapshot wrote (torch's pickled format: "segments" at the end and
"device_traces", the alloc/free/segment events while recording).

Replays the trace of each device: allocated bytes (alloc .. free_completed) and reserved bytes
(segment_alloc/segment_map .. segment_free/segment_unmap), starting from the levels that make
them end at the snapshot's segments. Prints the peaks, the memory the allocator had cached but
free when it reserved more (the fragmentation the worker's budget check counts), the reservations
by stream and the allocation sizes that triggered them, and the segments at the end by stream.

    python3 tools/bench/memory_summary.py snapshot-w0.pickle [--top 15]

No torch needed: the file is plain pickled dicts and lists. Exits 2 on a file that is not such a
snapshot.
"""
import argparse
import collections
import gzip
import pickle
import sys

GiB = float(1 << 30)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            snap = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, KeyError) as e:
        print(f"memory_summary: cannot read {path} as a pickled snapshot: {e}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(snap, dict) or "segments" not in snap or "device_traces" not in snap:
        print(f"memory_summary: {path} is not a CUDA memory snapshot (no 'segments' / 'device_traces')",
              file=sys.stderr)
        sys.exit(2)
    return snap


def gib(b):
    return f"{b / GiB:7.2f}"


def summarize(snap, top):
    segs = snap["segments"]
    by_dev = collections.defaultdict(list)
    for s in segs:
        by_dev[s.get("device", 0)].append(s)
    for dev, trace in enumerate(snap["device_traces"]):
        dsegs = by_dev.get(dev, [])
        end_reserved = sum(s["total_size"] for s in dsegs)
        end_alloc = sum(s["allocated_size"] for s in dsegs)
        if not trace and not dsegs:
            continue
        print(f"device {dev}: at the snapshot {gib(end_reserved)} GiB reserved, {gib(end_alloc)} GiB allocated "
              f"in {len(dsegs)} segments; {len(trace)} trace events")
        delta_a = delta_r = 0
        for e in trace:
            a = e["action"]
            if a == "alloc":
                delta_a += e["size"]
            elif a == "free_completed":
                delta_a -= e["size"]
            elif a in ("segment_alloc", "segment_map"):
                delta_r += e["size"]
            elif a in ("segment_free", "segment_unmap"):
                delta_r -= e["size"]
        alloc, reserved = end_alloc - delta_a, end_reserved - delta_r
        print(f"  at the start of recording: {gib(reserved)} GiB reserved, {gib(alloc)} GiB allocated")
        peak_a = (alloc, -1)
        peak_r = (reserved, -1, alloc)
        growth = []  # (index, bytes reserved, stream, allocated then, cached-free then, next alloc size)
        by_stream = collections.Counter()
        pending_growth = []
        for i, e in enumerate(trace):
            a = e["action"]
            if a == "alloc":
                alloc += e["size"]
                for g in pending_growth:
                    g[5] = e["size"]
                pending_growth = []
                if alloc > peak_a[0]:
                    peak_a = (alloc, i)
            elif a == "free_completed":
                alloc -= e["size"]
            elif a in ("segment_alloc", "segment_map"):
                g = [i, e["size"], e.get("stream", 0), alloc, reserved - alloc, 0]
                growth.append(g)
                pending_growth.append(g)
                reserved += e["size"]
                by_stream[e.get("stream", 0)] += e["size"]
                if reserved > peak_r[0]:
                    peak_r = (reserved, i, alloc)
            elif a in ("segment_free", "segment_unmap"):
                reserved -= e["size"]
        print(f"  peak allocated {gib(peak_a[0])} GiB (event {peak_a[1]}); peak reserved {gib(peak_r[0])} GiB "
              f"(event {peak_r[1]}, {gib(peak_r[2])} GiB allocated then: {gib(peak_r[0] - peak_r[2])} GiB "
              f"reserved beyond)")
        print(f"  reserved over recording by stream (GiB): "
              + ", ".join(f"stream {s:#x}: {b / GiB:.2f}" for s, b in by_stream.most_common() if b))
        wasted = [g for g in growth if g[4] >= g[5] > 0]
        print(f"  {len(growth)} reservations, {gib(sum(g[1] for g in growth))} GiB; {len(wasted)} of them "
              f"({gib(sum(g[1] for g in wasted))} GiB) made while the cache held at least the allocation's "
              f"size free (no free block fit: fragmentation, or the free blocks were another stream's)")
        print(f"  largest reservations: event, GiB reserved, stream, GiB allocated then, GiB cached free then, "
              f"MiB of the allocation that needed it")
        for g in sorted(growth, key=lambda g: -g[1])[:top]:
            print(f"    {g[0]:7d} {gib(g[1])} {g[2]:#16x} {gib(g[3])} {gib(g[4])} {g[5] / (1 << 20):10.1f}")
        per_stream = collections.defaultdict(lambda: [0, 0, 0, 0])
        for s in dsegs:
            k = (s.get("stream", 0), s.get("segment_type", "?"), bool(s.get("is_expandable", False)))
            v = per_stream[k]
            v[0] += 1
            v[1] += s["total_size"]
            v[2] += s["allocated_size"]
            v[3] = max([v[3]] + [b["size"] for b in s.get("blocks", []) if b.get("state") == "inactive"])
        print("  segments at the snapshot: stream, pool, expandable, count, GiB reserved, GiB allocated, "
              "largest free block MiB")
        for (stream, kind, exp), v in sorted(per_stream.items(), key=lambda kv: -kv[1][1]):
            print(f"    {stream:#16x} {kind:6s} {str(exp):5s} {v[0]:5d} {gib(v[1])} {gib(v[2])} {v[3] / (1 << 20):10.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("snapshot", help="a .pickle (or .pickle.gz) that --memory-snapshot wrote")
    ap.add_argument("--top", type=int, default=15, help="largest reservations to list (default 15)")
    a = ap.parse_args()
    summarize(load(a.snapshot), a.top)


if __name__ == "__main__":
    main()
