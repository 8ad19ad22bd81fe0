#!/usr/bin/python3
"""Validate every record of NDJSON streams against schemas/<type>.schema.json.

usage: validate-schema.py FILE...   (zstd files are read through zstdcat)
A record whose type has no schema file is an error: every record type we emit has one.
"""
import json, os, subprocess, sys
import jsonschema

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cache = {}

def schema_for(t):
    if t not in cache:
        p = os.path.join(root, "schemas", t + ".schema.json")
        if not os.path.exists(p):
            sys.exit("validate-schema: no schema for record type '%s' (%s)" % (t, p))
        with open(p) as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        cache[t] = jsonschema.Draft202012Validator(s)
    return cache[t]

bad = 0
for path in sys.argv[1:]:
    data = subprocess.run(["zstdcat", "-f", path], check=True, capture_output=True).stdout
    for n, line in enumerate(data.decode("utf-8").splitlines(), 1):
        rec = json.loads(line)
        for err in schema_for(rec.get("type", "?")).iter_errors(rec):
            print("%s:%d: %s: %s" % (path, n, rec.get("type"), err.message), file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
