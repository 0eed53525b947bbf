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
  # `npm ci`, as the image build does, so a lockfile it would refuse fails here first
  # (deploy/ci/complete-lockfile.sh mends one).
  npm ci --no-audit --no-fund >&2
  cp package-lock.json "$stamp"
fi
echo "[setup] building" >&2
npm run build --silent >&2
export COFFER_SETUP_DONE=1
