#!/usr/bin/env python3
"""Fails when a function under a source directory is longer than the project's limit.

The rule (docs/design.md, "Code"): no function longer than 120 lines, so that each one reads as
named steps. Function extents come from Universal Ctags (--fields=+ne gives each function's
first and last line), so lambdas inside a function count towards it, as a reader sees them.
Usage: function_length_test.py SRC_DIR [--limit N]
"""
import json
import shutil
import subprocess
import sys


def main(argv):
    src = argv[1]
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 120
    if not shutil.which("ctags"):
        print("function_length: ctags is missing; run scripts/install-deps.sh (universal-ctags)", file=sys.stderr)
        return 2
    out = subprocess.run(
        ["ctags", "-R", "--languages=C++", "--kinds-C++=f", "--fields=+ne", "--output-format=json",
         "-f", "-", src],
        check=True, capture_output=True, text=True).stdout
    long_ones = []
    functions = 0
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or "end" not in tag:
            continue
        functions += 1
        length = tag["end"] - tag["line"] + 1
        if length > limit:
            long_ones.append((length, tag["path"], tag["line"], tag["name"]))
    for length, path, first, name in sorted(long_ones, reverse=True):
        print(f"{path}:{first}: {name} is {length} lines (limit {limit}): split it into named steps")
    if functions == 0:
        print(f"function_length: ctags found no functions under {src}", file=sys.stderr)
        return 2
    print(f"function_length: {functions} functions under {src}, {len(long_ones)} longer than {limit} lines")
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
