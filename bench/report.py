#!/usr/bin/env python3
"""The one reporter of bench/: results CSVs in, a table, the targets' verdicts and a plot out.

  bench/report.py [--targets FILE] [--kit KIT] [--out STEM] [--markdown] CSV...

Reads the rows the runners wrote (bench/lib.sh: case, status, host, date, then the results'
columns of common/results_csv.h), by column name. A cell is the median GFLOP/s of a case's
rows at one size (the fastest run for cublas_peak, the practical peak of the seed paper).
Prints one table (a row per size, a column per case, in the order the cases ran), then the
targets of KIT from FILE (bench/targets.csv) with their ratios, and, with --out, writes
STEM.dat and STEM.gp and draws STEM.png when gnuplot is here. --markdown prints the table as
Markdown (for bench/README.md). Python 3 standard library only.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys

BEST_OF = {"cublas_peak"}  # peers whose fastest run is their figure


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def size_of(row):
    """The size label of a row: n for a square product, MxNxK otherwise."""
    dims = [row.get(d) or "" for d in ("M", "N", "K")]
    return dims[0] if dims[0] == dims[1] == dims[2] else "x".join(dims)


def size_key(label):
    return [int(x) if x.isdigit() else 0 for x in label.split("x")]


class Results:
    """Each case's GFLOP/s at each size, and what the bounds need."""

    def __init__(self, rows):
        self.cases, self.sizes = [], []
        self.values, self.status, self.rows = {}, {}, {}
        for row in rows:
            case = row.get("case") or row.get("system") or "?"
            gflops = number(row.get("gflops"))
            status = row.get("status") or "ok"
            if status == "ok" and gflops is None:
                continue  # not a product: a copy rate (h2d), read below
            if case not in self.cases:
                self.cases.append(case)
            if status != "ok":
                self.status.setdefault(case, status)
                continue
            size = size_of(row)
            if size not in self.sizes:
                self.sizes.append(size)
            self.values.setdefault((case, size), []).append(gflops)
            self.rows.setdefault((case, size), []).append(row)
        self.sizes.sort(key=size_key)
        self.links = [number(r.get("gbs")) for r in rows
                      if r.get("system") == "h2d" and r.get("memory") == "pinned"]

    def cell(self, case, size):
        """The figure of a case at a size (GFLOP/s), or None."""
        values = self.values.get((case, size))
        if not values:
            return None
        if self.rows[(case, size)][0].get("system") in BEST_OF:
            return max(values)
        return statistics.median(values)

    def column(self, name, size):
        """A target's operand: a case; "a|b", the best of them; "bound:case", the case's
        ceiling: max(compute at the cuBLAS peak on its GPUs, host->GPU loads / link)."""
        if name.startswith("bound:"):
            return self.bound(name[6:], size)
        if "*" in name:
            times, name = name.split("*", 1)
            figure = self.column(name, size)
            return float(times) * figure if figure is not None else None
        figures = [self.cell(c, size) for c in name.split("|")]
        figures = [f for f in figures if f is not None]
        return max(figures) if figures else None

    def peak(self, size):
        peaks = [c for c in self.cases if (c, size) in self.rows and
                 self.rows[(c, size)][0].get("system") == "cublas_peak"]
        return self.cell(peaks[0], size) if peaks else None

    def bound(self, case, size):
        rows, peak = self.rows.get((case, size)), self.peak(size)
        if not rows or peak is None:
            return None
        first = rows[0]
        flops = 2 * float(first["M"]) * float(first["N"]) * float(first["K"])
        gpus = number(first.get("ncuda")) or 1
        compute_s = flops / (peak * 1e9 * gpus)
        loads = statistics.median(number(r.get("pred_load_bytes")) or 0 for r in rows)
        link = max((x for x in self.links if x), default=None)
        load_s = loads / (link * 1e9) if link else 0
        return flops / max(compute_s, load_s) / 1e9


def targets_of(path, kit):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    return [t for t in csv.DictReader(lines) if not kit or t["kit"] == kit]


def sizes_for(results, spec, case):
    if not spec:
        return [s for s in results.sizes if results.column(case, s) is not None]
    if spec.startswith(">="):
        return [s for s in results.sizes if size_key(s)[0] >= int(spec[2:])]
    return [s for s in results.sizes if s == spec]


def unit(results):
    """GFLOP/s, or TFLOP/s when the figures run into thousands."""
    top = max((results.cell(c, s) or 0 for c in results.cases for s in results.sizes), default=0)
    return (1000.0, "TFLOP/s") if top >= 5000 else (1.0, "GFLOP/s")


def table(results, markdown):
    scale, name = unit(results)
    head = ["n"] + results.cases
    lines = []
    for size in results.sizes:
        cells = [size]
        for case in results.cases:
            value = results.cell(case, size)
            cells.append("%.3f" % (value / scale) if value is not None else "-")
        lines.append(cells)
    for case, why in results.status.items():
        if not any((case, s) in results.values for s in results.sizes):
            lines.append(["failed"] + [why if c == case else "" for c in results.cases])
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "|".join(" ---: " for _ in head) + "|"]
        out += ["| " + " | ".join(cells) + " |" for cells in lines]
    else:
        widths = [max(len(str(x)) for x in column) for column in zip(head, *lines)]
        out = ["  ".join(str(x).rjust(w) for x, w in zip(cells, widths))
               for cells in [head] + lines]
    return "%s, median of the runs:\n%s" % (name, "\n".join(out))


def verdicts(results, targets):
    scale, name = unit(results)
    out, missed = [], 0
    for t in targets:
        least = number(t.get("min"))
        sizes = sizes_for(results, t.get("n", ""), t["case"])
        if not sizes:
            out.append("%s: not measured (n %s)" % (t["name"], t.get("n") or "any"))
            continue
        for size in sizes:
            mine, peer = results.column(t["case"], size), results.column(t["peer"], size)
            if mine is None or not peer:
                out.append("%s at n=%s: not measured" % (t["name"], size))
                continue
            ratio = mine / peer
            met = least is None or ratio >= least
            missed += not met
            out.append("%s at n=%s: %.3f (%.3f / %.3f %s), target >= %s: %s" % (
                t["name"], size, ratio, mine / scale, peer / scale, name, t.get("min"),
                "met" if met else "MISSED"))
    return out, missed


def plot(results, stem, title):
    scale, name = unit(results)
    base = os.path.basename(stem)
    with open(stem + ".dat", "w") as f:
        f.write("# n " + " ".join(results.cases) + "\n")
        for size in results.sizes:
            values = [results.cell(c, size) for c in results.cases]
            f.write("%s %s\n" % (size_key(size)[0], " ".join(
                "%.4f" % (v / scale) if v is not None else "NaN" for v in values)))
    series = ", \\\n     ".join(
        "'%s.dat' using 1:%d with linespoints lw 2 title '%s'" % (base, i + 2, c)
        for i, c in enumerate(results.cases))
    with open(stem + ".gp", "w") as f:
        f.write("# Made by bench/report.py; run: gnuplot %s.gp\n" % base)
        f.write("set terminal pngcairo noenhanced size 900,600\nset output '%s.png'\n" % base)
        f.write("set title '%s'\nset xlabel 'n'\nset ylabel '%s'\n" % (title, name))
        f.write("set key outside below\nset grid\nset datafile missing 'NaN'\n")
        xs = [size_key(s)[0] for s in results.sizes]
        f.write("set logscale x 2\nset yrange [0:*]\nset xrange [%g:%g]\n" % (
            min(xs) / 1.15, max(xs) * 1.15))
        f.write("set xtics (%s)\n" % ", ".join(str(size_key(s)[0]) for s in results.sizes))
        f.write("plot " + series + "\n")
    if shutil.which("gnuplot"):
        done = subprocess.run(["gnuplot", base + ".gp"], cwd=os.path.dirname(stem) or ".",
                              stderr=subprocess.PIPE, text=True)
        return "plot: %s.png" % stem if done.returncode == 0 else \
            "plot: gnuplot failed: %s" % done.stderr.strip()
    return "plot: gnuplot not found; run 'gnuplot %s.gp' elsewhere" % base


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--targets", default=os.path.join(here, "targets.csv"))
    parser.add_argument("--kit", help="which targets apply (cpu, gpu, arrays)")
    parser.add_argument("--out", help="STEM of the .dat, .gp and .png")
    parser.add_argument("--title", default="DGEMM")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    results = Results(read_rows(args.csv))
    if not results.cases:
        print("report.py: no rows in %s" % " ".join(args.csv), file=sys.stderr)
        return 2
    print(table(results, args.markdown))
    lines, missed = verdicts(results, targets_of(args.targets, args.kit))
    if lines:
        print("\ntargets (%s):" % os.path.basename(args.targets))
        print("\n".join("  " + line for line in lines))
    if args.out:
        print(plot(results, args.out, args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
