#!/usr/bin/env python3
"""schema_check.py - keep schema/deck.schema.json honest.

1. Every decks/*.yaml (and any deck given on the command line) must
   validate against the schema.
2. The key paths the loader knows (`$MBSIM list keys`, printed by
   deck_print_keys) must equal the leaf key paths of the schema, in both
   directions, so neither can gain or lose a key silently.
3. Every property of the schema has a description (or is a $ref).

Usage: MBSIM=build/mbsim python3 tests/schema_check.py [--keys FILE] [DECK...]
       (--keys reads the key list from FILE instead of running mbsim)
Exit status 0 when everything agrees, 1 otherwise.
"""
import glob
import json
import os
import subprocess
import sys

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schema_paths(node, prefix, out, undescribed):
    """Leaf key paths of a schema node, in the loader's notation:
    'a.b', 'list[].key', 'free.*' for free-form mappings, into out; the
    paths of properties without a description into undescribed."""
    for name, sub in node.get("properties", {}).items():
        path = prefix + name
        if sub.get("type") == "array" and "properties" in sub.get("items", {}):
            schema_paths(sub["items"], path + "[].", out, undescribed)
        elif "properties" in sub:
            schema_paths(sub, path + ".", out, undescribed)
        elif sub.get("type") == "object" and isinstance(sub.get("additionalProperties"), dict):
            out.add(path + ".*")
        else:
            out.add(path)
        if not sub.get("description") and "$ref" not in sub:
            undescribed.append(path)
    return out


def loader_paths(keys_file):
    if keys_file:
        with open(keys_file) as f:
            text = f.read()
    else:
        mbsim = os.environ.get("MBSIM", os.path.join(ROOT, "build", "mbsim"))
        text = subprocess.run([mbsim, "list", "keys"], check=True,
                              capture_output=True, text=True).stdout
    # the first column is the path; type, default, range, description follow
    return {line.split()[0] for line in text.splitlines() if line.strip()}


def check_decks(schema, decks):
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in decks:
        with open(path) as f:
            doc = yaml.safe_load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            where = ".".join(str(p) for p in e.path) or "(top)"
            print(f"FAIL {path}: {where}: {e.message}")
        if errors:
            bad += 1
        else:
            print(f"ok   {path}")
    return bad


def main(argv):
    keys_file = None
    if len(argv) >= 2 and argv[0] == "--keys":
        keys_file, argv = argv[1], argv[2:]
    with open(os.path.join(ROOT, "schema", "deck.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)

    decks = argv or sorted(glob.glob(os.path.join(ROOT, "decks", "*.yaml")))
    failures = check_decks(schema, decks)
    passed = len(decks) - failures

    undescribed = []
    in_schema = schema_paths(schema, "", set(), undescribed)
    for p in undescribed:
        print(f"FAIL schema: '{p}' has no description")
        failures += 1
    if not undescribed:
        print("ok   every property of the schema has a description")
        passed += 1
    in_loader = loader_paths(keys_file)
    for p in sorted(in_loader - in_schema):
        print(f"FAIL key '{p}' is known to the loader but not in the schema")
        failures += 1
    for p in sorted(in_schema - in_loader):
        print(f"FAIL key '{p}' is in the schema but unknown to the loader")
        failures += 1
    if in_loader == in_schema:
        print(f"ok   the loader's {len(in_loader)} key paths are the schema's")
        passed += 1
    print(f"{len(decks)} decks, {len(in_loader)} loader keys, {len(in_schema)} schema keys")
    print(f"{passed} passed, {failures} failed, 0 skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
