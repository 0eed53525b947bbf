#!/usr/bin/env bash
# bash bench/run.sh [SIZE_MB] [more bench/run.mjs options]: the Coffer benchmark with the
# project's Node 24 and tools on PATH. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cache/coffer/node24/node_modules/node/bin:$HOME/.cache/coffer/bin:$PATH"
size="${1:-200}"
[ $# -gt 0 ] && shift
exec node bench/run.mjs --size-mb "$size" "$@"
