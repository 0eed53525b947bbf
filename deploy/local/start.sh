#!/usr/bin/env bash
# README command 1: install what this machine lacks, build, and run the whole service locally.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/local/setup.sh
exec node deploy/local/dist/run.js
