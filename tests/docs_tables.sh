#!/usr/bin/env bash
# The docs' measurement tables against the CSVs they came from: scripts/docs-tables.sh --check
# remakes every table marked with its bench/report.py command (docs/*.md, bench/README.md)
# from the committed CSVs of bench/results/ and fails, with the diff, where a doc says
# something its CSV does not. Reads only; a few seconds. Skipped (77) without python3, or in a
# tree without docs/ or bench/results/. Runs alone too (bash tests/docs_tables.sh).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
for dir in docs bench/results; do
  [ -d "$top_srcdir/$dir" ] || { echo "SKIP: no $dir in $top_srcdir"; exit 77; }
done
if out=$(bash "$top_srcdir/scripts/docs-tables.sh" --check 2>&1); then
  echo "PASS $out"
else
  printf '%s\n' "$out"
  echo "FAIL the docs' tables differ from what bench/report.py makes of their CSVs (above):" \
       "scripts/docs-tables.sh remakes them"
  exit 1
fi
