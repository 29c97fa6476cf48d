#!/usr/bin/env python3
"""Benchmark `cudnnup fleet DIR` over generated host reports, against the cost of reading the same
files, measured in the same run.

The reports are made from one real report of this machine (`cudnnup --json doctor`, schema
cudnnup.doctor/1 with "host"), so each file has a real report's size and shape; per host:
  host      gpu-node-NNNNN
  drift     about 5% of the hosts load another version (the loaded copy's "copies[].version" and
            "plain_program[].cudnn.version" changed)
  errors    about 2% of the hosts carry one more error-level finding (summary.errors + 1)
  not counted  a few files that fleet must list and not count: empty, truncated, two reports in
            one file, another document, a report without "host", and a second report of a host
            that is already there (duplicate)
With --hosts N there are N files in all, so the counted hosts are N minus the files not counted.

Each command runs pinned to one core (`taskset -c 0`), interleaved with the baselines:
  cat       `cat DIR/*.json > /dev/null` (reading every byte, from the page cache)
  python3   `python3 -c` that json.load()s every file (a parse of every document)
Peak RSS is GNU time's %M of each command on its own. Before timing, fleet's --json summary is
checked against what was generated (hosts, differing, with errors, not counted, exit code 1):
a fleet that miscounts fails the run instead of being timed.

Usage: bench/fleet_bench.py [--binary build/src/cudnnup] [--hosts 1000 10000] [--runs 5] [--core 0]
Prints a Markdown table (median of the runs)."""
import argparse
import copy
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIFT_EVERY = 20   # 5%
ERROR_EVERY = 50   # 2%
DRIFT_VERSION = "9.14.0.64"
PY_BASELINE = ("import glob, json, sys\n"
               "for f in sorted(glob.glob(sys.argv[1] + '/*.json')):\n"
               "    try:\n"
               "        json.load(open(f, 'rb'))\n"
               "    except ValueError:\n"
               "        pass\n")


def die(message):
    sys.exit("fleet_bench: " + message)


def real_report(binary):
    r = subprocess.run([binary, "--json", "doctor"], capture_output=True, text=True,
                       env={"HOME": os.environ.get("HOME", "/root"), "PATH": "/usr/bin:/bin"})
    if r.returncode not in (0, 1):
        die(f"{binary} --json doctor exited with {r.returncode}: {r.stderr.strip()[:500]}")
    doc = json.loads(r.stdout)
    if doc.get("schema") != "cudnnup.doctor/1" or "host" not in doc:
        die(f"doctor's report is not cudnnup.doctor/1 with a host: schema {doc.get('schema')!r}")
    return doc, r.stdout


def loaded_copy_dirs(doc):
    """The library directories of the copies a plain program loads in this report."""
    dirs = set()
    for load in doc.get("plain_program", []):
        res = load.get("resolution") or {}
        if not res.get("found"):
            continue
        for f in (res.get("canonical"), res.get("path")):
            if f:
                dirs.add(os.path.dirname(f))
    return dirs


def variants(doc):
    """Three documents as JSON text with a host placeholder: as measured, drifted, with an error."""
    dirs = loaded_copy_dirs(doc)
    if not dirs:
        die("in this machine's report a plain program loads no cuDNN: there is nothing to drift")
    drift = copy.deepcopy(doc)
    changed = 0
    for c in drift["copies"]:
        if c.get("lib_dir") in dirs:
            c["version"] = DRIFT_VERSION
            changed += 1
    for load in drift["plain_program"]:
        if (load.get("resolution") or {}).get("found") and isinstance(load.get("cudnn"), dict):
            load["cudnn"]["version"] = DRIFT_VERSION
    if not changed:
        die("no copy of the report lies where the plain program's cuDNN loads from")
    error = copy.deepcopy(doc)
    error["findings"].append({
        "id": "bench.synthetic_error", "severity": "error", "subject": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
        "title": "a synthetic error for the fleet benchmark", "detail": "made by bench/fleet_bench.py",
        "evidence": ["generated"], "fix": [], "fix_commands": [], "fix_steps": []})
    error["summary"]["errors"] += 1
    error["summary"]["exit_code"] = 1
    out = []
    for d in (doc, drift, error):
        d = dict(d, host="@@HOST@@")
        out.append(json.dumps(d, indent=2))
    return out


def generate(directory, hosts, texts, base_errors):
    """N files in all; returns what fleet's --json summary must say."""
    normal, drift, error = texts
    bad = {
        "zz-empty.json": "",
        "zz-truncated.json": normal.replace("@@HOST@@", "cut-short")[: len(normal) // 2],
        "zz-two-outputs.json": normal.replace("@@HOST@@", "twice-a") + normal.replace("@@HOST@@", "twice-b"),
        "zz-not-doctor.json": json.dumps({"schema": "cudnnup.check/1", "matches": True}),
        "zz-older.json": json.dumps({k: v for k, v in json.loads(normal).items() if k != "host"}, indent=2),
        "zz-duplicate.json": normal.replace("@@HOST@@", "gpu-node-00000"),
    }
    counted = hosts - len(bad)
    if counted < ERROR_EVERY:
        die(f"--hosts {hosts} is too few (at least {len(bad) + ERROR_EVERY})")
    n_drift = n_error = 0
    for i in range(counted):
        if i % DRIFT_EVERY == DRIFT_EVERY // 2:
            text, n_drift = drift, n_drift + 1
        elif i % ERROR_EVERY == 3:
            text, n_error = error, n_error + 1
        else:
            text = normal
        with open(os.path.join(directory, f"gpu-node-{i:05d}.json"), "w") as f:
            f.write(text.replace("@@HOST@@", f"gpu-node-{i:05d}"))
    for name, text in bad.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)
    with_errors = counted if base_errors else n_error
    return {"reports": hosts, "hosts": counted, "groups": 2, "differing": n_drift, "with_errors": with_errors,
            "not_counted": len(bad), "exit_code": 1}


def timed(argv):
    """Wall time (s), CPU time (s: user+sys of the children, GNU time wrapper included) and peak RSS (kB,
    GNU time %M) of one run; the exit code."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = t.read().split()[-1]
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), int(rss), r.returncode


def check_fleet(binary, directory, expected):
    r = subprocess.run([binary, "--json", "fleet", directory], capture_output=True, text=True)
    if r.returncode != 1:
        die(f"fleet --json exited with {r.returncode}, expected 1 (drift): {r.stderr.strip()[:500]}")
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        die(f"fleet --json printed no JSON ({e}): {r.stdout[:300]!r}")
    got = doc.get("summary", {})
    wrong = {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
    if wrong:
        die("fleet --json summary differs from what was generated (got, expected): " + json.dumps(wrong)
            + "\nproblems: " + json.dumps([(p["kind"], p["files"]) for p in doc.get("problems", [])])[:2000])
    kinds = sorted(p["kind"] for p in doc.get("problems", []))
    want = sorted(["empty", "truncated", "malformed", "not_doctor", "older_schema", "duplicate"])
    if kinds != want:
        die(f"fleet listed problems {kinds}, expected {want}")
    text = subprocess.run([binary, "fleet", directory], capture_output=True, text=True)
    if text.returncode != 1 or not text.stdout.strip():
        die(f"fleet (text) exited with {text.returncode} and printed {len(text.stdout)} bytes")
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "cudnnup"))
    ap.add_argument("--hosts", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--core", default="0", help="the CPU that every command is pinned to (taskset -c)")
    args = ap.parse_args()
    if not os.access("/usr/bin/time", os.X_OK):
        die("GNU time (/usr/bin/time) is needed for the peak RSS")
    if not shutil.which("taskset"):
        die("taskset (util-linux) is needed to pin the commands to one core")
    binary = os.path.abspath(args.binary)
    doc, raw = real_report(binary)
    texts = variants(doc)
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    pin = ["taskset", "-c", args.core]
    rows = []
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        for n in args.hosts:
            d = os.path.join(tmp, f"hosts-{n}")
            os.makedirs(d)
            expected = generate(d, n, texts, doc["summary"]["errors"] > 0)
            total_bytes = sum(os.path.getsize(f) for f in glob.glob(d + "/*.json"))
            check_fleet(binary, d, expected)
            commands = [
                ("fleet", pin + [binary, "fleet", d]),
                ("fleet --json", pin + [binary, "--json", "fleet", d]),
                ("cat", pin + ["sh", "-c", 'cat "$1"/*.json > /dev/null', "sh", d]),
                ("python3 json.load", pin + [python, "-c", PY_BASELINE, d]),
            ]
            for _, argv in commands:  # warm the page cache, and the binary's
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            samples = {name: [] for name, _ in commands}
            for _ in range(args.runs):
                for name, argv in commands:
                    wall, cpu, rss, rc = timed(argv)
                    want = 1 if name.startswith("fleet") else 0
                    if rc != want:
                        die(f"{name} over {n} reports exited with {rc}, expected {want}")
                    samples[name].append((wall, cpu, rss))
            for name, _ in commands:
                s = samples[name]
                rows.append((n, total_bytes, name, statistics.median(x[0] for x in s),
                             statistics.median(x[1] for x in s), max(x[2] for x in s)))
            shutil.rmtree(d)
    print(f"one real report of this machine: {len(raw)} bytes ({len(doc['copies'])} copies, "
          f"{len(doc['findings'])} findings); every command pinned to core {args.core}; median of {args.runs} "
          f"interleaved runs; peak RSS: the largest of the runs (GNU time %M)\n")
    print("| reports | bytes | command | wall | CPU | wall / cat | wall / python3 | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, total_bytes, name, wall, cpu, rss in rows:
        base = {r[2]: r[3] for r in rows if r[0] == n}
        print(f"| {n} | {total_bytes / 1e6:.1f} MB | `{name}` | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms "
              f"| {wall / base['cat']:.2f}x | {wall / base['python3 json.load']:.2f}x | {rss / 1024:.1f} MiB |")


if __name__ == "__main__":
    main()
