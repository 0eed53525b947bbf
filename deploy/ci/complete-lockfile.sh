#!/usr/bin/env bash
# Completes package-lock.json with every platform's optional binaries, so that `npm ci` (the
# image build, and setup.sh) accepts it. Run it after changing dependencies; needs the npm
# registry, changes no locked version, installs nothing.
#
# `npm install --package-lock-only` fills most holes. It keeps a package it reads from the
# lockfile as it is, though, holes and all (rollup under vite was one), so each package that
# still has holes is briefly made a direct dependency of the tests workspace at its locked
# version, which makes npm resolve it afresh, and the manifest is put back.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm_lock() { npm install --package-lock-only --ignore-scripts --no-audit --no-fund "$@" >/dev/null; }
npm_lock
for spec in $(python3 deploy/ci/check-lockfile.py --parents); do
  echo "re-resolving $spec" >&2
  cp tests/package.json tests/package.json.orig
  npm_lock -D "$spec" -w tests || { mv tests/package.json.orig tests/package.json; exit 1; }
  mv tests/package.json.orig tests/package.json
  npm_lock
done
python3 deploy/ci/check-lockfile.py
