#!/usr/bin/env bash
# Offline checks of how the images are built (no Docker engine needed): hadolint on
# deploy/Dockerfile, the Dockerfile against the services in the tree, and the build context that
# .dockerignore lets through, for this tree and for a made-up one holding everything that must
# never reach an image (node_modules, .coffer-data, env files, keys, build output).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/ci/tools.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 deploy/ci/check-lockfile.py package-lock.json
hadolint --config deploy/ci/hadolint.yaml deploy/Dockerfile
echo "hadolint deploy/Dockerfile: ok"
"$DEPLOY_CI_PY" deploy/ci/policy.py dockerfile

deploycheck context . >"$tmp/context.txt"
echo "build context: $(wc -l <"$tmp/context.txt") files"
"$DEPLOY_CI_PY" deploy/ci/policy.py context "$tmp/context.txt"

# The made-up tree: a developer's machine after a local run and a build.
probe=$tmp/probe
never=(node_modules/x/index.js services/auth/node_modules/y/index.js .coffer-data/admin-password
  deploy/local/.coffer-data/db/x .env deploy/.env.production web/dist/index.html
  services/auth/dist/main.js agent/dist/downloads/SHA256SUMS services/auth/tsconfig.tsbuildinfo
  agent/coffer-master.key deploy/tls.pem .git/config tests/integration/a.test.ts
  services/auth/src/a.test.ts test-results/jest.json k8s/secrets/auth-secrets.env)
always=(package.json package-lock.json tests/package.json services/auth/src/main.ts
  deploy/local/src/index.ts agent/install/install.sh web/index.html)
for f in "${never[@]}" "${always[@]}"; do mkdir -p "$probe/$(dirname "$f")" && echo x >"$probe/$f"; done
cp .dockerignore "$probe/"
deploycheck context "$probe" >"$tmp/probe.txt"
bad=0
for f in "${never[@]}"; do
  if grep -qxF "$f" "$tmp/probe.txt"; then echo "  .dockerignore lets $f into the build context"; bad=1; fi
done
for f in "${always[@]}"; do
  if ! grep -qxF "$f" "$tmp/probe.txt"; then echo "  .dockerignore keeps $f out of the build context"; bad=1; fi
done
[ $bad = 0 ] || { echo ".dockerignore: problems"; exit 1; }
echo ".dockerignore against a developer's tree: ok"
