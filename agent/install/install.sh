#!/usr/bin/env bash
# Coffer agent installer for Linux, served at /downloads/install.sh (the setup wizard's command):
#
#   curl -fsSL https://COFFER/downloads/install.sh | sudo bash -s -- --server https://COFFER --api-key KEY
#
# Installs the agent binary (no Node.js needed) to /usr/local/bin/coffer-agent, verified against
# SHA256SUMS after checking SHA256SUMS's signature (SHA256SUMS.minisig) with openssl and the release
# keys written into this script when it was built (docs/releases.md); creates the system user `coffer`; writes the configuration (server, API
# key, the new encryption key) to /etc/coffer/agent.json, readable by that user only; and runs the
# agent as a hardened systemd service. Running it again upgrades in place and keeps the key and
# the databases. `--uninstall` removes the service and the binary; `--purge` also deletes the
# configuration, the encryption key and the state folder.
set -euo pipefail

BIN=/usr/local/bin/coffer-agent
CONFIG_DIR=/etc/coffer
CONFIG=$CONFIG_DIR/agent.json
STATE_DIR=/var/lib/coffer
UNIT=/etc/systemd/system/coffer-agent.service
SERVICE_USER=coffer
# The release keys this installer trusts, written in by the build (agent/scripts/build-binaries.mjs):
# "<key id in hex>:<Ed25519 public key as base64 SubjectPublicKeyInfo>", one or two, space-separated.
RELEASE_KEYS=""

usage() {
  cat >&2 <<USAGE
usage: install.sh --server URL --api-key KEY [--name NAME] [--tools-dir DIR]
       install.sh [--server URL]        upgrade an installed agent (keeps key and databases)
       install.sh --uninstall [--purge]
  --name NAME        the agent's name on the dashboard (default: this host's name)
  --tools-dir DIR    where mongodump and mongorestore are, when they are not on PATH
  --uninstall        remove the service and the binary; keeps $CONFIG (your key) and $STATE_DIR
  --purge            with --uninstall: also delete the configuration, the key and the state
USAGE
  exit 2
}

say() { echo "coffer: $*"; }
die() { echo "coffer: $*" >&2; exit 1; }

server=""; api_key=""; name=""; tools_dir=""; uninstall=0; purge=0
while [ $# -gt 0 ]; do
  case $1 in
    --server) [ $# -ge 2 ] || usage; server=${2%/}; shift 2 ;;
    --api-key) [ $# -ge 2 ] || usage; api_key=$2; shift 2 ;;
    --name) [ $# -ge 2 ] || usage; name=$2; shift 2 ;;
    --tools-dir) [ $# -ge 2 ] || usage; tools_dir=$2; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) usage ;;
    *) echo "coffer: unknown option: $1" >&2; usage ;;
  esac
done

[ "$(id -u)" = 0 ] || die "run the installer as root (curl ... | sudo bash -s -- ...)"
systemd_running() { [ -d /run/systemd/system ] && command -v systemctl >/dev/null; }

if [ $uninstall = 1 ]; then
  if systemd_running; then
    systemctl disable --now coffer-agent.service >/dev/null 2>&1 || true
  fi
  rm -f "$UNIT" "$BIN"
  systemd_running && systemctl daemon-reload || true
  say "removed the coffer-agent service and $BIN"
  if [ $purge = 1 ]; then
    rm -rf "$CONFIG_DIR" "$STATE_DIR"
    id "$SERVICE_USER" >/dev/null 2>&1 && userdel "$SERVICE_USER" >/dev/null 2>&1 || true
    say "deleted $CONFIG_DIR (configuration and encryption key), $STATE_DIR and the user $SERVICE_USER"
  else
    say "kept $CONFIG (your encryption key and databases) and $STATE_DIR; --uninstall --purge deletes them"
  fi
  exit 0
fi

upgrade=0
[ -f "$CONFIG" ] && upgrade=1
if [ $upgrade = 0 ] && { [ -z "$server" ] || [ -z "$api_key" ]; }; then
  echo "coffer: --server and --api-key are needed for a first install (Settings → Security shows your key)" >&2
  usage
fi
if [ -z "$server" ]; then
  # An upgrade downloads from the server the agent already uses.
  server=$(sed -n 's/^ *"server": *"\([^"]*\)".*/\1/p' "$CONFIG" | head -1)
  [ -n "$server" ] || die "$CONFIG names no server; pass --server URL"
fi

case $(uname -m) in
  x86_64|amd64) platform=linux-x64 ;;
  aarch64|arm64) platform=linux-arm64 ;;
  *) die "no Coffer agent for $(uname -m) yet (there are linux-x64 and linux-arm64 builds)" ;;
esac
file=coffer-agent-$platform

if command -v curl >/dev/null; then
  fetch() { curl -fsSL --retry 3 -o "$2" "$server/downloads/$1"; }
elif command -v wget >/dev/null; then
  fetch() { wget -q -O "$2" "$server/downloads/$1"; }
else
  die "curl or wget is needed to download the agent"
fi
command -v sha256sum >/dev/null || die "sha256sum (coreutils) is needed to verify the download"
command -v openssl >/dev/null || die "openssl 3 is needed to check the agent's signature (apt-get install openssl, or dnf install openssl)"
[ -n "$RELEASE_KEYS" ] || die "this install.sh carries no release key; use the one your Coffer server serves at /downloads/install.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fetch SHA256SUMS "$tmp/SHA256SUMS" || die "cannot download $server/downloads/SHA256SUMS"
fetch SHA256SUMS.minisig "$tmp/sig" 2>/dev/null || die "refused: the server's release is not signed (no SHA256SUMS.minisig); nothing was installed"

# SHA256SUMS.minisig is in minisign's format: line 2 is base64 of "ED", the key id (8 bytes) and the
# Ed25519 signature of BLAKE2b-512(SHA256SUMS); line 3 the trusted comment; line 4 the signature of
# (that signature, the comment). Both must verify with a trusted key.
refuse() { die "refused: $1; nothing was installed"; }
ed25519_verify() { # public-key-pem message-file signature-file
  openssl pkeyutl -verify -pubin -inkey "$1" -rawin -in "$2" -sigfile "$3" >/dev/null 2>&1
}
verify_signature() {
  local id entry key="" comment
  { sed -n 2p "$tmp/sig" | base64 -d >"$tmp/sig.bin"; } 2>/dev/null || refuse "SHA256SUMS.minisig is not a minisign signature"
  [ "$(wc -c <"$tmp/sig.bin")" -eq 74 ] && [ "$(head -c 2 "$tmp/sig.bin")" = ED ] ||
    refuse "SHA256SUMS.minisig is not a minisign signature (prehashed, ED)"
  id=$(head -c 10 "$tmp/sig.bin" | tail -c 8 | od -An -tx1 | tr -d ' \n')
  for entry in $RELEASE_KEYS; do [ "${entry%%:*}" = "$id" ] && key=${entry#*:}; done
  [ -n "$key" ] || refuse "SHA256SUMS is signed by a key this installer does not trust"
  printf -- '-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n' "$key" >"$tmp/key.pem"
  tail -c 64 "$tmp/sig.bin" >"$tmp/ed.sig"
  openssl dgst -blake2b512 -binary -out "$tmp/sums.b2" "$tmp/SHA256SUMS" || die "this openssl cannot compute BLAKE2b-512 (openssl 3 is needed)"
  comment=$(sed -n 3p "$tmp/sig")
  case $comment in "trusted comment: "*) ;; *) refuse "SHA256SUMS.minisig has no trusted comment" ;; esac
  { cat "$tmp/ed.sig"; printf %s "${comment#trusted comment: }"; } >"$tmp/global.msg"
  { sed -n 4p "$tmp/sig" | base64 -d >"$tmp/global.sig"; } 2>/dev/null || refuse "SHA256SUMS.minisig is not a minisign signature"
  ed25519_verify "$tmp/key.pem" "$tmp/sums.b2" "$tmp/ed.sig" && ed25519_verify "$tmp/key.pem" "$tmp/global.msg" "$tmp/global.sig" ||
    refuse "the signature of SHA256SUMS does not verify (the release was changed after it was signed)"
}
verify_signature
expected() { awk -v f="$1" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS"; }
verify() { # file-name local-path
  local want; want=$(expected "$1")
  [ -n "$want" ] || die "$1 is not listed in the server's SHA256SUMS"
  [ "$(sha256sum "$2" | cut -d' ' -f1)" = "$want" ] || die "$1 does not match its SHA-256 in the signed SHA256SUMS; nothing was installed"
}

if command -v zstd >/dev/null; then
  say "downloading $file.zst"
  fetch "$file.zst" "$tmp/$file.zst" || die "cannot download $server/downloads/$file.zst"
  verify "$file.zst" "$tmp/$file.zst"
  zstd -q -d "$tmp/$file.zst" -o "$tmp/$file" || die "cannot decompress $file.zst"
else
  say "downloading $file (install zstd for a download a quarter of the size)"
  fetch "$file" "$tmp/$file" || die "cannot download $server/downloads/$file"
fi
verify "$file" "$tmp/$file"
chmod 0755 "$tmp/$file"
version=$("$tmp/$file" --version) || die "the downloaded agent does not run on this machine"

if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  nologin=$(command -v nologin || echo /usr/sbin/nologin)
  useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell "$nologin" "$SERVICE_USER"
  say "created the system user $SERVICE_USER"
fi
install -d -m 0700 -o "$SERVICE_USER" -g "$SERVICE_USER" "$CONFIG_DIR" "$STATE_DIR" "$STATE_DIR/tmp"

# Stop the old version before swapping the binary; the rename is atomic either way.
was_running=0
if systemd_running && systemctl is-active --quiet coffer-agent.service; then
  was_running=1
  systemctl stop coffer-agent.service
fi
install -m 0755 "$tmp/$file" "$BIN.new"
mv -f "$BIN.new" "$BIN"
say "installed $BIN: $version"

init_args=(init --config "$CONFIG" --state-dir "$STATE_DIR")
[ -n "$name" ] && init_args+=(--name "$name")
if [ $upgrade = 0 ]; then
  COFFER_API_KEY="$api_key" "$BIN" "${init_args[@]}" --server "$server" >"$tmp/init.out"
  say "created the encryption key; it is in $CONFIG (readable by $SERVICE_USER and root only)"
  grep -i 'fingerprint' "$tmp/init.out" | sed 's/^/coffer: /'
  cat <<KEY

  IMPORTANT: keep a copy of the encryption key away from this server. Without it no backup can
  be decrypted, and Coffer never receives it:
      sudo coffer-agent key export --out coffer-master.key
  (then move coffer-master.key somewhere safe and delete it here)

KEY
elif [ -n "$api_key" ] || [ -n "$name" ]; then
  # init keeps the encryption key, and the API key when none is given; only what was passed changes.
  # The key travels in the environment: a command line is visible to every user of the host.
  COFFER_API_KEY="$api_key" "$BIN" "${init_args[@]}" --server "$server" >/dev/null
  say "updated $CONFIG; kept the encryption key and the databases"
else
  say "kept $CONFIG (encryption key and databases)"
fi
chown "$SERVICE_USER:$SERVICE_USER" "$CONFIG"
chmod 0600 "$CONFIG"

env_lines="Environment=COFFER_AGENT_SUPERVISED=1
Environment=TMPDIR=$STATE_DIR/tmp"
[ -n "$tools_dir" ] && env_lines="$env_lines
Environment=COFFER_TOOLS_DIR=$tools_dir"
cat >"$UNIT" <<UNIT
# Written by the Coffer installer (install.sh); re-running it rewrites this file.
[Unit]
Description=Coffer backup agent
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_USER
$env_lines
# '+': runs as root, to install an update the agent asked for (it cannot write $BIN itself);
# '-': a failed update never keeps the agent from starting.
ExecStartPre=-+$BIN update --apply-request --config $CONFIG
ExecStart=$BIN run --config $CONFIG
Restart=always
RestartSec=5
UMask=0077
NoNewPrivileges=true
ProtectSystem=strict
ProtectHome=true
PrivateTmp=true
PrivateDevices=true
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectKernelLogs=true
ProtectControlGroups=true
ProtectClock=true
ProtectHostname=true
RestrictSUIDSGID=true
RestrictRealtime=true
LockPersonality=true
ReadWritePaths=$STATE_DIR

[Install]
WantedBy=multi-user.target
UNIT

missing=""
for tool in mongodump mongorestore; do
  if ! PATH="${tools_dir:+$tools_dir:}$PATH" command -v "$tool" >/dev/null; then missing="$missing $tool"; fi
done
[ -z "$missing" ] || echo "coffer: warning:$missing not found: the agent will not start until the MongoDB Database Tools are installed (or pass --tools-dir DIR)" >&2

if systemd_running; then
  systemctl daemon-reload
  systemctl enable coffer-agent.service >/dev/null 2>&1
  systemctl restart coffer-agent.service
  sleep 2
  if systemctl is-active --quiet coffer-agent.service; then
    say "the coffer-agent service is running (systemctl status coffer-agent; journalctl -u coffer-agent)"
  else
    echo "coffer: the service did not stay up; see: journalctl -u coffer-agent -n 20" >&2
  fi
else
  say "systemd is not running here: start the agent yourself as $SERVICE_USER with"
  echo "    COFFER_AGENT_SUPERVISED=1 TMPDIR=$STATE_DIR/tmp $BIN run --config $CONFIG"
fi
[ $was_running = 1 ] && say "upgraded from the running version"

if [ $upgrade = 0 ]; then
  cat <<NEXT
Next: add a database to back up (the connection string stays on this server):
    echo 'mongodb://USER:PASSWORD@HOST:27017/DATABASE' | sudo coffer-agent db add production-db --uri -
The running agent picks it up within seconds; then trigger a backup from the dashboard.
NEXT
fi
