#!/usr/bin/env python3
"""Benchmark `cudnnup check` (fast: one lstat per file, sums from the install manifest) and
`cudnnup check --deep` (sha256 of every file) on a store copy of about 1 GB, against baselines
measured in the same run:
  stat        `stat` of every file of the copy (one process, one stat per file: what fast mode must do)
  sha256sum   `sha256sum` of every file of the copy (coreutils)
  openssl     `openssl dgst -sha256` of every file (OpenSSL's SHA-256, as cudnnup uses: the floor of --deep)
  --version   `cudnnup --version` (the process start that every cudnnup command pays)

The copy is installed the way a user gets one: an official-layout archive
(cudnn-linux-x86_64-9.19.0.99_cuda13-archive: a build number NVIDIA never published, so no known
size or sha256 applies) holding this image's real cuDNN 9.19 libraries (`--lib-dir`, default
/usr/local/cuda-13.0/lib: 493 MB) as lib/libX.so.9.19.0 with the .so.9 and .so links, its headers,
and share/filler-N.bin files to reach --size bytes of files in all; `cudnnup install ARCHIVE` into
a temporary CUDNNUP_HOME, `cudnnup use --local ID` in a project folder, `cudnnup lock`. Then, with
the copy first on LD_LIBRARY_PATH (as after `eval "$(cudnnup env)"`), `check --json` and
`check --deep --json` must say the copy matches (exit 0, every file of the lock checked) before
anything is timed. The copy is read from the page cache (the machine has the memory; install has
just written it): --deep is timed hashing, not disk reads.

Usage: bench/check_bench.py [--binary build/src/cudnnup] [--size 1000000000] [--runs 11]
                            [--deep-runs 3] [--format tar.xz|tar] [--lib-dir DIR] [--include-dir DIR]
Prints a Markdown table (median wall time, CPU of the process and its children, peak RSS)."""
import argparse
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
TOP = "cudnn-linux-x86_64-9.19.0.99_cuda13-archive"
ID = "9.19.0.99+cuda13"
FILLER_CHUNK = 128 << 20  # the largest filler file: a real copy's big libraries are 100-250 MB


def die(message):
    sys.exit("check_bench: " + message)


def build_tree(src, lib_dir, include_dir, size):
    """The archive's tree; returns the bytes of its regular files."""
    top = os.path.join(src, TOP)
    for d in ("include", "lib", "share"):
        os.makedirs(os.path.join(top, d))
    total = 0
    for name in sorted(os.listdir(include_dir)):
        if name.startswith("cudnn") and name.endswith(".h"):
            shutil.copy(os.path.join(include_dir, name), os.path.join(top, "include", name))
            total += os.path.getsize(os.path.join(include_dir, name))
    libs = sorted(n for n in os.listdir(lib_dir) if n.startswith("libcudnn") and n.endswith(".so.9"))
    if "libcudnn.so.9" not in libs:
        die(f"no cuDNN 9 in {lib_dir} (libcudnn.so.9): give --lib-dir")
    for name in libs:
        base = name[: -len(".so.9")]
        shutil.copy(os.path.join(lib_dir, name), os.path.join(top, "lib", base + ".so.9.19.0"))
        os.symlink(base + ".so.9.19.0", os.path.join(top, "lib", base + ".so.9"))
        os.symlink(base + ".so.9", os.path.join(top, "lib", base + ".so"))
        total += os.path.getsize(os.path.join(lib_dir, name))
    with open(os.path.join(top, "LICENSE"), "w") as f:
        f.write("benchmark archive: real cuDNN 9.19 libraries and filler (bench/check_bench.py)\n")
    # Filler: a random 1 MiB block repeated (nothing is compressed away by xz's small window at -0,
    # and writing it is cheap); a new block per file, so no two files are equal.
    i = 0
    while total < size:
        n = min(FILLER_CHUNK, size - total)
        block = os.urandom(1 << 20)
        with open(os.path.join(top, "share", f"filler-{i}.bin"), "wb") as f:
            left = n
            while left > 0:
                f.write(block[: min(left, len(block))])
                left -= len(block)
        total += n
        i += 1
    return total


def make_archive(src, archive, fmt):
    if fmt == "tar":
        subprocess.run(["tar", "-C", src, "-cf", archive, TOP], check=True)
    else:
        with open(archive, "wb") as out:
            tar = subprocess.Popen(["tar", "-C", src, "-cf", "-", TOP], stdout=subprocess.PIPE)
            subprocess.run(["xz", "-0", "-T2"], stdin=tar.stdout, stdout=out, check=True)
            tar.stdout.close()
            if tar.wait() != 0:
                die("tar failed")


def run(argv, env, cwd=None, ok=(0,)):
    r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    if r.returncode not in ok:
        die(f"{' '.join(argv)} exited with {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def timed(argv, env, cwd, want_rc=0):
    """Wall time (s), CPU (s: user+sys of the process and its children, the GNU time wrapper included)
    and peak RSS (kB, GNU time %M) of one run."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + argv, env=env, cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = t.read().split()[-1]
    if r.returncode != want_rc:
        die(f"{' '.join(argv[:4])} ... exited with {r.returncode}, expected {want_rc}: {r.stderr[-1000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), int(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "cudnnup"))
    ap.add_argument("--size", type=int, default=1000 * 1000 * 1000, help="bytes of regular files in the copy")
    ap.add_argument("--runs", type=int, default=11, help="runs of the fast commands (check, stat, --version)")
    ap.add_argument("--deep-runs", type=int, default=3, help="runs of the commands that read every byte")
    ap.add_argument("--format", choices=("tar", "tar.xz"), default="tar.xz")
    ap.add_argument("--lib-dir", default="/usr/local/cuda-13.0/lib")
    ap.add_argument("--include-dir", default="/usr/local/cuda-13.0/include")
    ap.add_argument("--work", help="a folder for the temporary files (default: the system's temporary folder)")
    args = ap.parse_args()
    if not os.access("/usr/bin/time", os.X_OK):
        die("GNU time (/usr/bin/time) is needed for the peak RSS")
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="check-bench-", dir=args.work) as tmp:
        src, home, store, proj = (os.path.join(tmp, d) for d in ("src", "home", "store", "proj"))
        os.makedirs(home)
        os.makedirs(proj)
        payload = build_tree(src, args.lib_dir, args.include_dir, args.size)
        archive = os.path.join(tmp, f"{TOP}.{args.format}")
        start = time.perf_counter()
        make_archive(src, archive, args.format)
        pack_s = time.perf_counter() - start
        shutil.rmtree(src)
        archive_bytes = os.path.getsize(archive)
        copy_dir = os.path.join(store, "versions", ID)
        env = {"HOME": home, "PATH": "/usr/bin:/bin", "CUDNNUP_HOME": store, "NO_COLOR": "1",
               "LD_LIBRARY_PATH": os.path.join(copy_dir, "lib")}
        start = time.perf_counter()
        run([binary, "install", archive], env)
        install_s = time.perf_counter() - start
        os.remove(archive)
        run([binary, "use", "--local", ID], env, cwd=proj)
        run([binary, "lock"], env, cwd=proj)
        with open(os.path.join(proj, "cudnn.lock")) as f:
            lock = json.load(f)
        files = [os.path.join(copy_dir, e["path"]) for e in lock["files"] if "link" not in e]
        links = len(lock["files"]) - len(files)
        copy_bytes = sum(os.path.getsize(f) for f in files)
        # The copy must match before it is timed: a check that stops early would be timed as a fast one.
        for deep in ([], ["--deep"]):
            r = run([binary, "--json", "check"] + deep, env, cwd=proj, ok=(0, 1))
            doc = json.loads(r.stdout)
            if r.returncode != 0 or doc.get("matches") is not True or doc.get("drift"):
                die(f"check {' '.join(deep)} says the fresh copy does not match its lock (exit {r.returncode}): "
                    + json.dumps(doc.get("drift"))[:2000])
            if doc.get("files_checked") != len(lock["files"]):
                die(f"check {' '.join(deep)} checked {doc.get('files_checked')} files; the lock has {len(lock['files'])}")
        fast = [
            ("`cudnnup check`", [binary, "check"]),
            ("`cudnnup --version` (process start)", [binary, "--version"]),
            ("`stat` of every file", ["stat", "-c", "%s %Y"] + files),
        ]
        deep = [
            ("`cudnnup check --deep`", [binary, "check", "--deep"]),
            ("`sha256sum` of every file", ["sha256sum"] + files),
            ("`openssl dgst -sha256` of every file", ["openssl", "dgst", "-sha256"] + files),
        ]
        for _, argv in fast + deep:  # warm
            subprocess.run(argv, env=env, cwd=proj, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples = {name: [] for name, _ in fast + deep}
        deep_rounds = {round(i * (args.runs - 1) / max(1, args.deep_runs - 1)) for i in range(args.deep_runs)}
        for i in range(args.runs):
            for name, argv in fast:
                samples[name].append(timed(argv, env, proj))
            if i in deep_rounds:
                for name, argv in deep:
                    samples[name].append(timed(argv, env, proj))
        load = open("/proc/loadavg").read().split()[:3]
    print(f"copy: {copy_bytes} bytes in {len(files)} files and {links} links (lock entries: {len(lock['files'])}); "
          f"{args.format} archive {archive_bytes} bytes, packed in {pack_s:.1f} s, `cudnnup install` {install_s:.1f} s; "
          f"load average after the run: {' '.join(load)}\n")
    print("| command | runs | wall (median) | CPU (median) | peak RSS | / `cudnnup --version` | / `stat` |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    ver = statistics.median(x[0] for x in samples["`cudnnup --version` (process start)"])
    st = statistics.median(x[0] for x in samples["`stat` of every file"])
    for name, _ in fast + deep:
        s = samples[name]
        wall = statistics.median(x[0] for x in s)
        cpu = statistics.median(x[1] for x in s)
        rss = max(x[2] for x in s)
        shown = f"{wall * 1000:.1f} ms" if wall < 1 else f"{wall:.2f} s"
        cpu_shown = f"{cpu * 1000:.1f} ms" if cpu < 1 else f"{cpu:.2f} s"
        print(f"| {name} | {len(s)} | {shown} | {cpu_shown} | {rss / 1024:.1f} MiB | {wall / ver:.2f}x | {wall / st:.2f}x |")
    for name in ("`cudnnup check --deep`", "`sha256sum` of every file", "`openssl dgst -sha256` of every file"):
        wall = statistics.median(x[0] for x in samples[name])
        print(f"\n{name}: {copy_bytes / wall / 1e9:.2f} GB/s", end="")
    print()


if __name__ == "__main__":
    main()
