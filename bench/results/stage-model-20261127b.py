#!/usr/bin/env python3
"""stage-model-20261127.py extended to the one call's two ways with C (bench/notes-arrays.md,
"Fewer bytes copied"): C copied in like A and B, or not copied in and added on the way back
(each C tile's trip back costing 1.5 x a copy: read twice, written once). The copiers are one
stream in the walk's exact order, which the slices of doors/stage.c approach. The driver's time
is call R's (4 x H200, n = 49152, 200.5 TFLOP/s: 1.185 s). Usage: stage-model-20261127b.py"""
import os

here = os.path.dirname(os.path.abspath(__file__))
base = open(os.path.join(here, "stage-model-20261127.py")).read().split("driver_s = ")[0]
exec(base)  # NT, TILE_GB, walk()


def run_c(rate, task_s, grid, copy_c, back_factor):
    tasks = list(walk())
    order, seen = [], set()
    for i, j, k in tasks:
        for tile in (("A", i, k), ("B", k, j)) + ((("C", i, j),) if copy_c else ()):
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
        start = max(free[g], ready[("A", i, k)], ready[("B", k, j)], ready.get(("C", i, j), 0))
        free[g] = c_end[(i, j)] = start + task_s
    back = t
    for end in sorted(c_end.values()):
        back = max(back, end) + back_factor * TILE_GB / rate
    return max(free), back


driver_s = 1.185
for rate in (40, 44, 47, 55, 60, 66):
    for copy_c, factor, name in ((True, 1.0, "C copied in"), (False, 1.5, "beta*C on the way back")):
        product, back = run_c(rate, driver_s * 4 / NT ** 3, (2, 2), copy_c, factor)
        print(f"R = {rate:2d} GB/s, {name:23s}: product {product:.3f} s, last C back {back:.3f} s, "
              f"x driver {driver_s / back:.3f}")
