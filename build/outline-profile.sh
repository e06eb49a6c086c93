#!/bin/bash
# Regenerates quickjs-wasm/outline-profile.txt, the block counts the outlining pass
# (module outline, docs/performance.md "Splitting the interpreter loop") decides cold code by,
# then quickjs-wasm/size-profile.txt, the block counts its size step keeps hot code in place by
# (docs/jvm-flags.md, "No flags needed"): the second is counted on the class the first shapes.
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

# The size step's profile: the class the pass makes up to its size step (the same outline
# arguments as quickjs-wasm/pom.xml), with a counter on every block of every method over the limit.
pom=quickjs-wasm/pom.xml
prop() { sed -n "s:.*<outline.$1>\(.*\)</outline.$1>.*:\1:p" "$pom" | head -1; }
max_bytes=$(prop maxMethodBytes)
java -cp "outline/target/classes:$(cat "$tmp/outline-cp.txt")" dev.sandjar.outline.Outliner \
    instrument-size "$generated" "$tmp/size/dev/sandjar/quickjs/internal/QuickJsEngineModuleMachineFuncGroup_0.class" \
    quickjs-wasm/outline-profile.txt "$(prop coldFraction)" "$(prop groupInsns)" "$(prop inlineAccesses)" \
    "$max_bytes" - $methods
# shellcheck disable=SC2086
java $flags -Xss4m -cp "$tmp/size:bench/target/classes:$(cat bench/target/classpath.txt)" \
    build/outline/OutlineTraining.java build/outline/training-mix.js "$tmp/size-profile.txt" 1
# Kept sparse: each method's block count, then only the blocks that ran at least a thousandth as
# often as the most frequent one (the step calls a block hot at a hundredth).
{
    echo "# Size-step profile: METHOD BLOCKS, then METHOD BLOCK COUNT for the blocks that ran at least"
    echo "# 1/1000 as often as the most frequent; written by build/outline-profile.sh (the same"
    echo "# training run, on the class the pass makes up to its size step, maxMethodBytes $max_bytes)."
    awk 'NR == FNR { if ($3 > max) max = $3; n[$1]++; next }
         !($1 in seen) { seen[$1] = 1; print $1, n[$1] }
         $3 * 1000 >= max && $3 > 0 { print }' "$tmp/size-profile.txt" "$tmp/size-profile.txt"
} > quickjs-wasm/size-profile.txt
echo "wrote quickjs-wasm/size-profile.txt ($(grep -vc '^#' quickjs-wasm/size-profile.txt) lines)"
