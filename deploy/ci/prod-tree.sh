#!/usr/bin/env bash
# Builds, without Docker, the file tree deploy/Dockerfile puts into one service's image: the npm
# manifests and the lockfile, that service's production dependencies alone installed with
# `npm ci --omit=dev --ignore-scripts --workspace services/<name>` (stage prod-deps), and the
# compiled code of contracts, proto, common and the service (stage service). Expects the tree to be
# built (`npm run build`). tests/integration/deploy/production-tree.test.ts starts every service
# from such trees.
#
#   deploy/ci/prod-tree.sh SERVICE OUT_DIR     # then: cd OUT_DIR/services/SERVICE && node dist/main.js
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 SERVICE OUT_DIR" >&2; exit 2; }
svc=$1; out=$2
cd "$(dirname "$0")/../.."
[ -f "services/$svc/src/main.ts" ] || { echo "no service named $svc" >&2; exit 2; }
[ -f "services/$svc/dist/main.js" ] || { echo "services/$svc is not built: npm run build" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
# Stage manifests: every package.json the build context holds, the lockfile and .npmrc.
git ls-files -co --exclude-standard -- package-lock.json .npmrc '*package.json' ':!:**/node_modules/**' |
  while read -r f; do [ -f "$f" ] && mkdir -p "$out/$(dirname "$f")" && cp "$f" "$out/$f"; done
(cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --workspace "services/$svc" >&2)
for d in contracts proto services/common "services/$svc"; do
  mkdir -p "$out/$d" && cp -r "$d/dist" "$out/$d/dist"
done
