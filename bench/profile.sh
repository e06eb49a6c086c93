#!/usr/bin/env bash
# Profiles Sandjar's setup path with JFR: trivial runs after a warm-up, then the engine thread's
# execution samples grouped by the step of the run they fall in.
#
#   bench/profile.sh [MEASURED_RUNS]    # default 3000; writes bench/target/profile/
# BENCH_JAVA picks the java, as for run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3000}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
jfr=jfr
[[ "$java" == */* ]] && jfr="$(dirname "$java")/jfr"
out=bench/target/profile
mkdir -p "$out"
source bench/build.sh
[[ -f bench/target/classpath.txt ]] || bench_build
bench_jvm
"$java" "${jit_flags[@]}" \
  -Xss4m -XX:FlightRecorderOptions:stackdepth=1024 \
  -XX:StartFlightRecording=settings=profile,filename="$out/setup.jfr" \
  -cp "$cp" dev.sandjar.bench.SetupProfile 2000 "$runs" | tee "$out/run.txt"
"$jfr" print --events jdk.ExecutionSample --stack-depth 1024 "$out/setup.jfr" >"$out/samples.txt"
python3 bench/profile_report.py "$out/samples.txt" | tee "$out/report.txt"
