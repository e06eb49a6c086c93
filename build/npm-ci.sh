#!/usr/bin/env bash
# Installs the npm packages a folder's package.json and package-lock.json pin, with the npm client,
# into DEST (node_modules under it). `npm ci` installs exactly the lockfile's versions and checks
# each package against the lockfile's integrity hash. Install scripts do not run. Nothing installed
# here is ever committed.
#
# usage: npm-ci.sh SRC_DIR DEST_DIR
set -euo pipefail

src="$1" dest="$2"
for f in package.json package-lock.json; do
  if [[ ! -f "$src/$f" ]]; then
    echo "error: npm-ci.sh: $src has no $f" >&2
    exit 2
  fi
done

# Nothing to do when DEST already holds an install of this very lockfile.
if [[ -d "$dest/node_modules" ]] && cmp -s "$src/package-lock.json" "$dest/package-lock.json" \
   && cmp -s "$src/package.json" "$dest/package.json"; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "error: the npm client is required to install the packages $src/package.json pins." >&2
  echo "       Install Node.js 18+ with npm (Debian: apt-get install nodejs npm) and build again." >&2
  exit 1
fi

rm -rf "$dest"
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
if ! (cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund >npm-ci.log 2>&1); then
  echo "error: 'npm ci' in $dest failed:" >&2
  cat "$dest/npm-ci.log" >&2
  rm -rf "$dest/node_modules"
  exit 1
fi
echo "installed the packages $src/package-lock.json pins (integrity checked)"
