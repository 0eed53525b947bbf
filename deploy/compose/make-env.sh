#!/usr/bin/env bash
# Self-hosting quick start: writes the compose stack's .env (beside docker-compose.yml) from
# deploy/compose.env.example, with every required secret generated (openssl rand; the gRPC service
# keys from deploy/service-keys.sh) and every other value as the example has it. Prints where the
# admin password is, never the secrets. Refuses to overwrite an existing .env (its secrets are
# the only copy: a new JWT_SECRET signs every user out, a new TOTP_ENCRYPTION_KEY or
# API_KEY_PEPPER locks users and agents out).
#
#   bash deploy/compose/make-env.sh [FILE]      # default .env; then: docker compose up -d --build
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.env}
if [ -e "$out" ]; then
  echo "$out exists: keep it (its secrets are the only copy), or move it away first" >&2
  exit 1
fi
command -v openssl >/dev/null || { echo "openssl is needed to generate the secrets" >&2; exit 1; }
keys=$(bash "$root/deploy/service-keys.sh")
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
chmod 600 "$tmp"
while IFS= read -r line; do
  case $line in
    SERVICE_KEY_*= | SERVICE_PUBLIC_KEYS=) grep -m1 "^${line}" <<<"$keys" ;;
    # At least 32 characters, any: the base64 of 48 random bytes.
    TOTP_ENCRYPTION_KEY=) echo "${line}$(openssl rand -base64 48 | tr -d '\n')" ;;
    # The rest go into URLs (MongoDB, Redis): hex only.
    [A-Z]*=) echo "${line}$(openssl rand -hex 32)" ;;
    *) echo "$line" ;;
  esac
done <"$root/deploy/compose.env.example" >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out (mode 600); the admin is $(grep -m1 '^COFFER_ADMIN_EMAIL=' "$out" | cut -d= -f2), its password is COFFER_ADMIN_PASSWORD there" >&2
