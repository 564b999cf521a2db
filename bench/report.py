#!/usr/bin/env python3
"""The one reporter of bench/: results CSVs in, a table, the targets' verdicts and a plot out.

  bench/report.py [--targets FILE] [--kit KIT] [--out STEM] [--markdown]
                  [--only TABLE] [--cases A,B,...] CSV...

Reads the rows the runners wrote (bench/lib.sh: case, status, host, date, then the results'
columns of common/results_csv.h), by column name. A cell is the median GFLOP/s of a case's
rows at one size (the fastest run for cublas_peak, the practical peak of the seed paper; the
rooflines divide by its median run instead, as the cases' figures are medians).
Prints one table (a row per size, a column per case, in the order the cases ran), then the
targets of KIT from FILE (bench/targets.csv) with their ratios, and, with --out, writes
STEM.dat and STEM.gp and draws STEM.png when gnuplot is here. --markdown prints the tables as
Markdown; --only TABLE prints that table alone, without its heading (the docs' tables:
scripts/docs-tables.sh), one of cases (the table above), roofline, targets (the verdicts, one
row each, those measured) and runs (each case's runs one by one); --cases keeps those cases,
in that order. Kits sim and sim-validation read scripts/simgrid's CSVs (predict.sh's
predictions, validate.sh's measured-against-simulated rows) and print their one table.
Python 3 standard library only.
"""
import argparse
import csv
import math
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
        # The pinned copy rates the bounds divide by: the best of each way (pin_rate's and
        # cublas_peak --link's rows h2d, cublas_peak --link's d2h).
        self.links = {way: max((number(r.get("gbs")) or 0 for r in rows
                                if r.get("system") == way and r.get("memory") == "pinned"),
                               default=0) or None for way in ("h2d", "d2h")}
        # The rate one GPU's link gets while the node's G GPUs all copy at once (cublas_peak
        # --link --gpus G's rows h2d-node, d2h-node; both-node: each way's rate while all
        # copy both ways at once), by G.
        self.node_links = {}
        for r in rows:
            system = r.get("system") or ""
            way = system[:-len("-node")]
            if system.endswith("-node") and way in ("h2d", "d2h", "both") and \
                    number(r.get("gbs")) and number(r.get("ncuda")):
                rates = self.node_links.setdefault(int(number(r["ncuda"])), {})
                rates[way] = max(rates.get(way, 0), number(r["gbs"]))
        # The MPI rate a rank receives at while every pair of ranks exchanges tiles
        # (bench/mpi_rate's mpi_rate_median rows, GB/s), by the job's ranks.
        self.mpi_rates = {}
        for r in rows:
            if r.get("system") == "mpi_rate_median" and number(r.get("gbs")):
                ranks = int(number(r.get("ranks")) or 0)
                self.mpi_rates[ranks] = max(self.mpi_rates.get(ranks, 0), number(r["gbs"]))

    def mpi_rate(self, ranks):
        """GB/s a rank receives at among `ranks` ranks: measured with as many ranks, else
        with the most ranks measured; None when bench/mpi_rate did not run."""
        if not self.mpi_rates:
            return None
        return self.mpi_rates.get(ranks) or self.mpi_rates[max(self.mpi_rates)]

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
        ceiling: max(compute at the cuBLAS peak on its GPUs, host->GPU loads / link);
        "nodebound:case", the same with each link at the rate it gets while all of the
        case's GPUs copy at once, and (where measured) both ways' bytes at the rate the
        node gives them when all copy both ways at once (None where that was not measured);
        "peak:P", one GPU's cuBLAS ceiling in precision P (at this size, else the best size
        measured: a DGEMM of n = 65536 does not fit one GPU)."""
        if name.startswith("bound:"):
            return self.bound(name[6:], size)
        if name.startswith("nodebound:"):
            return self.bound(name[10:], size, node=True)
        if name.startswith("peak:"):
            return self.ceiling(name[5:], size)
        if "*" in name:
            times, name = name.split("*", 1)
            figure = self.column(name, size)
            return float(times) * figure if figure is not None else None
        figures = [self.cell(c, size) for c in name.split("|")]
        figures = [f for f in figures if f is not None]
        return max(figures) if figures else None

    def ceiling(self, prec, size):
        """cuBLAS's figure in prec on device-resident matrices (cublas_peak rows of that
        letter, t for TF32), the median of its runs as a case's figure is: the GPU's clock
        moves by +-8% from one run to the next under sustained load (bench/notes-gpu.md), and
        the fastest run against a case's median would compare a lucky run with a typical one.
        Measured at this size, else the best of the sizes measured."""
        figures = {}
        for (case, s), rows in self.rows.items():
            if rows[0].get("system") == "cublas_peak" and prec_of(rows[0]) == prec:
                figures[s] = max(figures.get(s, 0), statistics.median(self.values[(case, s)]))
        return figures.get(size) or max(figures.values(), default=None)

    def roofline(self, case, size, node=False):
        """The seconds a case's bound is the longest of: compute at its precision's ceiling
        on its GPUs, its predicted host->GPU loads over the pinned links, its predicted
        GPU->host writes back, and its predicted MPI bytes over the measured MPI rate (None:
        that rate or byte count was not measured). The byte counts are per rank; a rank's
        GPUs have a host link each (a rank sharing a GPU: still the one link). node: each
        link at the rate it gets while all of the case's GPUs copy at once, and a term
        "dma": both ways' bytes at twice the rate each way gets while all GPUs copy both
        ways at once (row both-node): a node's GPUs share its host memory and root ports,
        which carry less than the four links' sum (4 x H100: 155 GB/s both ways, against
        4 x 55 each way alone). None for a case with no GPU, no ceiling, or cuBLAS itself
        (or, node, no such rate)."""
        rows = self.rows.get((case, size))
        if not rows or rows[0].get("system") == "cublas_peak" or \
                not number(rows[0].get("ncuda")):
            return None
        first = rows[0]
        peak = self.ceiling(prec_of(first), size)
        if peak is None:
            return None
        flops = 2 * float(first["M"]) * float(first["N"]) * float(first["K"])
        # The job's GPUs (the driver's gpu column): ranks sharing one count it once. A peer's
        # gpu is a device's name, and older CSVs leave it empty: then one per CUDA worker.
        gpus = number(first.get("gpu"))
        if gpus is None or not math.isfinite(gpus) or gpus < 1:
            gpus = number(first["ncuda"])
        parts = {"flops": flops, "compute": flops / (peak * 1e9 * gpus)}
        ranks = number(first.get("ranks")) or 1
        # The driver's byte columns are sums over the job's ranks: the host links are the
        # job's GPUs' (one each, however many ranks share it), the MPI rate a rank's, which
        # moves its share of the bytes while the others move theirs.
        links = self.links
        if node:
            links = self.node_links.get(int(gpus))
            if not links or not links.get("h2d") or not links.get("d2h"):
                return None
        rates = {"h2d": links["h2d"] and links["h2d"] * gpus,
                 "d2h": links["d2h"] and links["d2h"] * gpus,
                 "mpi": self.mpi_rate(int(ranks)) and self.mpi_rate(int(ranks)) * ranks}
        moved = {}
        for way, column in (("h2d", "pred_load_bytes"), ("d2h", "pred_d2h_bytes"),
                            ("mpi", "pred_mpi_bytes")):
            values = [number(r.get(column)) for r in rows if number(r.get(column)) is not None]
            moved[way] = statistics.median(values) if values else None
            rate = rates[way]
            parts[way] = moved[way] / (rate * 1e9) if values and rate else None
        parts["dma"] = None
        if node and links.get("both") and moved["h2d"] is not None and moved["d2h"] is not None:
            parts["dma"] = (moved["h2d"] + moved["d2h"]) / (2 * links["both"] * gpus * 1e9)
        parts["bound"] = max(x for x in (parts["compute"], parts["h2d"], parts["d2h"],
                                         parts["mpi"], parts["dma"]) if x)
        return parts

    def bound(self, case, size, node=False):
        """A case's roofline as GFLOP/s (what the targets "bound:case" and
        "nodebound:case" divide by)."""
        parts = self.roofline(case, size, node)
        return parts["flops"] / parts["bound"] / 1e9 if parts else None


def prec_of(row):
    """The letter of a row's ceiling: its precision, t for float on TF32 tensor cores."""
    if row.get("math") == "tf32":
        return "t"
    return row.get("prec") or "d"


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


def table(results, markdown, shown):
    """A row per size, a column per shown case; (heading, table)."""
    scale, name = unit(results)
    head = ["n"] + shown
    lines = []
    for size in results.sizes:
        if not any(results.cell(case, size) is not None for case in shown):
            continue  # a size only cases left out were measured at
        cells = [size]
        for case in shown:
            value = results.cell(case, size)
            cells.append("%.3f" % (value / scale) if value is not None else "-")
        lines.append(cells)
    for case, why in results.status.items():
        if case in shown and not any((case, s) in results.values for s in results.sizes):
            lines.append(["failed"] + [why if c == case else "" for c in shown])
    return "%s, median of the runs:" % name, layout(head, lines, markdown)


def layout(head, lines, markdown, left=()):
    """Rows of cells as aligned text, or as a Markdown table (the columns numbered in left
    aligned left there, the others right)."""
    if markdown:
        out = ["| " + " | ".join(head) + " |",
               "|" + "|".join(" --- " if i in left else " ---: " for i in range(len(head))) + "|"]
        out += ["| " + " | ".join(cells) + " |" for cells in lines]
    else:
        widths = [max(len(str(x)) for x in column) for column in zip(head, *lines)]
        out = ["  ".join(str(x).rjust(w) for x, w in zip(cells, widths))
               for cells in [head] + lines]
    return "\n".join(out)


def seconds(value):
    return "%.3f" % value if value is not None else "-"


def rooflines(results, markdown, shown):
    """Each GPU case next to its roofline: the seconds of each term, the bound, and the
    ratio bound / time (the case's figure over the bound's, as the targets "bound:" take);
    (heading, table), or None with no GPU case."""
    scale, name = unit(results)
    lines = []
    for case in shown:
        for size in results.sizes:
            parts = results.roofline(case, size)
            if not parts:
                continue
            rows = results.rows[(case, size)]
            figure, bound = results.cell(case, size), results.bound(case, size)
            lines.append([case, size, prec_of(rows[0]),
                          "%.3f" % (results.ceiling(prec_of(rows[0]), size) / scale),
                          "%.3f" % (figure / scale),
                          seconds(statistics.median(number(r["time_s"]) for r in rows)),
                          seconds(parts["compute"]), seconds(parts["h2d"]),
                          seconds(parts["d2h"]), seconds(parts["mpi"]), seconds(parts["bound"]),
                          "%.1f" % (bound / scale), "%.3f" % (figure / bound)])
    if not lines:
        return None
    links = ", ".join("%s %s" % (way, "%.2f GB/s" % results.links[way]
                                 if results.links[way] else "not measured")
                      for way in ("h2d", "d2h"))
    for gpus in sorted(results.node_links):
        rates = results.node_links[gpus]
        links += "; each while %d GPUs copy at once: %s" % (gpus, ", ".join(
            "%s %.2f GB/s" % (way if way != "both" else "each way of both at once", rates[way])
            for way in ("h2d", "d2h", "both") if rates.get(way)))
    links += ", MPI %s" % (", ".join("%.2f GB/s per rank of %d" % (results.mpi_rates[r], r)
                                     for r in sorted(results.mpi_rates)) or "not measured")
    head = ["case", "n", "prec", "ceiling", "figure", "time s", "compute s", "h2d s", "d2h s",
            "mpi s", "bound s", "bound", "ratio"]
    return ("roofline: bound = the longest of compute at the ceiling (cuBLAS, data on the GPU, "
            "the case's precision,\nits median run)\nand the planned host->GPU and GPU->host bytes over the "
            "pinned links (one per GPU of a rank) and MPI bytes per rank over the MPI rate (%s); ratio = bound / time; rates in %s:" % (links, name),
            layout(head, lines, markdown, left=(0, 2)))


def runs(results, markdown, shown):
    """Each shown case's runs one by one, in the order they ran: its figure and its seconds
    (the docs' tables of single runs); (heading, table)."""
    scale, name = unit(results)
    lines = []
    for case in shown:
        for size in results.sizes:
            rows = results.rows.get((case, size))
            if not rows:
                continue
            lines.append([case, size,
                          " / ".join("%.3f" % (number(r["gflops"]) / scale) for r in rows),
                          " / ".join(seconds(number(r.get("time_s"))) for r in rows),
                          "%.3f" % (results.cell(case, size) / scale)])
    head = ["case", "n", "%s, each run" % name, "s, each run", "figure"]
    return ("runs in the order they ran; figure: the case's, as in the first table (%s):" % name,
            layout(head, lines, markdown, left=(0, 2, 3)))


def verdicts(results, targets):
    """Each target at each size it applies to: a dict of its name, size and, when measured,
    its ratio, the two figures and whether it met its least ratio (None: no least)."""
    out = []
    for t in targets:
        least = number(t.get("min"))
        sizes = sizes_for(results, t.get("n", ""), t["case"])
        if not sizes:
            out.append({"target": t, "size": None})
            continue
        for size in sizes:
            mine, peer = results.column(t["case"], size), results.column(t["peer"], size)
            verdict = {"target": t, "size": size}
            if mine is not None and peer:
                verdict.update(mine=mine, peer=peer, ratio=mine / peer,
                               met=None if least is None else mine / peer >= least)
            out.append(verdict)
    return out


def verdict_lines(results, found):
    """The verdicts as lines of text, and how many targets were missed."""
    scale, name = unit(results)
    out = []
    for v in found:
        t = v["target"]
        if v["size"] is None:
            out.append("%s: not measured (n %s)" % (t["name"], t.get("n") or "any"))
        elif "ratio" not in v:
            out.append("%s at n=%s: not measured" % (t["name"], v["size"]))
        else:
            out.append("%s at n=%s: %.3f (%.3f / %.3f %s), %s" % (
                t["name"], v["size"], v["ratio"], v["mine"] / scale, v["peer"] / scale, name,
                "no target" if v["met"] is None else
                "target >= %s: %s" % (t.get("min"), "met" if v["met"] else "MISSED")))
    return out, sum(v.get("met") is False for v in found)


def verdict_table(results, found, markdown):
    """The measured verdicts as a table, a row each; (heading, table)."""
    scale, name = unit(results)
    lines = [[v["target"]["name"], v["size"], "%.3f" % v["ratio"], "%.3f" % (v["mine"] / scale),
              "%.3f" % (v["peer"] / scale), v["target"].get("min") or "-",
              "no target" if v["met"] is None else "met" if v["met"] else "MISSED"]
             for v in found if "ratio" in v]
    head = ["target", "n", "ratio", name, "peer's " + name, "least", "verdict"]
    return "targets:", layout(head, lines, markdown, left=(0, 6))


def plot(results, stem, title, cases):
    """STEM.dat and STEM.gp of the cases given (a line each over n), and STEM.png by gnuplot."""
    if not results.sizes:  # every case failed: nothing to draw
        return "plot: none, no case measured anything"
    scale, name = unit(results)
    base = os.path.basename(stem)
    with open(stem + ".dat", "w") as f:
        f.write("# n " + " ".join(cases) + "\n")
        for size in results.sizes:
            values = [results.cell(c, size) for c in cases]
            f.write("%s %s\n" % (size_key(size)[0], " ".join(
                "%.4f" % (v / scale) if v is not None else "NaN" for v in values)))
    series = ", \\\n     ".join(
        "'%s.dat' using 1:%d with linespoints lw 2 title '%s'" % (base, i + 2, c)
        for i, c in enumerate(cases))
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


def predictions(rows, markdown):
    """scripts/simgrid/predict.sh's rows (a case each: kind, network, nodes x GPUs, then the
    driver's columns): what each simulated machine reaches, per GPU, its efficiency against
    one simulated GPU (the strong case on 1 GPU) and the bytes simulated beside the plan's;
    (heading, table, what the efficiency divides by)."""
    one = None
    for row in rows:
        if row["kind"] == "strong" and row["gpus"] == "1":
            one = number(row["gflops"]) / 1000
    lines = []
    for row in rows:
        tflops = number(row["gflops"]) / 1000
        per_gpu = tflops / number(row["gpus"])
        gigabytes = ["%.1f" % (number(row[c]) / 1e9) for c in (
            "h2d_bytes", "d2d_bytes", "mpi_bytes", "pred_mpi_bytes", "pred_load_bytes")]
        lines.append([row["kind"], row.get("net_gbps", "200") if int(row["nodes"]) > 1 else "-",
                      "%s x %s" % (row["nodes"], row["gpus_per_node"]), row["M"], row["tile"],
                      row.get("layers") or "1",
                      "%.1f" % tflops, "%.1f" % per_gpu,
                      "%.2f" % (per_gpu / one) if one else "-"] + gigabytes)
    head = ["scaling", "network Gb/s", "nodes x GPUs", "n", "tile", "layers", "TFLOP/s", "per GPU",
            "efficiency", "host->GPU GB", "GPU<->GPU GB", "MPI GB simulated", "MPI GB plan",
            "plan loads GB"]
    trailer = one and ("Efficiency: TFLOP/s per GPU over one simulated GPU (%.1f TFLOP/s, n as "
                       "in the strong rows)." % one)
    return None, layout(head, lines, markdown, left=(0, 2)), trailer


def validation(rows, markdown):
    """scripts/simgrid/validate.sh's rows (a run measured, its mean TFLOP/s over the rows it
    names, the simulated TFLOP/s of the same product and plan, the error), or a CSV of the same
    columns with n and what the run was simulated as; (heading, table, None)."""
    optional = [c for c in ("n", "simulated_as") if c in rows[0]]
    lines = []
    for row in rows:
        measured = row["measured_tflops"]
        if row.get("runs"):
            measured += " (%s)" % row["runs"]
        lines.append([row["case"]] + [row[c] for c in optional] +
                     [measured, row["simulated_tflops"] or "not simulated",
                      row["error_pct"] + "%" if row["error_pct"] else ""])
    head = ["case"] + [c.replace("_", " ") for c in optional] + [
        "measured TFLOP/s (runs)" if "runs" in rows[0] else "measured TFLOP/s",
        "simulated TFLOP/s", "error"]
    return None, layout(head, lines, markdown, left=(0, 2) if "simulated_as" in optional else (0,)), None


SIMULATED = {"sim": predictions, "sim-validation": validation}  # kits of scripts/simgrid's CSVs
# The columns each reads, and the script that writes them.
SIMULATED_COLUMNS = {
    "sim": (("kind", "gpus", "gflops", "nodes", "gpus_per_node", "M", "tile", "h2d_bytes",
             "d2d_bytes", "mpi_bytes", "pred_mpi_bytes", "pred_load_bytes"),
            "scripts/simgrid/predict.sh"),
    "sim-validation": (("case", "measured_tflops", "simulated_tflops", "error_pct"),
                       "scripts/simgrid/validate.sh")}
TABLES = ("cases", "roofline", "targets", "runs")


def shown_cases(results, args):
    """The cases the tables and the plot show: --cases, else every case in the order run."""
    return args.cases.split(",") if args.cases else results.cases


def reports(results, args):
    """The (heading, table) pairs to print, in order, then the count of missed targets."""
    shown = shown_cases(results, args)
    unknown = [c for c in shown if c not in results.cases]
    if unknown:
        raise SystemExit("report.py: no case %s in %s" % (", ".join(unknown), " ".join(args.csv)))
    targets = targets_of(args.targets, args.kit)
    if args.cases:
        targets = [t for t in targets if t["case"] in shown]
    found = verdicts(results, targets)
    if args.only:
        make = {"cases": lambda: table(results, args.markdown, shown),
                "roofline": lambda: rooflines(results, args.markdown, shown),
                "targets": lambda: verdict_table(results, found, args.markdown),
                "runs": lambda: runs(results, args.markdown, shown)}[args.only]
        return [make()], 0
    out = [table(results, args.markdown, shown)]
    if any(t["peer"].startswith("bound:") for t in targets):
        out.append(rooflines(results, args.markdown, shown))
    lines, missed = verdict_lines(results, found)
    if lines:
        out.append(("targets (%s):" % os.path.basename(args.targets),
                    "\n".join("  " + line for line in lines)))
    return [x for x in out if x], missed


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    # No abbreviations: scripts/docs-tables.sh allows a doc's table only the options that print.
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--targets", default=os.path.join(here, "targets.csv"))
    parser.add_argument("--kit", help="which targets apply (cpu, gpu, arrays, tensor, node), "
                                      "or a simulation's table (sim, sim-validation)")
    parser.add_argument("--out", help="STEM of the .dat, .gp and .png")
    parser.add_argument("--title", default="DGEMM")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", choices=TABLES, help="that table alone, without its heading")
    parser.add_argument("--cases", help="the cases shown, in this order (comma-separated)")
    args = parser.parse_args()
    if args.kit in SIMULATED:
        rows = read_rows(args.csv)
        if not rows:
            print("report.py: no rows in %s" % " ".join(args.csv), file=sys.stderr)
            return 2
        columns, writer = SIMULATED_COLUMNS[args.kit]
        missing = [c for c in columns if c not in rows[0]]
        if missing:
            print("report.py: %s has no column %s: kit %s reads the CSV of %s"
                  % (" ".join(args.csv), ", ".join(missing), args.kit, writer), file=sys.stderr)
            return 2
        if args.only not in (None, "cases"):
            print("report.py: kit %s has one table (--only cases), not %s"
                  % (args.kit, args.only), file=sys.stderr)
            return 2
        _, text, trailer = SIMULATED[args.kit](rows, args.markdown)
        print(text if args.only or not trailer else text + "\n\n" + trailer)
        return 0
    results = Results(read_rows(args.csv))
    if not results.cases:
        print("report.py: no rows in %s" % " ".join(args.csv), file=sys.stderr)
        return 2
    out, _ = reports(results, args)
    if args.only:
        if not out[0]:  # e.g. no roofline: no case of these has a bound
            print("report.py: no %s table for %s" % (args.only, " ".join(args.csv)),
                  file=sys.stderr)
            return 2
        print(out[0][1])
        return 0
    print("\n\n".join(heading + "\n" + text for heading, text in out))
    if args.out:
        print(plot(results, args.out, args.title, shown_cases(results, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
