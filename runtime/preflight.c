/* What must hold before StarPU starts: the environment against its table (runtime/env.c), then
 * StarPU's calibration directory (runtime/starpu_home.c). */
#include <stdio.h>
#include "runtime/env.h"
#include "runtime/preflight.h"

int sg_preflight(char *notice, size_t noticelen, char *err, size_t errlen)
{
	if (noticelen)
		notice[0] = '\0';
	if (sg_env_check(err, errlen))
		return -1;
	return sg_starpu_home_prepare(notice, noticelen, err, errlen);
}
