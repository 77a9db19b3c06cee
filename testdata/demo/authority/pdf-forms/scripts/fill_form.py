#!/usr/bin/env python3
"""Lists or fills the fields of a PDF form."""
import json
import sys

from pypdf import PdfReader, PdfWriter


def main(argv):
    if argv[1] == "--list":
        for name, field in (PdfReader(argv[2]).get_fields() or {}).items():
            print(f"{name}\t{field.get('/FT')}")
        return 0
    reader = PdfReader(argv[1])
    writer = PdfWriter()
    writer.append(reader)
    with open(argv[2]) as f:
        data = json.load(f)
    for page in writer.pages:
        writer.update_page_form_field_values(page, data)
    with open(argv[3], "wb") as out:
        writer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
