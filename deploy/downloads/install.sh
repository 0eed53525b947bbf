#!/usr/bin/env bash
# Coffer agent installer, served at /downloads/install.sh:
#   curl -fsSL https://COFFER/downloads/install.sh | sudo bash -s -- --server https://COFFER --api-key KEY
# Installs the agent to /usr/local/bin/coffer-agent, configures it, and prints the next steps.
# The agent is a single Node.js 24 program and uses mongodump/mongorestore (MongoDB Database Tools).
set -euo pipefail
server=""; api_key=""; name=""
while [ $# -gt 0 ]; do
  case $1 in
    --server) server=$2; shift 2 ;;
    --api-key) api_key=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ -n "$server" ] && [ -n "$api_key" ] || { echo "usage: install.sh --server URL --api-key KEY [--name NAME]" >&2; exit 2; }

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 24 ]; then
  echo "The Coffer agent needs Node.js 24 or newer (found: ${major/#0/none})." >&2
  echo "Install it from https://nodejs.org or your package manager, then run this again." >&2
  exit 1
fi
for tool in mongodump mongorestore; do
  command -v "$tool" >/dev/null || echo "warning: $tool not found; install the MongoDB Database Tools before the first backup" >&2
done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
curl -fsSL "${server%/}/downloads/coffer-agent-linux-x64" -o "$tmp"
install -m 0755 "$tmp" /usr/local/bin/coffer-agent
echo "Installed /usr/local/bin/coffer-agent"

if [ -n "$name" ]; then
  coffer-agent init --server "$server" --api-key "$api_key" --name "$name"
else
  coffer-agent init --server "$server" --api-key "$api_key"
fi
cat <<NEXT

Next:
  coffer-agent key export --out ~/coffer-master.key   # keep a copy away from this server
  coffer-agent db add production-db --uri -           # paste the connection string, then Ctrl-D
  coffer-agent run                                    # or run it as a service
NEXT
