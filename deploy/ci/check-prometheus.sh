#!/usr/bin/env bash
# The alert rules (deploy/prometheus/coffer-alerts.yml): `promtool check rules` and
# `promtool test rules` on the synthetic series of coffer-alerts.test.yml. promtool is built once
# from the Go module proxy at a pinned version, inside a small module of our own (as
# deploy/ci/tools.sh does for kustomize), and cached under $COFFER_CACHE/deploy-ci. First run:
# a few minutes (Prometheus's module graph); later runs: about a second.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Prometheus 3.3.0 (the Go module carries the 3.x releases as v0.3xx.y).
PROMTOOL_VERSION=v0.303.0
cache=${COFFER_CACHE:-$HOME/.cache/coffer}/deploy-ci
bin=$cache/bin/promtool-$PROMTOOL_VERSION
if [ ! -x "$bin" ]; then
  echo "[deploy-ci] building promtool $PROMTOOL_VERSION (first run only)" >&2
  dir=$cache/gobuild/promtool-$PROMTOOL_VERSION
  rm -rf "$dir"
  mkdir -p "$dir" "$cache/bin"
  (cd "$dir" && go mod init coffer.local/build/promtool >/dev/null 2>&1 \
    && go get "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_VERSION" >&2 \
    && CGO_ENABLED=0 go build -o "$bin.tmp" github.com/prometheus/prometheus/cmd/promtool >&2)
  mv "$bin.tmp" "$bin"
fi
cd deploy/prometheus
"$bin" check rules coffer-alerts.yml
"$bin" test rules coffer-alerts.test.yml
