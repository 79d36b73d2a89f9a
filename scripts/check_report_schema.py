#!/usr/bin/env python3
"""Checks reports against the report schema (a ctest; docs/report-fields.md).

    check_report_schema.py --shardsim build/shardsim [--doc docs/report-fields.md] REPORT.json...

Validates every REPORT (a file, or a folder searched for *.json) against the JSON Schema that
`shardsim schema report` prints, and, with --doc, that the field reference is the one that
`shardsim schema report --format markdown` generates. Exit 0: all valid; 1: a check failed.
"""
import argparse
import json
import pathlib
import subprocess
import sys

import jsonschema


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shardsim", required=True)
    ap.add_argument("--doc", help="the committed field reference to compare with the generated one")
    ap.add_argument("reports", nargs="*")
    args = ap.parse_args()

    schema_text = subprocess.run([args.shardsim, "schema", "report"], check=True,
                                 capture_output=True, text=True).stdout
    schema = json.loads(schema_text)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0
    files = []
    for r in args.reports:
        p = pathlib.Path(r)
        files += sorted(p.rglob("*.json")) if p.is_dir() else [p]
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        errors = list(validator.iter_errors(doc))
        for e in errors[:5]:
            # Under oneOf, the error of the branch that went deepest says what is wrong.
            e = jsonschema.exceptions.best_match([e] + list(e.context)) if e.context else e
            path = "/".join(str(x) for x in e.absolute_path)
            print(f"{f}: {path or '(top)'}: {e.message[:300]}")
        failures += bool(errors)
    if args.doc:
        generated = subprocess.run([args.shardsim, "schema", "report", "--format", "markdown"],
                                   check=True, capture_output=True, text=True).stdout
        committed = pathlib.Path(args.doc).read_text(encoding="utf-8")
        if generated != committed:
            print(f"{args.doc} is not the generated field reference: regenerate it with\n"
                  f"  {args.shardsim} schema report --format markdown > {args.doc}")
            failures += 1
    print(f"{len(files) - min(failures, len(files))} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
