#!/usr/bin/env bash
# What isolating host work in worker processes costs per call: PDF, image metadata and canvas calls
# through a sandbox with worker processes and one without, alternating (dev.sandjar.bench.
# HostWorkCost). Writes bench/results/host-work.md (BENCH_OUT overrides it).
#
#   bench/host-work.sh [SECONDS]
#
# Default: 20 s of measured calls per workload after 20 s of warm-up, five workloads: about 4
# minutes. BENCH_JAVA picks the java, as for run.sh. Not part of `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
out="${BENCH_OUT:-bench/results/host-work.md}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
source bench/build.sh
bench_build
bench_jvm
exec "$java" "${jit_flags[@]}" -Xss4m -Xmx1g -cp "$cp" dev.sandjar.bench.HostWorkCost "$seconds" "$out"
