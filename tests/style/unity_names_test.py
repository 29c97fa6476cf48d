#!/usr/bin/env python3
"""Fails when a file-local name repeats within one build target.

The build compiles each target's files in unity batches (docs/design.md, "Build time"): any two
files of a target may end up in one translation unit, and which ones share a batch differs
between the Linux, Windows and fuzz builds and whenever a file is added. Two anonymous-namespace
helpers or `static` functions of one name then collide, or worse, one file's call binds to the
other's overload. So a name defined at file scope (directly in an anonymous namespace, or
`static`) must be unique within its target. A target is a folder: src/core/<domain>, src/app,
src/platform, src/adapters, tests/<group>, fuzz, bench (src/CMakeLists.txt, tests/CMakeLists.txt).
Windows-only files count too. Definitions come from Universal Ctags.
Usage: unity_names_test.py REPO_DIR
"""
import collections
import os
import sys

from ctags_tags import cxx_tags

ROOTS = ["src", "tests", "fuzz", "bench"]
IGNORED = {"main", "TEST", "TEST_F", "TEST_P", "INSTANTIATE_TEST_SUITE_P", "LLVMFuzzerTestOneInput"}


def target_of(path):
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 3 and parts[1] == "core":
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def file_local(tag):
    scope = tag.get("scope", "")
    if tag.get("kind") in ("namespace", "prototype", "macro", "member", "enumerator", "externvar"):
        return False
    if tag.get("scopeKind") == "namespace" and scope.rsplit("::", 1)[-1].startswith("__anon"):
        return True
    # `static` at namespace (or global) scope: ctags marks it with the file: field.
    return "file" in tag and tag.get("scopeKind", "namespace") == "namespace" and tag.get("kind") in ("function", "variable")


def main(argv):
    repo = argv[1]
    files = []
    for root in ROOTS:
        for dirpath, _, names in os.walk(os.path.join(repo, root)):
            rel = os.path.relpath(dirpath, repo).replace(os.sep, "/")
            if rel.startswith("tests/fixtures") or rel.startswith("tests/style/fixtures"):
                continue  # stand-alone stub programs and libraries, one target each; this test's own
            files += [os.path.join(dirpath, n) for n in names if n.endswith((".cc", ".cpp"))]
    if not files:
        print(f"unity_names: no C++ files under {repo}", file=sys.stderr)
        return 2
    tags = cxx_tags("unity_names", ["--kinds-C++=+p-m", "--fields=+nKZSf", "--extras=-q"], sorted(files))
    if tags is None:
        return 2
    places = collections.defaultdict(set)
    for tag in tags:
        if tag["name"] in IGNORED or tag["name"].startswith("__anon") or not file_local(tag):
            continue
        path = os.path.relpath(tag["path"], repo).replace(os.sep, "/")
        places[(target_of(path), tag["name"])].add(path)
    # *_posix files are compiled for Linux only, *_win32 ones for Windows only: they never meet.
    def meets(where):
        return max(len([p for p in where if "_win32" not in p]), len([p for p in where if "_posix" not in p])) > 1
    clashes = {k: v for k, v in places.items() if meets(v)}
    for (target, name), where in sorted(clashes.items()):
        print(f"{target}: '{name}' is defined file-locally in {len(where)} files: {', '.join(sorted(where))}; "
              "rename it in all but one, or move one shared copy into a header (a unity batch may join them)")
    if not places:
        print(f"unity_names: ctags found no file-local names under {repo}", file=sys.stderr)
        return 2
    print(f"unity_names: {len(places)} file-local names, {len(clashes)} repeated within a target")
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
