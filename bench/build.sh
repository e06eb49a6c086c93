# Sourced by the bench scripts (from the repository's root): the one place that builds the tree
# for them and reads the class path and JIT flags their JVMs run with.

# Builds the bench module and what it needs (-am), with any extra Maven flags, and installs them.
# Install, not package: the class path Maven writes for the harness and its forks
# (bench/target/classpath.txt) names the sandjar jars in ~/.m2 wherever a SNAPSHOT of them sits
# there (seen 2026-12-04: sandjar-host and sandjar-quickjs-wasm from ~/.m2, only sandjar-server
# from its target/), so a package alone would measure whatever was installed last, not this tree.
bench_build() {
  mvn -B -q -ntp -pl bench -am install -DskipTests "$@"
}

# Sets cp (the bench's classes and bench/target/classpath.txt) and jit_flags (the parent pom's
# sandjar.jit.flags, their one home: docs/jvm-flags.md), for the JVM "$java" names.
# On JDK 24 and later jit_flags also gets --sun-misc-unsafe-memory-access=allow, as ./sandjar
# passes it: without it the engine keeps its portable memory path there, and the bench would
# measure that instead of what docs/jvm-flags.md recommends. JDKs before 23 reject the flag and
# 23 allows Unsafe by default, so the JVM itself is asked whether it takes it.
bench_jvm() {
  cp="bench/target/classes:$(cat bench/target/classpath.txt)"
  read -r -a jit_flags <<<"$(sed -n 's:.*<sandjar.jit.flags>\(.*\)</sandjar.jit.flags>.*:\1:p' pom.xml)"
  if "$java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
    jit_flags+=(--sun-misc-unsafe-memory-access=allow)
  fi
}
