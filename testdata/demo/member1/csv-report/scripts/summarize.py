#!/usr/bin/env python3
"""Prints totals per category of a CSV with category and amount columns, as Markdown."""
import csv
import sys
from collections import defaultdict

totals = defaultdict(float)
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        totals[row["category"].strip().lower()] += float(row["amount"])
print("| category | total |\n|---|---|")
for name, total in sorted(totals.items()):
    print(f"| {name} | {total:.2f} |")
