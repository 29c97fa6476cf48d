#!/usr/bin/env python3
"""Benchmark `cudnnup doctor --json` (no GPU work) against the start-up of `python3 -c pass`,
measured in the same run, on:
  real      this machine as it is (HOME empty)
  envs-N    HOME with N conda environments listed in ~/.conda/environments.txt, every 10th holding
            a pip cuDNN (stub libraries from build/tests/fixtures)
  big-disk  HOME with 200 environments plus 50,000 unrelated files: the time must not move,
            because doctor never crawls the disk
  llp       this machine with a stub 9.14 set first on LD_LIBRARY_PATH (doctor then also models
            every load without the variable)
and, in the real scenario, `cudnnup --version` (start-up and exit with next to no work). Each
binary's size (and its cudnnup-child's) is printed first.

Doctor keeps its probe answers between runs (docs/commands/doctor.md, "The probe cache"), in a
cache directory of the scenario's HOME, one per binary (XDG_CACHE_HOME). Each scenario waits until
its files are older than the cache's 2-second settle window, and a warm-up run fills the cache;
`doctor --json` is then timed with the answers reused, and `doctor --json --fresh` with every copy
probed again (a binary without --fresh, an older build, has no cache: its plain run is the fresh
one).

Usage: bench/doctor_bench.py [--binary build/src/cudnnup] [--before OTHER_BINARY] [--runs 15]
                             [--fixtures build/tests/fixtures]
With --before, both binaries run interleaved with python3 in the same run (before/after figures).
Prints a Markdown table (median wall time of the runs, and the ratio to python3 -c pass)."""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def time_command(argv, env, runs):
    """Median wall time and median CPU time (user+sys of the process and its children)."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return statistics.median(wall), statistics.median(cpu)


def make_envs(home, count, stub_dir):
    lines = []
    for i in range(count):
        prefix = os.path.join(home, "conda", "envs", f"env{i:03d}")
        sp = os.path.join(prefix, "lib", "python3.11", "site-packages")
        os.makedirs(os.path.join(prefix, "conda-meta"), exist_ok=True)
        os.makedirs(sp, exist_ok=True)
        if i % 10 == 0:
            lib = os.path.join(sp, "nvidia", "cudnn", "lib")
            os.makedirs(lib, exist_ok=True)
            for name in os.listdir(stub_dir):
                shutil.copy(os.path.join(stub_dir, name), os.path.join(lib, name))
        lines.append(prefix)
    os.makedirs(os.path.join(home, ".conda"), exist_ok=True)
    with open(os.path.join(home, ".conda", "environments.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def make_clutter(home, files):
    base = os.path.join(home, "data")
    for i in range(files):
        d = os.path.join(base, f"d{i // 500:03d}")
        if i % 500 == 0:
            os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.bin"), "wb") as f:
            f.write(b"x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "cudnnup"))
    ap.add_argument("--before", help="another cudnnup binary (e.g. an older build) to time in the same run")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--fixtures", default=os.path.join(ROOT, "build", "tests", "fixtures"),
                    help="the stub libraries' folder of a test build (default: build/tests/fixtures)")
    args = ap.parse_args()
    binaries = ([("before", args.before)] if args.before else []) + [("after" if args.before else "", args.binary)]
    stub_dir = os.path.join(args.fixtures, "v9.19.0")
    if not os.path.isdir(stub_dir):
        sys.exit("build the tests first (cmake --build --preset default): fixture stubs are missing")
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    fresh_supported = {b: "--fresh" in subprocess.run([b, "doctor", "--help"], capture_output=True, text=True).stdout
                       for _, b in binaries}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        scenarios = [("real", 0, 0, False), ("envs-50", 50, 0, False), ("envs-100", 100, 0, False),
                     ("envs-200", 200, 0, False), ("envs-400", 400, 0, False),
                     ("big-disk (200 envs + 50k files)", 200, 50000, False), ("llp (stub 9.14 on LD_LIBRARY_PATH)", 0, 0, True)]
        for name, envs, clutter, llp in scenarios:
            home = os.path.join(tmp, name.split()[0])
            os.makedirs(home)
            if envs:
                make_envs(home, envs, stub_dir)
            if clutter:
                make_clutter(home, clutter)
            env = {"HOME": home, "PATH": "/usr/bin:/bin"}
            if llp:
                lib = os.path.join(home, "stub914", "lib")
                os.makedirs(lib)
                src = os.path.join(args.fixtures, "v9.14.0")
                for f in os.listdir(src):
                    shutil.copy(os.path.join(src, f), os.path.join(lib, f))
                env["LD_LIBRARY_PATH"] = lib
            time.sleep(2.2)  # past the probe cache's settle window for the files just made
            # Warm the page cache once, then interleave python3 and each binary so all see the
            # same machine load.
            # A doctor that does not run (a missing shared library, a crash) would be timed as a
            # fast one: its exit code must be doctor's own (0 healthy, 1 findings).
            subprocess.run([python, "-c", "pass"], env=env, check=False)  # python3's files cached too
            # Each binary keeps its probe cache in its own XDG_CACHE_HOME: an older binary's cache
            # does not match a newer one's, and one shared file would make every interleaved
            # "cache reused" run a fresh one.
            env_of = {binary: dict(env, XDG_CACHE_HOME=os.path.join(home, f".cache-{i}"))
                      for i, (_, binary) in enumerate(binaries)}
            for _, binary in binaries:
                warm = subprocess.run([binary, "doctor", "--json"], env=env_of[binary], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
                if warm.returncode not in (0, 1):
                    sys.exit(f"{binary} doctor --json exited with {warm.returncode}: {warm.stderr.strip()[:500]}")
            commands = ([("", ["doctor", "--json"]), ("--fresh", ["doctor", "--json", "--fresh"])] +
                        ([("--version", ["--version"])] if name == "real" else []))
            py_w, py_c = [], []
            doc_w = {(b, c): [] for _, b in binaries for c, _ in commands}
            doc_c = {(b, c): [] for _, b in binaries for c, _ in commands}
            for run in range(args.runs):
                w, c = time_command([python, "-c", "pass"], env, 1)
                py_w.append(w)
                py_c.append(c)
                # One command at a time for every binary, in turns. The order before always ran the
                # second binary's cached doctor right after the first one's --fresh run (with its
                # probe children), and its envs figures were off: envs-200 read 56 -> 67 ms one
                # way round and 51 -> 52 ms the other (2026-12-07).
                order = binaries if run % 2 == 0 else binaries[::-1]
                for command, argv in commands:
                    for _, binary in order:
                        if command == "--fresh" and not fresh_supported[binary]:
                            continue
                        w, c = time_command([binary] + argv, env_of[binary], 1)
                        doc_w[(binary, command)].append(w)
                        doc_c[(binary, command)].append(c)
            py = (statistics.median(py_w), statistics.median(py_c))
            for command, _ in commands:
                for label, binary in binaries:
                    if not doc_w[(binary, command)]:
                        continue
                    doc = (statistics.median(doc_w[(binary, command)]), statistics.median(doc_c[(binary, command)]))
                    out = subprocess.run([binary, "doctor", "--json"], env=env_of[binary], capture_output=True, text=True).stdout
                    copies = "-" if command == "--version" else out.count('"lib_dir"')
                    shown = f"{name}: `{command}`" if command else name
                    rows.append((shown + (f" [{label}]" if label else ""), doc, py, copies))
    for label, binary in binaries:
        child = os.path.join(os.path.dirname(binary), "cudnnup-child")
        size = os.path.getsize(binary) / 1e6
        child_size = f", cudnnup-child {os.path.getsize(child) / 1e6:.1f} MB" if os.path.exists(child) else ""
        print(f"{label or 'binary'}: {binary} ({size:.1f} MB{child_size})")
    print(f"median of {args.runs} interleaved runs; baseline `{python} -c pass` measured in the same run;")
    print("CPU = user+sys of the process and its children (doctor's probe children included)\n")
    print("| scenario | cuDNN copies found | cudnnup wall | python3 wall | wall ratio | cudnnup CPU | python3 CPU | CPU ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, doc, py, copies in rows:
        print(f"| {name} | {copies} | {doc[0] * 1000:.1f} ms | {py[0] * 1000:.1f} ms | {doc[0] / py[0]:.2f}x "
              f"| {doc[1] * 1000:.1f} ms | {py[1] * 1000:.1f} ms | {doc[1] / py[1]:.2f}x |")


if __name__ == "__main__":
    main()
