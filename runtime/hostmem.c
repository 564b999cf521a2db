#include <starpu_gemm.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "runtime/env.h"

static double meminfo_available(const char **source)
{
	FILE *meminfo = fopen("/proc/meminfo", "r");
	if (meminfo) {
		char line[256];
		unsigned long long kib;
		while (fgets(line, sizeof(line), meminfo)) {
			if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
				fclose(meminfo);
				*source = "MemAvailable";
				return (double)kib * 1024.0;
			}
		}
		fclose(meminfo);
	}
	*source = "free physical pages";
	return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

double starpu_gemm_host_memory(int ranks_on_node, const char **source)
{
	const char *unused, **src = source ? source : &unused;
	double limit = sg_env_real(SG_ENV_LIMIT_CPU_MEM);
	if (limit > 0) {
		*src = "STARPU_LIMIT_CPU_MEM";
		return limit * 1024.0 * 1024.0;
	}
	return meminfo_available(src) / (ranks_on_node > 0 ? ranks_on_node : 1);
}
