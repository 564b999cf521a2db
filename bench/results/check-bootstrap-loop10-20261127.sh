#!/usr/bin/env bash
# Ten fresh-clone ./bootstrap.sh check runs in a row (issue 30's acceptance), on one commit.
commit=$1
out=/work/loop10/summary.txt
echo "commit $commit, started $(date -u +%FT%TZ), $(nproc) cores" > $out
for i in $(seq 1 10); do
  rm -rf /tmp/loop-clone
  git clone -q /work/main /tmp/loop-clone && git -C /tmp/loop-clone checkout -q "$commit"
  t0=$(date +%s)
  (cd /tmp/loop-clone && ./bootstrap.sh check) > /work/loop10/run$i.log 2>&1
  rc=$?
  t1=$(date +%s)
  echo "run $i: exit $rc, $((t1-t0)) s: $(grep -E '^(tests|sanitizer tests|distcheck)' /work/loop10/run$i.log | tr '\n' ';')" >> $out
done
echo "finished $(date -u +%FT%TZ)" >> $out
