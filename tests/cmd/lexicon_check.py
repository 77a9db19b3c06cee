#!/usr/bin/env python3
"""Checks records against a lexicon document (the subset garden.engram.skill uses).

usage: lexicon_check.py <lexicon.json> <records.json>

records.json is a listRecords answer ({"records": [{"uri", "value"}...]}) or a JSON array of
record values. Enforced: the record's required fields; each property's type (string, integer,
boolean, array, object, ref to a local def); string maxLength counted in UTF-8 bytes (the
lexicon's rule); array maxLength; format datetime (RFC 3339 with a timezone, as ATProto
requires) and, for the records skillsync writes, the exact form 2026-11-29T22:37:00.000Z.
Unknown fields are allowed (lexicon objects are open). One line per problem; exit 1 if any.
"""
import json
import re
import sys

DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
EXACT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def check(lex, schema, value, where, problems):
    t = schema.get("type")
    if t == "ref":
        ref = schema["ref"]
        name = ref[1:] if ref.startswith("#") else ref
        return check(lex, lex["defs"][name], value, where, problems)
    if t == "record":
        return check(lex, schema["record"], value, where, problems)
    if t == "object":
        if not isinstance(value, dict):
            problems.append(f"{where}: not an object")
            return
        for req in schema.get("required", []):
            if req not in value:
                problems.append(f"{where}: required field '{req}' missing")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                check(lex, sub, value[key], f"{where}.{key}", problems)
        return
    if t == "string":
        if not isinstance(value, str):
            problems.append(f"{where}: not a string")
            return
        size = len(value.encode("utf-8"))
        if "maxLength" in schema and size > schema["maxLength"]:
            problems.append(f"{where}: {size} bytes, over maxLength {schema['maxLength']}")
        if schema.get("format") == "datetime":
            if not DATETIME.match(value):
                problems.append(f"{where}: '{value}' is not an RFC 3339 datetime")
            elif not EXACT.match(value):
                problems.append(f"{where}: '{value}' is not in the form 2026-11-29T22:37:00.000Z")
        return
    if t == "boolean":
        if not isinstance(value, bool):
            problems.append(f"{where}: not a boolean")
        return
    if t == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append(f"{where}: not an integer")
        return
    if t == "array":
        if not isinstance(value, list):
            problems.append(f"{where}: not an array")
            return
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{where}: {len(value)} items, over maxLength {schema['maxLength']}")
        for i, item in enumerate(value):
            check(lex, schema["items"], item, f"{where}[{i}]", problems)
        return
    problems.append(f"{where}: the checker does not know type '{t}'")


def main():
    lex = json.load(open(sys.argv[1]))
    data = json.load(open(sys.argv[2]))
    if isinstance(data, dict):
        records = [(r["uri"], r["value"]) for r in data["records"]]
    else:
        records = [(f"record {i}", v) for i, v in enumerate(data)]
    problems = []
    for where, value in records:
        if value.get("$type") not in (None, lex["id"]):
            problems.append(f"{where}: $type is '{value.get('$type')}'")
        check(lex, lex["defs"]["main"], value, where, problems)
    for p in problems:
        print(p)
    print(f"checked {len(records)} records: {len(problems)} problems", file=sys.stderr)
    sys.exit(1 if problems else 0)


main()
