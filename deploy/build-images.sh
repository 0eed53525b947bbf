#!/usr/bin/env bash
# Builds every service's image from deploy/Dockerfile (Docker with BuildKit; the agent downloads
# stage needs the npm registry) and optionally pushes them:
#
#   deploy/build-images.sh [--push] [PREFIX] [TAG]
#   deploy/build-images.sh --push registry.example.com/coffer 0.1.0
#
# Images are PREFIX/<service>:TAG (default coffer/<service>:dev, the names docker-compose.yml and
# k8s/base use). The stages they share are built once.
set -euo pipefail
cd "$(dirname "$0")/.."
push=0
if [ "${1:-}" = --push ]; then push=1; shift; fi
prefix=${1:-coffer}
tag=${2:-dev}
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
for main in services/*/src/main.ts; do
  svc=$(basename "$(dirname "$(dirname "$main")")")
  target=service
  [ "$svc" = gateway ] && target=gateway
  echo "[images] $prefix/$svc:$tag" >&2
  DOCKER_BUILDKIT=1 docker build -f deploy/Dockerfile --target "$target" --build-arg "SERVICE=$svc" \
    --build-arg "COFFER_COMMIT=$commit" \
    -t "$prefix/$svc:$tag" .
  if [ $push = 1 ]; then docker push "$prefix/$svc:$tag"; fi
done
echo "[images] for Kubernetes: cd k8s/overlays/<overlay> && kustomize edit set image coffer/<service>=$prefix/<service>:$tag" >&2
