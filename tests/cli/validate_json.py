#!/usr/bin/env python3
"""Checks cudnnup's JSON documents against the JSON Schemas in docs/schema (draft 2020-12) with
python3-jsonschema, the way tests/cli/json_contract_posix_test.cc uses it.

usage: validate_json.py SCHEMA_DIR [--expect-invalid] [--require-all [--untested NAME,...]] DOC.json...

Each document names its own schema: "schema": "cudnnup.doctor/1" is doctor-1.schema.json.
Prints one line per document and exits 0 when every document is valid (with --expect-invalid:
when every document is rejected). --require-all also fails when a schema file was not used by
any document, except the ones named with --untested.
"""
import json
import os
import re
import sys

import jsonschema


def load_schemas(schema_dir):
    schemas = {}
    for name in sorted(os.listdir(schema_dir)):
        if not name.endswith(".schema.json"):
            continue
        with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        if schema.get("$id") != name:
            raise SystemExit(f"{name}: $id must be the file name, found {schema.get('$id')!r}")
        schemas[name] = schema
    return schemas


def validator_for(schema, schemas):
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (name, Resource.from_contents(s)) for name, s in schemas.items())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        resolver = jsonschema.RefResolver(base_uri=schema["$id"], referrer=schema, store=dict(schemas))
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def schema_file(name):
    m = re.fullmatch(r"cudnnup\.([a-z][a-z0-9-]*)/([0-9]+)", name or "")
    return f"{m.group(1)}-{m.group(2)}.schema.json" if m else None


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    schema_dir, args = argv[1], argv[2:]
    expect_invalid = "--expect-invalid" in args
    require_all = "--require-all" in args
    untested = set()
    docs = []
    i = 0
    while i < len(args):
        if args[i] == "--untested":
            untested.update(x for x in args[i + 1].split(",") if x)
            i += 2
            continue
        if not args[i].startswith("--"):
            docs.append(args[i])
        i += 1
    schemas = load_schemas(schema_dir)
    used = set()
    failures = 0
    for path in docs:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            print(f"not JSON: {path}: {e}")
            failures += 1
            continue
        name = schema_file(doc.get("schema") if isinstance(doc, dict) else None)
        if name not in schemas:
            print(f"no schema: {path}: \"schema\" is {doc.get('schema') if isinstance(doc, dict) else doc!r}")
            failures += 1
            continue
        used.add(name)
        errors = sorted(validator_for(schemas[name], schemas).iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors and not expect_invalid:
            failures += 1
            for e in errors[:10]:
                where = "/" + "/".join(str(p) for p in e.absolute_path)
                print(f"invalid: {path} ({name}) at {where}: {e.message}")
        elif not errors and expect_invalid:
            failures += 1
            print(f"accepted, but should have been rejected: {path} ({name})")
        elif errors:
            print(f"rejected: {path} ({name}): " + "; ".join(e.message for e in errors))
        else:
            print(f"ok: {path} ({name})")
    if require_all:
        for name in sorted(set(schemas) - used - {"common.schema.json"}):
            if name.removesuffix(".schema.json") not in untested:
                print(f"no document checked against {name}")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
