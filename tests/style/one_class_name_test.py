#!/usr/bin/env python3
"""Fails when two classes or structs of one name are defined in the same named namespace.

Two definitions of `cudnnup::Candidate` in different files are one class to the linker (the
one-definition rule): each file's inline functions of vector<Candidate> are kept once, and the
other file's objects go through them. The portable build's explain did exactly that (a loader
candidate's string built over an explain candidate: "basic_string::_M_construct null not
valid"). Types in an anonymous namespace or inside a class are not shared, so they may repeat.
Extents come from Universal Ctags. Usage: one_class_name_test.py SRC_DIR
"""
import collections
import sys

from ctags_tags import cxx_tags


def main(argv):
    src = argv[1]
    tags = cxx_tags("one_class_name", ["-R", "--kinds-C++=cs", "--fields=+nZ"], [src])
    if tags is None:
        return 2
    places = collections.defaultdict(set)
    for tag in tags:
        if tag.get("scopeKind") != "namespace":
            continue
        scope = tag.get("scope", "")
        if "__anon" in scope:
            continue
        places[(scope, tag["name"])].add(f'{tag["path"]}:{tag["line"]}')
    clashes = {k: v for k, v in places.items() if len(v) > 1}
    for (scope, name), where in sorted(clashes.items()):
        print(f"{scope}::{name} is defined {len(where)} times: {', '.join(sorted(where))}; rename one "
              "(the linker keeps one class of a name)")
    if not places:
        print(f"one_class_name: ctags found no classes under {src}", file=sys.stderr)
        return 2
    print(f"one_class_name: {len(places)} classes under {src}, {len(clashes)} names defined twice")
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
