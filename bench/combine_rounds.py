#!/usr/bin/env python3
"""Combines alternating rounds of `cudnnup bench --json` and bench/pytorch_conv.py into one table.

  python3 bench/combine_rounds.py DIR
      reads DIR/cudnnup_<n>.json and DIR/pytorch_<n>.json (n = 1, 2, ...), and prints, per case,
      each side's median time over the rounds and the ratio of the medians (PyTorch ms / cudnnup ms,
      so > 1 means cudnnup is faster). Rounds alternate which side goes first
      (bench/gpu_bench_rounds.sh), so a drift over the run (clocks, temperature) does not favour
      either side. Exit 1 when any ratio is below 0.95 (the target in docs/benchmarks.md).
"""
import glob
import json
import os
import statistics
import sys


def load(pattern):
    runs = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            runs.append({r["key"]: r for r in json.load(f)["rows"] if r.get("ms", 0) > 0})
    return runs


def main(d):
    ours, theirs = load(os.path.join(d, "cudnnup_*.json")), load(os.path.join(d, "pytorch_*.json"))
    if not ours or not theirs:
        print("no cudnnup_*.json or pytorch_*.json in " + d, file=sys.stderr)
        return 2
    below = 0
    print(f"{len(ours)} cudnnup rounds, {len(theirs)} PyTorch rounds; times are medians over rounds")
    print(f"{'case':42s} {'cudnnup ms':>10s} {'TFLOP/s':>8s} {'PyTorch ms':>10s} {'TFLOP/s':>8s} {'ratio':>6s}  per-round ratios")
    for key in ours[0]:
        ms_ours = [r[key]["ms"] for r in ours if key in r]
        ms_theirs = [r[key]["ms"] for r in theirs if key in r]
        if not ms_theirs:
            continue
        flops = ours[0][key]["flops"]
        a, b = statistics.median(ms_ours), statistics.median(ms_theirs)
        ratio = b / a
        below += ratio < 0.95
        per_round = " ".join(f"{t / o:.2f}" for o, t in zip(ms_ours, ms_theirs))
        print(f"{key:42s} {a:10.4f} {flops / a / 1e9:8.1f} {b:10.4f} {flops / b / 1e9:8.1f} {ratio:6.2f}  {per_round}"
              + ("  BELOW 0.95" if ratio < 0.95 else ""))
    print(f"cases below 0.95x: {below}")
    return 1 if below else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
