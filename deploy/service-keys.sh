#!/usr/bin/env bash
# Prints a new Ed25519 key pair for each Coffer service that makes gRPC calls, as the settings
# take them (docs/architecture.md, "Service identity"; docs/operations.md):
#
#   SERVICE_KEY_<NAME>=...   one service's private key (PKCS#8 DER, base64): its SERVICE_PRIVATE_KEY
#   SERVICE_PUBLIC_KEYS=...  every caller's public key: the SERVICE_PUBLIC_KEYS of every service
#
# For compose, paste the lines into .env; for Kubernetes, put each private key into that service's
# Secret as SERVICE_PRIVATE_KEY and the public line into every service's Secret. Keep the output
# as secret as the other passwords: whoever holds a service's private key can call as it.
set -euo pipefail
public=()
for name in gateway auth notification backup-orchestrator kb; do
  pem=$(openssl genpkey -algorithm ed25519)
  var=$(echo "${name#backup-}" | tr 'a-z-' 'A-Z_')
  echo "SERVICE_KEY_${var}=$(openssl pkey -outform DER <<<"$pem" | base64 -w0)"
  public+=("${name}=$(openssl pkey -pubout -outform DER <<<"$pem" | base64 -w0)")
done
(IFS=,; echo "SERVICE_PUBLIC_KEYS=${public[*]}")
