#!/bin/bash
# Regenerates quickjs-wasm/outline-profile.txt, the block counts the outlining pass
# (module outline, docs/performance.md "Splitting the interpreter loop") decides cold code by.
# Needs a built tree: mvn -B -ntp -o -pl bench -am package -DskipTests
# The counts fit one engine class shape: rerun after any change of the wasm or of Chicory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
methods="func_251 func_684 func_162"
generated=quickjs-wasm/target/generated-resources/chicory-compiler/dev/sandjar/quickjs/internal/QuickJsEngineModuleMachineFuncGroup_0.class
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mvn -B -q -ntp -o -pl outline dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$tmp/outline-cp.txt" >/dev/null
java -cp "outline/target/classes:$(cat "$tmp/outline-cp.txt")" dev.sandjar.outline.Outliner \
    instrument "$generated" "$tmp/over/dev/sandjar/quickjs/internal/QuickJsEngineModuleMachineFuncGroup_0.class" $methods
flags=$(sed -n 's:.*<sandjar.jit.flags>\(.*\)</sandjar.jit.flags>.*:\1:p' pom.xml)
# shellcheck disable=SC2086
java $flags -Xss4m -cp "$tmp/over:bench/target/classes:$(cat bench/target/classpath.txt)" \
    build/outline/OutlineTraining.java build/outline/training-mix.js "$tmp/profile.txt" 1
{
    echo "# Outlining profile: METHOD CANDIDATE_ID COUNT, written by build/outline-profile.sh"
    echo "# (one round of the bench's fib, strings, json, regex and rows workloads plus"
    echo "# build/outline/training-mix.js, on the instrumented engine class)."
    cat "$tmp/profile.txt"
} > quickjs-wasm/outline-profile.txt
echo "wrote quickjs-wasm/outline-profile.txt ($(grep -vc '^#' quickjs-wasm/outline-profile.txt) counts)"
