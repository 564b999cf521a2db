#!/usr/bin/env python3
"""The staging model of bench/notes-arrays.md, "Four GPUs (2026-11-27)": a DGEMM at n = 49152
in tiles of 4096 (12 x 12), one block and one chunk, the walk's growing shells (compute/walk.h),
the GPUs a cyclic grid over C's tiles (static assignment), each task taking the driver's
measured time; the copiers one stream of R GB/s staging A, B and C tiles in the walk's order
(in-copies first, as doors/stage.c's copier loop does), then C's tiles back as they finish.
Prints, for each R, when the product and the last copy back end, and the door's ratio to the
driver. Usage: stage-model-20261127.py [R ...]"""
import sys

NT = 12
TILE_GB = 4096 * 4096 * 8 / 1e9


def walk():
    for s in range(NT):
        for i, j in [(i, s) for i in range(s + 1)] + [(s, j) for j in range(s)]:
            for k in range(NT):
                yield i, j, k


def run(rate, task_s, grid):
    tasks = list(walk())
    order, seen = [], set()
    for i, j, k in tasks:
        for tile in (("A", i, k), ("B", k, j), ("C", i, j)):
            if tile not in seen:
                seen.add(tile)
                order.append(tile)
    ready, t = {}, 0.0
    for tile in order:
        t += TILE_GB / rate
        ready[tile] = t
    free, c_end = [0.0] * (grid[0] * grid[1]), {}
    for i, j, k in tasks:
        g = (i % grid[0]) * grid[1] + j % grid[1]
        start = max(free[g], ready[("A", i, k)], ready[("B", k, j)], ready[("C", i, j)])
        free[g] = c_end[(i, j)] = start + task_s
    back = t
    for end in sorted(c_end.values()):
        back = max(back, end) + TILE_GB / rate
    return max(free), back


driver_s = 1.336  # 4 x H200, 177.7 TFLOP/s (issue 29)
for rate in [float(r) for r in sys.argv[1:]] or [33, 44, 55, 66, 73, 88, 100, 130]:
    for gpus, grid in ((4, (2, 2)), (1, (1, 1))):
        drv = driver_s * 4 / gpus
        product, back = run(rate, drv * gpus / NT ** 3, grid)
        print(f"{gpus} GPU(s) R = {rate:5.0f} GB/s: product {product:.3f} s, last C back "
              f"{back:.3f} s, x driver {drv / back:.3f}")
