#!/usr/bin/env python3
"""Benchmark `cudnnup explain --no-doctor --file LOG` on 1 MB logs, against the start-up of
`python3 -c pass` and a plain `grep -c cudnn LOG` measured in the same run:
  noise     1 MB of training-log lines with no known message (the needle pre-filter's best case)
  mixed     1 MB of noise with every real log of tests/data/explain (and its corpus/) spread through it
  dense     1 MB made only of the real logs, repeated (thousands of matches to rank and merge)
  long      1 MB in 20 lines of 50 KB (a minified JSON dump): long-line handling
  distinct  1 MB of sub-library load failures, each naming another version (7,000 distinct
            messages: explain explains the first 100 and counts the rest)

Usage: bench/explain_bench.py [--binary build/src/cudnnup] [--runs 9] [--baseline OTHER_BINARY]
Prints the date and the machine's load, then a Markdown table: median wall and CPU time and peak
memory (maximum resident set) of the runs, the CPU ratio to python3 -c pass, and grep -c of the
same file. Issue 19's target: a median
under 50 ms for a 1 MB log. With --baseline (an older build), the two binaries also run
alternately --runs times per log, and a second table gives both medians, so a change is compared
under the same load."""
import argparse
import glob
import os
import random
import sys
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZE = 1 << 20


def measure(argv, runs):
    """Median wall time, median CPU time (user+sys of the child: on a shared, loaded machine the
    steadier figure) and median peak memory in MiB, each child's own (wait4)."""
    wall, cpu, rss = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0  # reaped here; keeps Popen from waiting again
        wall.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024)
    return statistics.median(wall), statistics.median(cpu), statistics.median(rss)


def time_command(argv, runs):
    wall, cpu, _ = measure(argv, runs)
    return wall, cpu


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
    if kind == "distinct":
        while size < SIZE:
            lib = f"libcudnn_cnn_infer.so.8.{i}"
            chunk = f"Could not load library {lib}. Error: {lib}: cannot open shared object file: No such file or directory\n"
            parts.append(chunk)
            size += len(chunk)
            i += 1
        return "".join(parts)
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
    print("| log (1 MB) | explain wall | explain CPU | peak memory | CPU ratio to python3 -c pass | grep -c cudnn wall |")
    print("|---|---|---|---|---|---|")
    kinds = ("noise", "mixed", "dense", "long", "distinct")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for kind in kinds:
            paths[kind] = os.path.join(tmp, kind + ".log")
            with open(paths[kind], "w", encoding="utf-8") as f:
                f.write(build(kind, logs, rng))
            t, tc, mem = measure(explain_argv(args.binary, paths[kind]), args.runs)
            g, _ = time_command(["grep", "-c", "cudnn", paths[kind]], args.runs)
            print(f"| {kind} | {t * 1000:.0f} ms | {tc * 1000:.0f} ms | {mem:.0f} MiB | {tc / baseline_cpu:.1f}x | {g * 1000:.1f} ms |")
        if args.baseline:
            print(f"\nAlternating {args.baseline} (baseline) and {args.binary}, {args.runs} runs each per log (median wall):\n")
            print("| log (1 MB) | baseline | this binary | ratio | baseline memory | this binary's | ratio |")
            print("|---|---|---|---|---|---|---|")
            for kind in kinds:
                before, after = [], []
                for _ in range(args.runs):
                    before.append(measure(explain_argv(args.baseline, paths[kind]), 1))
                    after.append(measure(explain_argv(args.binary, paths[kind]), 1))
                b, a = statistics.median(x[0] for x in before), statistics.median(x[0] for x in after)
                bm, am = statistics.median(x[2] for x in before), statistics.median(x[2] for x in after)
                print(f"| {kind} | {b * 1000:.1f} ms | {a * 1000:.1f} ms | {a / b:.2f}x | {bm:.0f} MiB | {am:.0f} MiB | {am / bm:.2f}x |")


def explain_argv(binary, path):
    return [binary, "explain", "--no-doctor", "--json", "--file", path]


if __name__ == "__main__":
    main()
