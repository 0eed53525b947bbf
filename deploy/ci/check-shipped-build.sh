#!/usr/bin/env bash
# What the images ship holds no test code: compiles every package with its tsconfig.build.json
# (as deploy/Dockerfile's build stages do) in a copy of the tree, then fails on any test, fake,
# test world or testing module in the output, or any module that loads the local stack kit.
# Also proves the shipped code compiles without jest's types.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .coffer-data
work=$(mktemp -d -p .coffer-data shipped-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Tracked and new files, no build output; node_modules as hard links (same file system, so
# TypeScript sees one tree and its declaration paths stay portable).
git ls-files -z --cached --others --exclude-standard -- contracts proto services agent \
  tsconfig.base.json package.json | xargs -0 cp --parents -t "$work"
cp -al node_modules "$work/node_modules"
packages=(contracts proto services/common services/auth services/notification services/audit
  services/backup-orchestrator services/storage services/kb services/gateway agent)
(cd "$work" && node_modules/.bin/tsc -b "${packages[@]/%//tsconfig.build.json}")
bad=$(cd "$work" && find "${packages[@]/%//dist}" -name '*.js' \
  \( -name '*.test.js' -o -name 'test-world.js' -o -name 'fake.js' -o -name '*.fake.js' \
  -o -path '*/testing/*' \) | sort)
kit=$(cd "$work" && grep -rlE "require\\(\"@coffer/local-stack\"\\)|deploy/local" \
  --include='*.js' "${packages[@]/%//dist}" | sort || true)
if [ -n "$bad$kit" ]; then
  [ -z "$bad" ] || printf 'test code in the shipped build:\n%s\n' "$bad"
  [ -z "$kit" ] || printf 'shipped modules that load the local stack kit:\n%s\n' "$kit"
  exit 1
fi
echo "shipped build ($(cd "$work" && find "${packages[@]/%//dist}" -name '*.js' | wc -l) modules): no test code, no local stack kit"
