#!/usr/bin/env python3
"""Fails when a function under a source directory is longer than the project's limit.

The rule (docs/design.md, "Code"): no function longer than 120 lines, so that each one reads as
named steps. Function extents come from Universal Ctags (--fields=+ne gives each function's
first and last line), so lambdas inside a function count towards it, as a reader sees them.
Usage: function_length_test.py SRC_DIR [--limit N]
"""
import sys

from ctags_tags import cxx_tags


def main(argv):
    src = argv[1]
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 120
    tags = cxx_tags("function_length", ["-R", "--kinds-C++=f", "--fields=+ne"], [src])
    if tags is None:
        return 2
    long_ones = []
    functions = 0
    for tag in tags:
        if "end" not in tag:
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
