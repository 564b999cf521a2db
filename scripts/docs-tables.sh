#!/usr/bin/env bash
# The measurement tables of the docs, remade from the committed CSVs they came from, so that a
# doc cannot say what its CSV does not. A table made by bench/report.py sits between two lines:
#   <!-- table: bench/report.py --markdown --only cases --kit gpu bench/results/gpu-....csv -->
#   ... the table, as the command prints it ...
#   <!-- end table -->
# The command is bench/report.py's arguments, run from the repository's root (no shell: no
# globs, no quotes; only the options that print a table: --markdown, --only, --kit, --cases,
# --targets; --out, which writes files, is refused). Tables without such lines are
# written by hand (option lists, designs compared, runs with no CSV: the doc says so).
#   scripts/docs-tables.sh [FILE.md...]          remake every marked table in place
#   scripts/docs-tables.sh --check [FILE.md...]  change nothing; print a unified diff and exit
#                                                1 where a table differs from what
#                                                bench/report.py makes now
# FILEs default to docs/*.md and bench/README.md. Python 3 standard library only
# (bench/report.py), as the rest of bench/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
if [ $# = 0 ]; then
  set -- "$top"/docs/*.md "$top/bench/README.md"
fi
command -v python3 > /dev/null || { echo "docs-tables.sh: python3 is needed (bench/report.py)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# remake FILE: FILE with every marked table replaced by its command's output, on stdout.
remake() {
  local file=$1 line number=0 inside=0 spec args arg
  local marker='^<!-- table: bench/report\.py (.*) -->$'
  while IFS= read -r line || [ -n "$line" ]; do
    number=$((number + 1))
    if [ $inside = 1 ]; then
      # A missing end would swallow the doc up to the next table's end: refused.
      if [[ $line == "<!-- table:"* ]]; then
        echo "$file:$number: a table begins before the one above ends (<!-- end table -->)" >&2
        return 1
      fi
      [ "$line" = "<!-- end table -->" ] || continue
      inside=0
    elif [[ $line =~ $marker ]]; then
      spec=${BASH_REMATCH[1]}
      read -r -a args <<< "$spec"
      for arg in "${args[@]}"; do
        case $arg in
          --markdown|--only|--kit|--cases|--targets|[!-]*) ;;
          *) echo "$file:$number: bench/report.py $arg: not an option of a doc's table" \
                  "(--markdown, --only, --kit, --cases, --targets)" >&2; return 1 ;;
        esac
      done
      printf '%s\n' "$line"
      (cd "$top" && python3 bench/report.py "${args[@]}") ||
        { echo "$file:$number: bench/report.py $spec failed" >&2; return 1; }
      inside=1
      continue
    elif [[ $line == "<!-- table:"* || $line == "<!-- end table -->" ]]; then
      echo "$file:$number: a table's line out of place (its command must be bench/report.py," \
           "its end <!-- end table -->): $line" >&2
      return 1
    fi
    printf '%s\n' "$line"
  done < "$file"
  if [ $inside = 1 ]; then echo "$file: a table with no <!-- end table -->" >&2; return 1; fi
}

differ=0 tables=0
for file in "$@"; do
  name=${file#"$top"/}
  remade=$work/$(basename "$file")
  remake "$file" > "$remade" || exit 2
  tables=$((tables + $(grep -c '^<!-- table: ' "$file" || true)))
  cmp -s "$file" "$remade" && continue
  if [ $check = 1 ]; then
    diff -u --label "$name" --label "$name (remade by bench/report.py)" "$file" "$remade" || true
    differ=$((differ + 1))
  else
    cat "$remade" > "$file"
    echo "remade the tables of $name"
  fi
done
if [ $check = 1 ]; then
  if [ $differ != 0 ]; then
    echo "docs-tables.sh: $differ file(s) differ from their CSVs (above); scripts/docs-tables.sh remakes them" >&2
    exit 1
  fi
  echo "docs-tables.sh: $tables table(s) in $# file(s) as bench/report.py makes them"
fi
