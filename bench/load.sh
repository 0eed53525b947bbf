#!/usr/bin/env bash
# bash bench/load.sh [bench/load/run.mjs options]: the load benchmarks (idle sockets' memory,
# progress latency, the dashboard list, a gateway killed under load). See bench/README.md, "Load".
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cache/coffer/node24/node_modules/node/bin:$HOME/.cache/coffer/bin:$PATH"
# Ten thousand sockets need ten thousand descriptors in the bench and in the gateway it starts.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec node bench/load/run.mjs "$@"
