#!/usr/bin/env bash
# Fetches the QuickJS-ng engine binary and its emscripten glue through the npm client,
# checks the binary's SHA-256 against the value pinned in quickjs-wasm/pom.xml, and
# places both under the build directory. Nothing fetched here is ever committed.
#
# usage: fetch-engine.sh PACKAGE VERSION SHA256 WASM_DIR GLUE_DIR
set -euo pipefail

package="$1" version="$2" expected="$3" out="$4" glue_dir="$5"
wasm="$out/quickjs-ng.wasm"
glue="$glue_dir/emscripten-module.cjs"

have_sha() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$wasm" && -f "$glue" && "$(have_sha "$wasm")" == "$expected" ]]; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "error: the npm client is required to fetch the engine binary ($package@$version)." >&2
  echo "       Install Node.js 18+ with npm (Debian: apt-get install nodejs npm) and build again." >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && npm pack --silent "$package@$version" >pack.log 2>&1); then
  echo "error: 'npm pack $package@$version' failed:" >&2
  cat "$work/pack.log" >&2
  exit 1
fi
tarball="$(ls "$work"/*.tgz)"
tar -xzf "$tarball" -C "$work" package/dist/emscripten-module.wasm package/dist/emscripten-module.cjs

actual="$(have_sha "$work/package/dist/emscripten-module.wasm")"
if [[ "$actual" != "$expected" ]]; then
  echo "error: $package@$version dist/emscripten-module.wasm has SHA-256 $actual," >&2
  echo "       but quickjs-wasm/pom.xml pins $expected. The published package changed;" >&2
  echo "       review the new binary before updating quickjs.wasm.sha256 in quickjs-wasm/pom.xml." >&2
  exit 1
fi

mkdir -p "$out" "$glue_dir"
cp "$work/package/dist/emscripten-module.wasm" "$wasm.tmp" && mv "$wasm.tmp" "$wasm"
cp "$work/package/dist/emscripten-module.cjs" "$glue.tmp" && mv "$glue.tmp" "$glue"
echo "fetched $package@$version (sha256 $actual)"
