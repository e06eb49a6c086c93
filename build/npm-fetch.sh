#!/usr/bin/env bash
# Fetches files out of one pinned npm package with the npm client, checks each file's SHA-256
# against the value pinned in the calling module's pom.xml, and copies it into the build
# directory. Nothing fetched here is ever committed.
#
# usage: npm-fetch.sh PACKAGE VERSION PIN_FILE  SRC SHA256 DEST  [SRC SHA256 DEST ...]
#   SRC     a path inside the package tarball, e.g. dist/acorn.js
#   SHA256  the expected SHA-256 of that file
#   DEST    where to copy it
#   PIN_FILE names where the hashes are pinned, for the error message.
set -euo pipefail

package="$1" version="$2" pin_file="$3"
shift 3
if (( $# == 0 || $# % 3 != 0 )); then
  echo "error: npm-fetch.sh needs SRC SHA256 DEST triples after PACKAGE VERSION PIN_FILE" >&2
  exit 2
fi

have_sha() { sha256sum "$1" | cut -d' ' -f1; }

# Nothing to do when every destination already holds the pinned bytes.
fresh=1
args=("$@")
for ((i = 0; i < ${#args[@]}; i += 3)); do
  dest="${args[i+2]}" sha="${args[i+1]}"
  if [[ ! -f "$dest" || "$(have_sha "$dest")" != "$sha" ]]; then fresh=0; fi
done
(( fresh )) && exit 0

if ! command -v npm >/dev/null 2>&1; then
  echo "error: the npm client is required to fetch $package@$version." >&2
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
tar -xzf "$work"/*.tgz -C "$work"

for ((i = 0; i < ${#args[@]}; i += 3)); do
  src="${args[i]}" expected="${args[i+1]}" dest="${args[i+2]}"
  if [[ ! -f "$work/package/$src" ]]; then
    echo "error: $package@$version has no file $src" >&2
    exit 1
  fi
  actual="$(have_sha "$work/package/$src")"
  if [[ "$actual" != "$expected" ]]; then
    echo "error: $package@$version $src has SHA-256 $actual," >&2
    echo "       but $pin_file pins $expected. The published package changed;" >&2
    echo "       review the new file before updating the pin in $pin_file." >&2
    exit 1
  fi
  mkdir -p "$(dirname "$dest")"
  cp "$work/package/$src" "$dest.tmp" && mv "$dest.tmp" "$dest"
done
echo "fetched $package@$version ($(( ${#args[@]} / 3 )) file(s), SHA-256 checked)"
