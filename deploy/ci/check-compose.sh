#!/usr/bin/env bash
# Offline checks of docker-compose.yml: the Compose Specification loader (schema, interpolation,
# references) with every value of deploy/compose.env.example set; a refusal naming each required
# secret when it is missing; Coffer's rules (deploy/ci/policy.py); `nats-server -t` on NATS's
# configuration; and `haproxy -c` on the proxy.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/ci/tools.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# An env file where every variable of the example has a recognisable value (ports stay numbers).
example=deploy/compose.env.example
required=()
echo '{' >"$tmp/sentinels.json"
while IFS='=' read -r key value; do
  [ -z "$value" ] && required+=("$key")
  case $key in
    COFFER_HTTP_PORT) echo "$key=$value" ;;
    *) echo "$key=ci-sentinel-$key" ; echo "\"$key\": \"ci-sentinel-$key\"," >>"$tmp/sentinels.json" ;;
  esac
done < <(grep -E '^[A-Z][A-Z0-9_]*=' "$example") >"$tmp/full.env"
echo '"": "-"}' >>"$tmp/sentinels.json"
[ ${#required[@]} -gt 0 ] || { echo "$example lists no required value"; exit 1; }

deploycheck compose docker-compose.yml --env-file "$tmp/full.env" >"$tmp/project.json"
echo "compose loader: ok ($("$DEPLOY_CI_PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["services"]))' "$tmp/project.json") services)"
"$DEPLOY_CI_PY" deploy/ci/policy.py compose "$tmp/project.json" "$tmp/sentinels.json"

bad=0
for key in "${required[@]}"; do
  grep -v "^$key=" "$tmp/full.env" >"$tmp/partial.env"
  if deploycheck compose docker-compose.yml --env-file "$tmp/partial.env" >/dev/null 2>"$tmp/err.txt"; then
    echo "  docker-compose.yml starts without $key (a default for a secret?)"; bad=1
  elif ! grep -q "$key" "$tmp/err.txt"; then
    echo "  without $key, compose refuses but does not name it: $(cat "$tmp/err.txt")"; bad=1
  fi
done
[ $bad = 0 ] || { echo "docker-compose.yml: problems"; exit 1; }
echo "compose refuses to start without each of: ${required[*]}"

# The quick start's generated .env (deploy/compose/make-env.sh) is all compose needs.
bash deploy/compose/make-env.sh "$tmp/generated.env" 2>/dev/null
deploycheck compose docker-compose.yml --env-file "$tmp/generated.env" >/dev/null
echo "compose loads with the .env make-env.sh generates: ok"

# nats-server itself reads the compose NATS configuration (users, system account), with the
# passwords compose would pass: the same 2.15.1 deploy/local/bootstrap.sh installs.
nats_server=$(command -v nats-server || echo "${COFFER_CACHE:-$HOME/.cache/coffer}/bin/nats-server")
if ! (set -a && . "$tmp/full.env" && "$nats_server" -c deploy/compose/nats.conf -t) >"$tmp/nats.txt" 2>&1; then
  cat "$tmp/nats.txt"; echo "deploy/compose/nats.conf: invalid"; exit 1
fi
echo "nats-server -t deploy/compose/nats.conf: ok"

if ! haproxy -c -q -f deploy/compose/haproxy.cfg >"$tmp/haproxy.txt" 2>&1; then
  cat "$tmp/haproxy.txt"; echo "deploy/compose/haproxy.cfg: invalid"; exit 1
fi
echo "haproxy -c deploy/compose/haproxy.cfg: ok"
