#!/usr/bin/env bash
# Issue 34's noisy neighbour: `sandjar serve` in a JVM of its own with -Xmx1g and a pool of two,
# one tenant sending every bomb of the hostile-input review in a loop, another ordinary runs; the
# ordinary tenant's latency alone and beside the bombs, what each bomb met, and whether the server
# ran out of memory or went down (dev.sandjar.bench.NoisyNeighbour). Writes
# bench/results/noisy-neighbour.md (BENCH_OUT overrides it).
#
#   bench/noisy-neighbour.sh [SECONDS] [SCALE]
#
# Defaults: 60 s per phase (alone, then beside the bombs), bombs at scale 4 (the review's sizes or
# larger where a cap stops them sooner): about 3 minutes. BENCH_JAVA picks the java, as for
# run.sh. NoisyNeighbourTest runs the same at small size in `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
scale="${2:-4}"
out="${BENCH_OUT:-bench/results/noisy-neighbour.md}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
source bench/build.sh
bench_build
bench_jvm
exec "$java" -Xss4m -cp "$cp" dev.sandjar.bench.NoisyNeighbour "$seconds" "$scale" "$out"
