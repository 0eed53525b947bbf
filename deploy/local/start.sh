#!/usr/bin/env bash
# README command 1: install what this machine lacks, build, and run the whole service locally.
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(bash deploy/local/bootstrap.sh)"
npm ci --no-audit --no-fund >/dev/null
npm run build >/dev/null
exec node deploy/local/dist/run.js
