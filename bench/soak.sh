#!/usr/bin/env bash
# Soak: many runs of ordinary, failing, timing-out, cancelled and hostile programs on a pool of 2;
# fails (exit 1) when threads, heap after GC, file descriptors or engines drift more than 5% after
# the warm-up, or a run ends other than its program must (dev.sandjar.bench.Soak).
#
#   bench/soak.sh [RUNS] [SAMPLES]    # default 100000 runs, 20 samples; the first quarter warms up
# BENCH_JAVA picks the java, as for run.sh. Not part of `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-100000}"
samples="${2:-20}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
# Build and install this tree (bench/build.sh).
source bench/build.sh
bench_build
bench_jvm
exec "$java" "${jit_flags[@]}" -Xss4m -Xmx1g -cp "$cp" dev.sandjar.bench.Soak "$runs" "$samples"
