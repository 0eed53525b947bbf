#!/usr/bin/env bash
# README command 1: install what this machine lacks, build, and run the whole service locally.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The local run builds only this machine's agent download, without the zstd copies (releases,
# CI and the test run build all three platforms).
export COFFER_AGENT_DOWNLOADS=${COFFER_AGENT_DOWNLOADS:-host}
. deploy/local/setup.sh
exec node deploy/local/dist/run.js
