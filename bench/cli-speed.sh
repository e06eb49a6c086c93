#!/usr/bin/env bash
# The command line's guest speed against the library's: fib(25) in a loop for SECONDS through
# `./sandjar run` (its flags and CDS archive), then through Sandbox.run in a new JVM; prints both
# steady states and their ratio, and fails (exit 1) when the command line's is over 1.5x the
# library's (dev.sandjar.bench.CliSpeed). bench/run.sh runs the same check as one of its steps.
# With DRAWS above 1 both sides run that many times, each in new JVMs, and every figure is the
# median draw (each draw's time to speed and steady state are shown too).
#
#   bench/cli-speed.sh [SECONDS [DRAWS]]   # default 60 s per side, 1 draw: about 2.5 minutes
# BENCH_JAVA picks the java, for both sides, as for run.sh. Not part of `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
draws="${2:-1}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
# Build and install this tree (bench/build.sh); the server module's package step is what
# ./sandjar runs.
source bench/build.sh
bench_build
bench_jvm
exec "$java" "${jit_flags[@]}" -Xss4m -Xmx1g -cp "$cp" dev.sandjar.bench.CliSpeed "$seconds" "$draws"
