#!/usr/bin/env python3
"""Benchmark `cudnnup explain --no-doctor --file LOG` on 1 MB logs, against the start-up of
`python3 -c pass` and a plain `grep -c cudnn LOG` measured in the same run:
  noise     1 MB of training-log lines with no known message (the needle pre-filter's best case)
  mixed     1 MB of noise with every real log of tests/data/explain (and its corpus/) spread through it
  dense     1 MB made only of the real logs, repeated (thousands of matches to rank and merge)
  long      1 MB in 20 lines of 50 KB (a minified JSON dump): long-line handling

Usage: bench/explain_bench.py [--binary build/src/cudnnup] [--runs 9] [--baseline OTHER_BINARY]
Prints the date and the machine's load, then a Markdown table: median wall and CPU time of the
runs, the CPU ratio to python3 -c pass, and grep -c of the same file. Issue 19's target: a median
under 50 ms for a 1 MB log. With --baseline (an older build), the two binaries also run
alternately --runs times per log, and a second table gives both medians, so a change is compared
under the same load."""
import argparse
import glob
import os
import random
import sys
import shutil
import resource
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZE = 1 << 20


def time_command(argv, runs):
    """Median wall time and median CPU time (user+sys of the child): on a shared, loaded machine
    the CPU time is the steadier figure."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def real_logs():
    out = []
    paths = glob.glob(os.path.join(ROOT, "tests", "data", "explain", "*.log"))
    paths += glob.glob(os.path.join(ROOT, "tests", "data", "explain", "corpus", "*.log"))
    for path in sorted(paths):
        with open(path, encoding="utf-8") as f:
            out.append("".join(l for l in f if not l.startswith("#@ ")))
    return out


def noise_line(rng, i):
    return (f"2024-05-0{rng.randint(1, 9)} 12:{rng.randint(10, 59)}:{rng.randint(10, 59)},123 - INFO - "
            f"epoch {i // 100} step {i} loss={rng.random():.4f} lr=3e-4 tokens/s={rng.randint(1000, 9999)}\n")


def build(kind, logs, rng):
    parts, size, i = [], 0, 0
    if kind == "long":
        line = '{"k": "' + "x" * (50 * 1024 - 20) + '"}\n'
        return line * (SIZE // len(line))
    while size < SIZE:
        if kind == "dense" or (kind == "mixed" and i % 400 == 0):
            chunk = logs[i % len(logs)]
        else:
            chunk = noise_line(rng, i)
        parts.append(chunk)
        size += len(chunk)
        i += 1
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "cudnnup"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--baseline", help="an older cudnnup to run alternately with --binary")
    args = ap.parse_args()
    rng = random.Random(7)
    logs = real_logs()
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    # The system's python3, not a shim earlier on PATH (pyenv's is a shell script), as doctor_bench.py.
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    baseline, baseline_cpu = time_command([python, "-c", "pass"], args.runs)
    print(f"python3 -c pass: {baseline * 1000:.1f} ms wall, {baseline_cpu * 1000:.1f} ms CPU (median of {args.runs})\n")
    print("| log (1 MB) | explain wall | explain CPU | CPU ratio to python3 -c pass | grep -c cudnn wall |")
    print("|---|---|---|---|---|")
    kinds = ("noise", "mixed", "dense", "long")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for kind in kinds:
            paths[kind] = os.path.join(tmp, kind + ".log")
            with open(paths[kind], "w", encoding="utf-8") as f:
                f.write(build(kind, logs, rng))
            t, tc = time_command(explain_argv(args.binary, paths[kind]), args.runs)
            g, _ = time_command(["grep", "-c", "cudnn", paths[kind]], args.runs)
            print(f"| {kind} | {t * 1000:.0f} ms | {tc * 1000:.0f} ms | {tc / baseline_cpu:.1f}x | {g * 1000:.1f} ms |")
        if args.baseline:
            print(f"\nAlternating {args.baseline} (baseline) and {args.binary}, {args.runs} runs each per log (median wall):\n")
            print("| log (1 MB) | baseline | this binary | ratio |")
            print("|---|---|---|---|")
            for kind in kinds:
                before, after = [], []
                for _ in range(args.runs):
                    before.append(time_command(explain_argv(args.baseline, paths[kind]), 1)[0])
                    after.append(time_command(explain_argv(args.binary, paths[kind]), 1)[0])
                b, a = statistics.median(before), statistics.median(after)
                print(f"| {kind} | {b * 1000:.1f} ms | {a * 1000:.1f} ms | {a / b:.2f}x |")


def explain_argv(binary, path):
    return [binary, "explain", "--no-doctor", "--json", "--file", path]


if __name__ == "__main__":
    main()
