#!/usr/bin/env bash
# Runs the benchmark comparison and writes bench/results/latest.md.
#
#   bench/run.sh quick   # one fork per system, short iterations: about 13 minutes on 2 cores
#   bench/run.sh full    # three forks per system, longer iterations: about 85 minutes
#   bench/run.sh smoke   # tiny workloads, one short iteration: checks the harness in about 2 minutes
#
# A fork is one JVM per system: a shared warm-up over every workload, then all of that system's
# JMH benchmarks in process (BenchMode.java has each mode's settings, the report's header says
# what ran and how long each step took).
#
# One step checks the command line: fib(25) in a loop through ./sandjar run and through the
# library in a new JVM (60 s each in quick mode; 90 s in full, three times, the median draw
# reported; bench/cli-speed.sh runs it alone).
# The report is written either way; then the harness exits 1 with a FAIL line when the command
# line's steady state is over 1.5x the library's (not in smoke mode) or the check could not run.
#
# BENCH_JAVA picks the java that runs the harness, every fork and every probe (default: the one
# on PATH, or JAVA_HOME's), except the GraalJS (JIT) column's: GraalJS 25 with the Graal compiler
# through JVMCI runs on BENCH_JIT_JAVA (default Temurin 25), its jars resolved into
# bench/target/graaljs-jit by bench/graaljs-jit/pom.xml. Maven builds with its own JDK (17 or 25
# both work). BENCH_OUT
# overrides the report's path, e.g. for a second JDK's run:
#   BENCH_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java BENCH_OUT=bench/results/latest-jdk25.md bench/run.sh quick
# The raw numbers land in bench/target/bench-results/results.json; to remake a report from them:
#   java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.sandjar.bench.BenchMain render RESULTS.json OUT.md
set -euo pipefail
mode="${1:-quick}"
size=full
case "$mode" in
  quick|full) ;;
  smoke) size=tiny ;;
  *) echo "usage: bench/run.sh quick|full|smoke" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
default_out=bench/results/latest.md
[[ "$mode" == smoke ]] && default_out=bench/target/bench-results/smoke.md
out="${BENCH_OUT:-$default_out}"
java="${BENCH_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"

# Build and install this tree (bench/build.sh). BENCH_MVN_FLAGS adds build flags, e.g.
# BENCH_MVN_FLAGS=-DnoOutline for the engine without the outlining pass (docs/engine.md).
source bench/build.sh
read -r -a mvn_flags <<<"${BENCH_MVN_FLAGS:-}"
bench_build "${mvn_flags[@]}"

# GraalJS (JIT): its jars apart from the bench's class path (where GraalJS 23.1.8 is). When they
# cannot be resolved the harness leaves the column empty and says why.
jit_java="${BENCH_JIT_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
rm -rf bench/target/graaljs-jit
if ! mvn -B -q -ntp -f bench/graaljs-jit/pom.xml package; then
  echo "warning: the GraalJS 25 jars could not be resolved; the GraalJS (JIT) column will be empty" >&2
fi

# The same quickjs-ng wasm on V8, through quickjs-emscripten: installed here, never committed.
node_dir=bench/target/node
node_modules=""
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  mkdir -p "$node_dir"
  [[ -f "$node_dir/package.json" ]] || echo '{"private": true}' >"$node_dir/package.json"
  if (cd "$node_dir" && npm install --silent --no-audit --no-fund \
      quickjs-emscripten-core@0.32.0 @jitl/quickjs-ng-wasmfile-release-sync@0.32.0); then
    node_modules="$node_dir/node_modules"
  else
    echo "warning: npm install failed; the V8 column will be empty" >&2
  fi
else
  echo "warning: node/npm not found; the V8 column will be empty" >&2
fi

bench_jvm
exec "$java" "${jit_flags[@]}" \
  -Xss4m -Dsandjar.bench.node=bench/node -Dsandjar.bench.size="$size" \
  -Dsandjar.bench.graaljsJit.java="$jit_java" -Dsandjar.bench.graaljsJit.jars=bench/target/graaljs-jit \
  -Dsandjar.bench.graaljsJit.classpath=bench/target/classpath-without-graaljs.txt -cp "$cp" \
  dev.sandjar.bench.BenchMain "$mode" "$out" bench/target/bench-results $node_modules
