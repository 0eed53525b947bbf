#!/usr/bin/env bash
# Offline checks of the Kubernetes manifests: `kustomize build` of every overlay, each object
# validated (strict) against the Kubernetes JSON schemas of the oldest and newest supported
# versions, and Coffer's rules (deploy/ci/policy.py: probes, resources, autoscalers, disruption
# budgets, shutdown timing, per-service secrets, headless gRPC Services, NetworkPolicies, Ingress).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/ci/tools.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for dir in k8s/overlays/*/; do
  overlay=$(basename "$dir")
  kustomize build "$dir" >"$tmp/$overlay.yaml"
  echo "kustomize build k8s/overlays/$overlay: $(grep -c '^kind:' "$tmp/$overlay.yaml") objects"
  "$DEPLOY_CI_PY" deploy/ci/policy.py k8s "$overlay" "$tmp/$overlay.yaml" || status=1
done
exit $status
