#!/usr/bin/env python3
"""Where a command's page faults land: `perf record -e page-faults -d` of one run, each faulting
address put in the mapping it belongs to and, inside the command's own executable, in the ELF
section (so .data.rel.ro's copy-on-write faults, written by the dynamic linker's relocations,
show apart from text and data). docs/benchmarks.md quotes it for `cudnnup doctor --json`.

Usage: bench/page_faults.py BINARY [ARG...]      (needs perf; run it as root or with
                                                 kernel.perf_event_paranoid <= 1)
The section names need a binary with section headers; a stripped one keeps them."""
import collections
import os
import re
import subprocess
import sys
import tempfile


def sections(binary):
    """(name, start, size) of the binary's allocated sections, by address."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            found.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.realpath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data, binary] + sys.argv[2:],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "pid,addr"],
                                capture_output=True, text=True, check=True).stdout
    maps, addrs, pid = [], [], None
    for line in script.splitlines():
        m = re.search(r"PERF_RECORD_MMAP2? (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[^\]]*\]: \S+ (.*)", line)
        if m:
            # perf's own child faults before it execs the command: only the command's process counts.
            if m.group(5).strip() == binary:
                pid = m.group(1)
            maps.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16), m.group(5).strip()))
        elif line.split() and line.split()[-1].isalnum() and len(line.split()) == 2:
            addrs.append((line.split()[0], int(line.split()[1], 16)))
    own = [m for m in maps if m[0] == pid]
    base = min(start - offset for _, start, _, offset, name in own if name == binary)
    secs = sections(binary)
    counts = collections.Counter()
    for p, a in addrs:
        if p != pid:
            continue
        where = "[anonymous or unmapped: heap, stack, bss past the file]"
        for _, start, size, _, name in own:  # later mappings overlay earlier ones
            if start <= a < start + size:
                where = os.path.basename(name) or name
        if where == os.path.basename(binary) or a - base < max((s + n for _, s, n in secs), default=0):
            rel = a - base
            where = next((f"{os.path.basename(binary)} {n}" for n, s, size in secs if s <= rel < s + max(size, 1)), where)
        counts[where] += 1
    print(f"{sum(counts.values())} page faults of `{' '.join([binary] + sys.argv[2:])}`:")
    for where, n in counts.most_common():
        print(f"{n:6d}  {where}")


if __name__ == "__main__":
    main()
