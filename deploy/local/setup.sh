#!/usr/bin/env bash
# Shared first steps of the local run and the test run: install what the machine lacks, install
# the npm dependencies when the lockfile changed, and build every package. Source it.
set -euo pipefail
eval "$(bash deploy/local/bootstrap.sh "$@")"
stamp=node_modules/.coffer-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "[setup] installing npm dependencies" >&2
  npm ci --no-audit --no-fund >&2
  cp package-lock.json "$stamp"
fi
echo "[setup] building" >&2
npm run build --silent >&2
