#!/bin/bash
# usage: plans.sh DRIVER  -- prints CPU plans for a table of cases
d=$1
for np in 1 2 4; do for args in "-M 4096 -N 4096 -K 4096" "-M 1000 -N 3000 -K 700 -t 128" "-M 8192 -N 8192 -K 8192 --prec b" "-M 2048 -N 2048 -K 2048 --prec z --transA T" "--sizes 1024,3000 --prec s --beta 0" "-M 20000 -N 20000 -K 20000 -t 64" "-M 4096 -N 4096 -K 4096 --no-throttle --c-home" "-M 4096 -N 4096 -K 4096 -b 2 -c 3 -l 0"; do echo "== np $np $args"; mpirun -np $np --oversubscribe --bind-to none -x STARPU_SILENT=1 -x STARPU_NCUDA=0 -x STARPU_LIMIT_CPU_MEM=8000 $d --plan $args 2>&1 | grep -v "^memory\|^starpu_gemm 0\|^workers\|^scheduler"; done; done
