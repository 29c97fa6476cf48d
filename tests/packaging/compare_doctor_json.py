#!/usr/bin/env python3
"""Compares two `cudnnup doctor --json` documents of the same machine, ignoring timings.

Usage: compare_doctor_json.py WHAT A.json B.json
Keys that hold a duration or a moment (their name ends in _ms, _seconds, _at or is elapsed,
duration, time or timestamp) are left out on both sides; everything else must be equal. Prints
"ok: WHAT ..." or "FAIL: WHAT ..." with the first differing JSON path; exits 0 or 1."""
import json
import re
import sys

TIMING = re.compile(r"(_ms|_seconds|_at)$|^(elapsed|duration|time|timestamp)$")


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not TIMING.search(k)}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} against {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'the second' if key in b else 'the first'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:200]} against {json.dumps(b)[:200]}"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    what, first, second = sys.argv[1:]
    try:
        docs = [json.load(open(p)) for p in (first, second)]
    except (OSError, ValueError) as e:
        print(f"FAIL: {what}: not two JSON documents: {e}")
        return 1
    for doc, p in zip(docs, (first, second)):
        if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("cudnnup.doctor/"):
            print(f"FAIL: {what}: {p} is not a doctor report")
            return 1
    found = first_difference(*map(without_timings, docs))
    if found:
        print(f"FAIL: {what}: the reports differ at {found}")
        return 1
    print(f"ok: {what}: the same report ({len(docs[0].get('copies', []))} copies, "
          f"{len(docs[0].get('findings', []))} findings), timings aside")
    return 0


if __name__ == "__main__":
    sys.exit(main())
