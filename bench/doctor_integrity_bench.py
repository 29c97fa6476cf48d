#!/usr/bin/env python3
"""What checking installed files against their install manifests costs `cudnnup doctor --json`
(core/install_integrity.h): the same machine with an empty store, with a store of V versions of
F files each (manifests with real sizes and sha256), and that store with `--deep` (sha256 of every
file). Runs are interleaved so all three see the same load; medians are printed as Markdown.

Usage: bench/doctor_integrity_bench.py [--binary build/src/cudnnup] [--runs 11]
       [--versions 3] [--files 30] [--file-kib 256]"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_store(root, versions, files, size):
    for v in range(versions):
        vid = f"9.{v + 1}.0.{10 + v}+cuda13"
        vdir = os.path.join(root, "versions", vid)
        entries = []
        for i in range(files):
            rel = f"lib/libcudnn_part{i}.so.9.{v + 1}.0"
            data = os.urandom(size)
            os.makedirs(os.path.dirname(os.path.join(vdir, rel)), exist_ok=True)
            with open(os.path.join(vdir, rel), "wb") as f:
                f.write(data)
            entries.append({"path": rel, "source": rel, "type": "file", "size": size,
                            "sha256": hashlib.sha256(data).hexdigest()})
        manifest = {"schema": 1, "mode": "store", "id": vid, "cudnn_version": vid.split("+")[0],
                    "cuda_variant": "13", "cuda_major": 13, "platform": "linux-x86_64", "files": entries,
                    "moved_aside": []}
        with open(os.path.join(vdir, "cudnnup-manifest.json"), "w") as f:
            json.dump(manifest, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "cudnnup"))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--versions", type=int, default=3)
    ap.add_argument("--files", type=int, default=30)
    ap.add_argument("--file-kib", type=int, default=256)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empty, store, home = (os.path.join(tmp, d) for d in ("empty", "store", "home"))
        for d in (empty, home):
            os.makedirs(d)
        make_store(store, args.versions, args.files, args.file_kib * 1024)
        base = {"PATH": "/usr/bin:/bin", "HOME": home}
        cases = [("empty store", empty, []), (f"store: {args.versions} versions x {args.files} files", store, []),
                 ("same store, --deep", store, ["--deep"])]
        times = {name: [] for name, _, _ in cases}
        for _ in range(args.runs):
            for name, st, extra in cases:
                env = dict(base, CUDNNUP_HOME=st)
                start = time.perf_counter()
                subprocess.run([args.binary, "--json", "doctor", *extra], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
                times[name].append(time.perf_counter() - start)
        total_mib = args.versions * args.files * args.file_kib / 1024
        print(f"median of {args.runs} interleaved runs; {total_mib:.0f} MiB installed in the store\n")
        print("| case | doctor wall |\n| --- | --- |")
        for name, _, _ in cases:
            print(f"| {name} | {statistics.median(times[name]) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
