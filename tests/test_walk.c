/* compute/walk.h: every task GEMM(i, j, k) of the product comes exactly once, chunk after
 * chunk in Algorithm 3's order (y, x, z), each chunk's C tiles in growing squares (a tile's
 * larger coordinate in its block never decreases), each C tile's k steps back to back, and
 * the task numbers count 0, 1, 2, ... (they become the tasks' priorities), and C's loads
 * spread over a block's chunks by the tiles' places in the walk. Plans of every shape:
 * square, tall and wide blocks, ragged edges, grids of ranks, one chunk or many. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compute/walk.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "test_walk: " __VA_ARGS__); \
	fputc('\n', stderr); } } while (0)

static void check_plan(int Mt, int Nt, int Kt, int b, int c, int d, int P, int Q)
{
	struct starpu_gemm_plan pl = { .b = b, .c = c, .d = d, .Mt = Mt, .Nt = Nt, .Kt = Kt,
	                               .P = P, .Q = Q };
	pl.X = (Mt + b * P - 1) / (b * P);
	pl.Y = (Nt + c * Q - 1) / (c * Q);
	pl.Z = (Kt + d - 1) / d;
	char *seen = calloc((size_t)Mt * Nt * Kt, 1);
	struct sg_walk w;
	sg_walk_start(&w, &pl);
	int64_t tasks = 0, chunks = 0;
	int last_x = 0, last_y = 0, last_z = -1;
	while (sg_walk_next_chunk(&w)) {
		EXPECT(w.chunk == chunks, "chunk number %lld, expected %lld", (long long)w.chunk,
		       (long long)chunks);
		int order = (w.y * pl.X + w.x) * pl.Z + w.z, prev = (last_y * pl.X + last_x) * pl.Z + last_z;
		EXPECT(order == prev + 1, "chunk (%d,%d,%d) out of order", w.x, w.y, w.z);
		last_x = w.x, last_y = w.y, last_z = w.z;
		chunks++;
		int i, j, k, pi = -1, pj = -1, pk = -1, shell = 0, zc_prev = pl.Z - 1;
		int64_t tiles = 0, *loads = calloc((size_t)pl.Z, sizeof(*loads));
		while (sg_walk_next_task(&w, &i, &j, &k)) {
			EXPECT(w.seq == tasks, "task number %lld, expected %lld", (long long)w.seq,
			       (long long)tasks);
			tasks++;
			EXPECT(i >= w.i0 && i < w.i1 && j >= w.j0 && j < w.j1 && k >= w.k0 && k < w.k1,
			       "task (%d,%d,%d) outside its chunk", i, j, k);
			EXPECT(!seen[((size_t)i * Nt + j) * Kt + k], "task (%d,%d,%d) twice", i, j, k);
			seen[((size_t)i * Nt + j) * Kt + k] = 1;
			if (i == pi && j == pj)
				EXPECT(k == pk + 1, "k steps of C(%d,%d) not back to back", i, j);
			else {
				EXPECT(pi < 0 || pk == w.k1 - 1, "C(%d,%d) left before its last k", pi, pj);
				EXPECT(k == w.k0, "C(%d,%d) starts at k=%d", i, j, k);
				int s = i - w.i0 > j - w.j0 ? i - w.i0 : j - w.j0;
				EXPECT(s >= shell, "C(%d,%d) in shell %d after shell %d", i, j, s, shell);
				shell = s;
				/* C's loads spread: by the tile's place in the walk, from the last
				 * chunk down to the first, about as many in each. */
				int zc = sg_walk_c_chunk(&w, i, j);
				int64_t T = (int64_t)(w.i1 - w.i0) * (w.j1 - w.j0);
				EXPECT(zc == pl.Z - 1 - (int)(tiles * pl.Z / T), "C(%d,%d), tile %lld of "
				       "the chunk, loaded in chunk %d", i, j, (long long)tiles, zc);
				EXPECT(zc >= 0 && zc <= zc_prev, "C(%d,%d) loaded in chunk %d after %d", i,
				       j, zc, zc_prev);
				if (zc >= 0 && zc < pl.Z)
					loads[zc]++;
				zc_prev = zc;
				tiles++;
			}
			pi = i, pj = j, pk = k;
		}
		EXPECT(sg_walk_block_ends(&w) == (w.z == pl.Z - 1), "block end at chunk %d", w.z);
		for (int z = 0; z < pl.Z; z++)
			EXPECT(loads[z] >= tiles / pl.Z && loads[z] <= (tiles + pl.Z - 1) / pl.Z,
			       "%lld of %lld C tiles loaded in chunk %d of %d", (long long)loads[z],
			       (long long)tiles, z, pl.Z);
		free(loads);
	}
	EXPECT(chunks == (int64_t)pl.X * pl.Y * pl.Z, "%lld chunks, expected %d", (long long)chunks,
	       pl.X * pl.Y * pl.Z);
	EXPECT(tasks == (int64_t)Mt * Nt * Kt, "%lld tasks, expected %d", (long long)tasks,
	       Mt * Nt * Kt);
	free(seen);
}

int main(void)
{
	check_plan(1, 1, 1, 1, 1, 1, 1, 1);
	check_plan(4, 4, 4, 4, 4, 4, 1, 1);        /* one block, one chunk: the GPU case */
	check_plan(4, 4, 4, 4, 1, 4, 1, 1);        /* quarter-width blocks */
	check_plan(16, 16, 16, 16, 16, 16, 1, 1);
	check_plan(7, 3, 5, 7, 3, 2, 1, 1);        /* tall block, ragged chunks */
	check_plan(3, 9, 4, 3, 9, 4, 1, 1);        /* wide block */
	check_plan(10, 11, 6, 3, 2, 4, 1, 1);      /* ragged blocks */
	check_plan(9, 8, 5, 2, 3, 2, 2, 2);        /* 2 x 2 grid */
	check_plan(5, 12, 3, 5, 2, 1, 1, 3);       /* 1 x 3 grid */
	if (failures)
		return 1;
	printf("test_walk: every plan walked in order, each task once\n");
	return 0;
}
