#!/usr/bin/env python3
"""A simulated node of G GPUs for StarPU+SimGrid, from a calibrated node's models.

    scripts/simgrid/node.py --from perfmodels/h200 --gpus 4 --out DIR [--label LABEL] [options]

prints LABEL, the rate of MPI between ranks of one node (measured by the node's kit, else one thread's memcpy)
and its host memory in GB (what one rank had), and writes DIR/bus/LABEL.{platform.v4.xml,platform.xml,config,affinity,bandwidth,latency} and
DIR/codelets/45/<symbol>.LABEL (the calibrated node's codelet models, renamed: run with
STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 so that every simulated GPU uses GPU 0's measurements).
Then: STARPU_PERF_MODEL_DIR=DIR STARPU_HOSTNAME=LABEL (scripts/simgrid/simulate.sh does it).

Where each number comes from is written into the platform file, one comment per link. The
defaults (see --help) are measurements where we have them, else stated assumptions.
"""
import argparse
import csv
import glob
import os
import re
import shutil
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Host<->GPU copy rate: what bench/pin_rate measured for pinned memory on each node type
# (`scripts/device-session.sh pins`), read from its log ("RESULT name=h2d ... memory=pinned
# gbs=..."). StarPU's own bus calibration is not used by default: on the H200 node it gave
# 29.9 GB/s, yet the driver's no-throttle run with an 8 GB GPU cap moved 64.6 GB host->GPU in
# 1.467 s (bench/results/gpu-h200-20261123.csv), at least 44 GB/s, and a simulation with it
# predicted 39.6 TFLOP/s for a run measured at 50.9. On the H100 node the two agree (StarPU
# 53.9 GB/s, bench/pin_rate 54.4). The H200 node's pinned rate is not measured: it borrows
# the H100 node's (same lease family, PCIe 5 x16 both), which the H200 runs bear out
# (bench/results/sim-validation.md). A second H100 session measured 48.5 GB/s
# (bench/results/pins-h100-20261124-b.log); the kit run of the same day 54.3: the log below
# is the one two of three agree with.
PINNED_LOGS = {"h100": "bench/results/pins-h100-20261124.log"}
BORROWED_PINNED = "h100"
# Host memory one rank alone had on the node (the planner's "plan: sized for ... GB host per
# rank" line: MemAvailable): bench/results/gpu-tests-h100-20261124.log (76.5 GB per GPU) and
# gpu-tests-h200-20261123.log (135.1 GB per GPU). The 2 x H200 node had 268.8
# (gpu-h200x2-20261124.log): pass --host-mem-gb to simulate.sh for nodes unlike these.
HOST_MEM_GB = {"h100": 134.3, "h200": 109.5}
# NVLink between GPUs: nvidia-smi topo -m on the 2 x H200 node shows NV18 (18 links;
# bench/results/gpu-h200x2-20261124.log): measured link count, the rate per direction is
# NVIDIA's H200 figure (450 GB/s), not measured by us.
ASSUMED_NVLINK_GBS = 450.0
SHARED_GPU_EFFICIENCY = 2.69 / 3.25  # see the sharing comment in main()


def measured_pinned(label):
    """The pinned host->GPU GB/s bench/pin_rate measured on node type LABEL, and where."""
    own = label in PINNED_LOGS
    log = PINNED_LOGS[label if own else BORROWED_PINNED]
    m = re.search(r"RESULT name=h2d \S+ memory=pinned gbs=([0-9.]+)", open(os.path.join(TOP, log)).read())
    if not m:
        sys.exit(f"node.py: no pinned h2d rate in {log}")
    where = f"measured: bench/pin_rate, pinned host->GPU ({log})"
    if not own:
        where += f"; {label} has no measurement of its own, this is the {BORROWED_PINNED} node's"
    return float(m.group(1)), where + "; GPU->host assumed equal"


def measured_memcpy(label):
    """One thread's memcpy GB/s on node type LABEL (bench/pin_rate), and where: what MPI
    between ranks of one node runs at (Open MPI's shared-memory transport copies once)."""
    log = PINNED_LOGS.get(label, PINNED_LOGS[BORROWED_PINNED])
    m = re.search(r"RESULT name=memcpy \S+ threads=1 gbs=([0-9.]+)", open(os.path.join(TOP, log)).read())
    if not m:
        sys.exit(f"node.py: no one-thread memcpy rate in {log}")
    return float(m.group(1)), log


# MPI between ranks of one node as the node's kit measured it (bench/mpi_rate: all ranks at
# once, 128 MiB messages, Open MPI's shared-memory transport as a user's launch gets it).
MPI_RATE_CSVS = {"h200": "bench/results/node-h200x4-20261127g-kit.csv"}


def intra_node_mpi(label):
    """GB/s one rank moves through MPI to its node peers, and where it comes from: the
    node's measured MPI rate (mean over the ranks of the kit's mpi-rate rows) where there is
    one, else one thread's memcpy (Open MPI's shared-memory transport copies once), an upper
    bound: on the 4 x H200 node that was 12 GB/s against 3.2-3.3 measured."""
    if label in MPI_RATE_CSVS:
        rows = [r for r in csv.DictReader(open(os.path.join(TOP, MPI_RATE_CSVS[label])))
                if r["case"] == "mpi-rate" and r["gbs"]]
        if rows:
            return sum(float(r["gbs"]) for r in rows) / len(rows), MPI_RATE_CSVS[label]
    rate, log = measured_memcpy(label)
    return rate, log + " (one thread's memcpy: no MPI rate measured on this node type)"


def read_source(src):
    """Host<->GPU bandwidths and latencies, CPU count, GPU memory and name of the source."""
    plats = glob.glob(os.path.join(src, "bus", "*.platform.v4.xml"))
    if len(plats) != 1:
        sys.exit(f"node.py: expected one bus/*.platform.v4.xml in {src}, found {len(plats)}")
    text = open(plats[0]).read()
    label = os.path.basename(plats[0])[: -len(".platform.v4.xml")]

    def link(name):
        m = re.search(r'<link id="%s" bandwidth="([0-9.e+]+)Bps" latency="([0-9.e+-]+)s"'
                      % re.escape(name), text)
        if not m:
            sys.exit(f"node.py: no link {name} in {plats[0]}")
        return float(m.group(1)), float(m.group(2))

    cpus = len(re.findall(r'<host id="CPU[0-9]+"', text))
    mem = re.search(r'<prop id="memsize" value="([0-9]+)"', text)
    model = re.search(r'<prop id="model" value="([^"]*)"', text)
    return {
        "label": label, "file": plats[0], "cpus": cpus,
        "h2d": link("RAM-CUDA0"), "d2h": link("CUDA0-RAM"),
        "memsize": int(mem.group(1)) if mem else 0,
        "model": model.group(1) if model else "GPU",
    }


def platform(a, s, v4):
    """StarPU's node platform format (what starpu_calibrate_bus writes), G GPUs."""
    G = a.gpus
    h2d, d2h = a.h2d * 1e9, a.d2h * 1e9
    h2d_lat, d2h_lat = s["h2d"][1], s["d2h"][1]
    nvl = a.nvlink * 1e9
    dtd = ("http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd" if v4
           else "http://simgrid.gforge.inria.fr/simgrid.dtd")
    d = "-" if v4 else "_"
    out = ["<?xml version='1.0'?>", f"<!DOCTYPE platform SYSTEM '{dtd}'>",
           f' <platform version="{4 if v4 else 3}">',
           f"<!-- Generated by scripts/simgrid/node.py from {s['file']} ({G} GPUs). -->",
           ' <config id="General">',
           f'   <prop id="network/TCP{d}gamma" value="-1"></prop>',
           f'   <prop id="network/latency{d}factor" value="1"></prop>',
           f'   <prop id="network/bandwidth{d}factor" value="1"></prop>',
           '   <prop id="network/crosstraffic" value="0"></prop>',
           '   <prop id="network/weight-S" value="0.0"></prop>' if v4 else
           '   <prop id="network/weight_S" value="0.0"></prop>',
           ' </config>', ' <AS  id="AS0"  routing="Full">', '   <host id="MAIN" speed="1f"/>']
    out += [f'   <host id="CPU{c}" speed="2000000000f"/>' for c in range(s["cpus"])]
    for g in range(G):
        out += [f'   <host id="CUDA{g}" speed="2000000000f">',
                f'     <prop id="model" value="{s["model"]}"/>',
                f'     <prop id="memsize" value="{s["memsize"]}"/>',
                '     <prop id="memcpy_peer" value="1"/>', '   </host>']
    out.append('   <host id="RAM" speed="1f"/>')
    out.append(f"   <!-- host->GPU {a.h2d:g} GB/s, GPU->host {a.d2h:g} GB/s per direction: "
               f"{a.h2d_source}. Latencies: StarPU's calibration of the source node. "
               "PCIe is full duplex: the two directions are separate links. -->")
    # Host links: one x16 per GPU (separate), or one per pair of GPUs behind a PCIe switch.
    nlinks = G if a.host_links == "separate" else (G + 1) // 2
    out.append(f"   <!-- host links: {a.host_links} ({nlinks} for {G} GPUs): {a.host_links_source} -->")
    for l in range(nlinks):
        out.append(f'   <link id="HOST{l}-down" bandwidth="{h2d:.6f}Bps" latency="{h2d_lat:.6f}s"/>')
        out.append(f'   <link id="HOST{l}-up" bandwidth="{d2h:.6f}Bps" latency="{d2h_lat:.6f}s"/>')
    if G > 1:
        out.append(f"   <!-- GPU<->GPU {a.nvlink:g} GB/s per direction and GPU "
                   f"(through NVLink switches): {a.nvlink_source} -->")
        for g in range(G):
            out.append(f'   <link id="NVL{g}-out" bandwidth="{nvl:.6f}Bps" latency="0.000002s"/>')
            out.append(f'   <link id="NVL{g}-in" bandwidth="{nvl:.6f}Bps" latency="0.000002s"/>')
    for g in range(G):
        l = g if a.host_links == "separate" else g // 2
        out += [f'   <route src="RAM" dst="CUDA{g}" symmetrical="NO"><link_ctn id="HOST{l}-down"/></route>',
                f'   <route src="CUDA{g}" dst="RAM" symmetrical="NO"><link_ctn id="HOST{l}-up"/></route>']
        for h in range(G):
            if h != g:
                out.append(f'   <route src="CUDA{g}" dst="CUDA{h}" symmetrical="NO">'
                           f'<link_ctn id="NVL{g}-out"/><link_ctn id="NVL{h}-in"/></route>')
    out += [" </AS>", " </platform>", ""]
    return "\n".join(out)


def matrix(a, s, G, kind):
    """StarPU's bus.bandwidth (MB/s) or bus.latency (us) matrix: NUMA0, CUDA0..G-1."""
    width = 32  # StarPU writes STARPU_MAXNODES columns
    n = G + 1
    rows = ["# to NUMA 0\t" + "".join(f"to CUDA {g}\t" for g in range(G))]
    for i in range(width):
        vals = []
        for j in range(width):
            if i >= n or j >= n:
                vals.append("nan")
            elif i == j:
                vals.append("0.000000e+00")
            elif kind == "bandwidth":
                bw = a.h2d if i == 0 else a.d2h if j == 0 else a.nvlink
                vals.append(f"{bw * 1000:.6e}")
            else:
                lat = s["h2d"][1] if i == 0 else s["d2h"][1] if j == 0 else 2e-6
                vals.append(f"{lat * 1e6:.6e}")
        rows.append("\t".join(vals) + "\t")
    return "\n".join(rows) + "\n"


def slowed(model, k):
    """A StarPU history model (format 45) whose measured times are k times longer."""
    if k == 1:
        return model
    out, entries = [], False
    for line in model.splitlines(keepends=True):
        if line.startswith("# hash"):
            entries = True
        elif line.startswith("#"):
            entries = False
        elif entries:
            f = line.split()
            if len(f) == 8:  # hash size flops mean dev sum sum2 n
                mean, dev, tot, tot2 = (float(x) for x in f[3:7])
                f[3:7] = [f"{mean * k:e}", f"{dev * k:e}", f"{tot * k:e}", f"{tot2 * k * k:e}"]
                line = "\t".join(f) + "\n"
        out.append(line)
    return "".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--from", dest="src", required=True, help="calibrated node (perfmodels/LABEL)")
    p.add_argument("--gpus", type=int, required=True)
    p.add_argument("--out", required=True, help="model folder to write (STARPU_PERF_MODEL_DIR)")
    p.add_argument("--label", help="STARPU_HOSTNAME of the simulated node (default: SRCxG)")
    p.add_argument("--h2d", type=float,
                   help="host->GPU GB/s (default: bench/pin_rate's measurement of the node type)")
    p.add_argument("--d2h", type=float, help="GPU->host GB/s (default: as --h2d, assumed)")
    p.add_argument("--starpu-bus", action="store_true",
                   help="host<->GPU rates of the source's own StarPU bus calibration instead")
    p.add_argument("--nvlink", type=float, default=ASSUMED_NVLINK_GBS,
                   help=f"GPU<->GPU GB/s per direction (default {ASSUMED_NVLINK_GBS:g}: NVIDIA's figure)")
    p.add_argument("--host-links", choices=["separate", "paired"], default="separate",
                   help="one PCIe x16 per GPU (default, assumed), or one per pair of GPUs")
    p.add_argument("--share", type=int, default=1,
                   help="ranks sharing each GPU (default 1): each rank's node gets 1/K of it, "
                        "its kernels K / 0.83 times slower (measured)")
    a = p.parse_args()
    if not 1 <= a.gpus <= 16:
        sys.exit("node.py: --gpus must be in 1..16 (StarPU built with --enable-maxcudadev=16)")
    s = read_source(a.src)
    a.label = a.label or f"{s['label']}x{a.gpus}" + (f"s{a.share}" if a.share > 1 else "")
    if a.starpu_bus:
        a.h2d, a.d2h = s["h2d"][0] / 1e9, s["d2h"][0] / 1e9
        a.h2d_source = f"StarPU's bus calibration of {s['label']} (measured by StarPU)"
    elif a.h2d is None:
        a.h2d, a.h2d_source = measured_pinned(s["label"])
    else:
        a.h2d_source = "given on the command line (options h2d, d2h)"
    a.d2h = a.d2h if a.d2h else a.h2d
    if a.share < 1:
        sys.exit("node.py: --share must be at least 1")
    # K ranks on one GPU: StarPU+SimGrid gives every rank a node of its own (starpu_smpirun
    # copies the node's platform per rank), so sharing is modelled as a static split: each
    # rank's GPU runs a kernel K times slower (the GPU time-sliced between K processes, both
    # always busy), its host link carries 1/K of the rate, and it has 1/K of the memory.
    # The time-slicing is not free: two processes on one H100 finish a DGEMM tile task every
    # 3.25 ms together against 2.69 ms for one process alone (n = 32768, tiles of 4096: the
    # driver's timeline, bench/results/timelines-h100-20261124.log), so each of K sharing
    # ranks runs a kernel K / SHARED_GPU_EFFICIENCY times slower. Measured on the H100 only;
    # applied to every node type.
    slowdown = a.share / SHARED_GPU_EFFICIENCY if a.share > 1 else 1
    if a.share > 1:
        a.h2d, a.d2h = a.h2d / a.share, a.d2h / a.share
        a.h2d_source += f"; divided by {a.share}: the link is shared by {a.share} ranks"
        s["memsize"] //= a.share
    a.host_links_source = ("assumed (not measured: no multi-GPU bus calibration is committed)")
    a.nvlink_source = ("NV18 measured by nvidia-smi topo -m on the 2 x H200 node "
                       "(bench/results/gpu-h200x2-20261124.log); rate per direction assumed "
                       "from NVIDIA's H200 specification" if a.nvlink == ASSUMED_NVLINK_GBS
                       else "given on the command line (option nvlink)")

    bus = os.path.join(a.out, "bus")
    os.makedirs(bus, exist_ok=True)
    base = os.path.join(bus, a.label)
    open(base + ".platform.v4.xml", "w").write(platform(a, s, True))
    open(base + ".platform.xml", "w").write(platform(a, s, False))
    open(base + ".bandwidth", "w").write(matrix(a, s, a.gpus, "bandwidth"))
    open(base + ".latency", "w").write(matrix(a, s, a.gpus, "latency"))
    open(base + ".affinity", "w").write("# GPU\tNUMA0\t\n" + "".join(f"{g}\t0\t\n" for g in range(a.gpus)))
    open(base + ".config", "w").write(
        "# Current configuration\n%d # Number of CPUs\n1 # Number of NUMA nodes\n"
        "%d # Number of CUDA nodes\n0 # Number of OpenCL nodes\n0 # Number of FPGA nodes\n"
        "0 # Number of Disk nodes\n0 # Number of MPI_MS nodes\n0 # Number of TCPIP_MS nodes\n"
        "0 # Number of HIP nodes\n" % (s["cpus"], a.gpus))
    codelets = os.path.join(a.out, "codelets", "45")
    os.makedirs(codelets, exist_ok=True)
    for f in glob.glob(os.path.join(a.src, "codelets", "45", "*." + s["label"])):
        symbol = os.path.basename(f)[: -len(s["label"]) - 1]
        with open(os.path.join(codelets, symbol + "." + a.label), "w") as out:
            out.write(slowed(open(f).read(), slowdown))
    # stdout: the label, the rate of MPI inside a node (simulate.sh's loopback links), and
    # the node's host memory (0: unknown)
    print(a.label, "%.2f" % intra_node_mpi(s["label"])[0], HOST_MEM_GB.get(s["label"], 0))


if __name__ == "__main__":
    main()
