#!/usr/bin/env bash
# Server load test: trivial runs through SandjarServer over loopback with N concurrent clients,
# beside the same runs through Sandbox.run in process; throughput, p50/p99 latency and CPU per run,
# and the same over Server-Sent Events (dev.sandjar.bench.ServerLoad). Writes
# bench/results/server-load.md (BENCH_OUT overrides it).
#
#   bench/server-load.sh [SECONDS] [CLIENTS] [POOL] [WARMUP] [SSE_CLIENTS]
#
# Defaults: 15 s per level, clients 1,2,4,8,16, a pool of one engine per core, 45 s of
# Sandbox.warmUp, SSE clients 1,8. That is about 5 minutes: the warm-up, 40 s of unmeasured runs,
# 33 s per client level (three HTTP and three in-process slices, alternating, each with half a
# second unmeasured) and 16 s per SSE level.
# BENCH_JAVA picks the java, as for run.sh. Not part of `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
clients="${2:-1,2,4,8,16}"
pool="${3:-$(nproc)}"
warmup="${4:-45}"
sse_clients="${5:-1,8}"
out="${BENCH_OUT:-bench/results/server-load.md}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
# Build and install this tree (bench/build.sh).
source bench/build.sh
bench_build
bench_jvm
exec "$java" "${jit_flags[@]}" -Xss4m -Xmx1g -cp "$cp" dev.sandjar.bench.ServerLoad \
  "$seconds" "$clients" "$pool" "$warmup" "$sse_clients" "$out"
