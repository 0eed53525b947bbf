#!/usr/bin/env bash
# Shared first steps of the local run and the test run: install what the machine lacks, install
# the npm dependencies when the lockfile changed, and build every package. Source it.
set -euo pipefail
# A caller that already ran it (.ci/run before test.sh) exports COFFER_SETUP_DONE.
if [ "${COFFER_SETUP_DONE:-}" = 1 ]; then return 0; fi
eval "$(bash deploy/local/bootstrap.sh "$@")"
stamp=node_modules/.coffer-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "[setup] installing npm dependencies" >&2
  # `npm install`, not `npm ci`: the registry mirror here lacks some other platforms' optional
  # binaries (e.g. @swc/core-darwin-*), which `npm ci` insists on finding in the lockfile. With
  # an up-to-date lockfile `npm install` installs exactly the locked versions.
  npm install --no-audit --no-fund >&2
  cp package-lock.json "$stamp"
fi
echo "[setup] building" >&2
npm run build --silent >&2
export COFFER_SETUP_DONE=1
