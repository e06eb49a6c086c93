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
# passes it and the harness's forks get it (BenchMain.FORK_FLAGS): without it the engine keeps its
# portable memory path there, and the bench would measure that instead of what docs/jvm-flags.md
# recommends. The JDK's release file names its feature release, as ./sandjar reads it.
bench_jvm() {
  cp="bench/target/classes:$(cat bench/target/classpath.txt)"
  read -r -a jit_flags <<<"$(sed -n 's:.*<sandjar.jit.flags>\(.*\)</sandjar.jit.flags>.*:\1:p' pom.xml)"
  local java_path feature
  java_path="$(readlink -f "$(command -v "$java" || true)" 2>/dev/null || true)"
  feature="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "${java_path%/bin/java}/release" 2>/dev/null || true)"
  if [[ "$feature" =~ ^[0-9]+$ ]] && ((feature >= 24)); then
    jit_flags+=(--sun-misc-unsafe-memory-access=allow)
  fi
}
