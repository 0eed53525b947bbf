#!/usr/bin/env bash
# Coffer agent installer for Linux, served at /downloads/install.sh (the setup wizard's command):
#
#   curl -fsSL https://COFFER/downloads/install.sh | sudo bash -s -- --server https://COFFER
#
# It asks for the API key in the terminal; without one it takes it from COFFER_API_KEY or
# --api-key-file FILE, never from its command line, which every user of the host can read (ps,
# shell history). Before it changes anything it checks the host (architecture, glibc 2.28+,
# systemd, free disk space) and names what is missing in one line.
# Installs the agent binary (no Node.js needed) to /usr/local/bin/coffer-agent and the MongoDB
# Database Tools built for it (mongodump, mongorestore) to /usr/local/lib/coffer/tools, verified against
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
TOOLS_DIR=/usr/local/lib/coffer/tools
UNIT=/etc/systemd/system/coffer-agent.service
SERVICE_USER=coffer
# The release keys this installer trusts, written in by the build (agent/scripts/build-binaries.mjs):
# "<key id in hex>:<Ed25519 public key as base64 SubjectPublicKeyInfo>", one or two, space-separated.
RELEASE_KEYS=""

usage() {
  cat >&2 <<USAGE
usage: install.sh --server URL [--api-key-file FILE] [--name NAME] [--tools-dir DIR] [--no-service]
       install.sh [--server URL]        upgrade an installed agent (keeps key and databases)
       install.sh --uninstall [--purge]
  The API key (Settings → Security) is asked for in the terminal, or read from the environment
  variable COFFER_API_KEY or from --api-key-file FILE (--api-key KEY works too, but every user of
  this host can read it in the process list).
  --name NAME        the agent's name on the dashboard (default: this host's name)
  --tools-dir DIR    use your own mongodump and mongorestore from DIR instead of the bundled ones
  --no-service       on a host without systemd (a container): install, but start the agent yourself
  --proxy URL        reach Coffer through this HTTP(S) proxy (the installer and the service; an
                     upgrade keeps the one set before); --no-proxy HOSTS: hosts to reach directly
  --ca-file FILE     trust this CA certificate (PEM) for Coffer's address: a private CA
  --uninstall        remove the service and the binary; keeps $CONFIG (your key) and $STATE_DIR
  --purge            with --uninstall: also delete the configuration, the key and the state
USAGE
  exit 2
}

say() { echo "coffer: $*"; }
# The systemd unit, agent/install/coffer-agent.service, written in by the build.
unit_template() {
  cat <<'UNIT'
@COFFER_UNIT@
UNIT
}
die() { echo "coffer: $*" >&2; exit 1; }

server=""; api_key=""; api_key_file=""; name=""; tools_dir=""; uninstall=0; purge=0; no_service=0
proxy=""; no_proxy=""; ca_file=""
while [ $# -gt 0 ]; do
  case $1 in
    --server) [ $# -ge 2 ] || usage; server=${2%/}; shift 2 ;;
    --api-key) [ $# -ge 2 ] || usage; api_key=$2; shift 2 ;;
    --api-key-file) [ $# -ge 2 ] || usage; api_key_file=$2; shift 2 ;;
    --no-service) no_service=1; shift ;;
    --proxy) [ $# -ge 2 ] || usage; proxy=$2; shift 2 ;;
    --no-proxy) [ $# -ge 2 ] || usage; no_proxy=$2; shift 2 ;;
    --ca-file) [ $# -ge 2 ] || usage; ca_file=$2; shift 2 ;;
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
  rm -rf "${TOOLS_DIR%/tools}"
  systemd_running && systemctl daemon-reload || true
  say "removed the coffer-agent service, $BIN and its Database Tools"
  if [ $purge = 1 ]; then
    rm -rf "$CONFIG_DIR" "$STATE_DIR"
    id "$SERVICE_USER" >/dev/null 2>&1 && userdel "$SERVICE_USER" >/dev/null 2>&1 || true
    say "deleted $CONFIG_DIR (configuration and encryption key), $STATE_DIR and the user $SERVICE_USER"
  else
    say "kept $CONFIG (your encryption key and databases) and $STATE_DIR; --uninstall --purge deletes them"
  fi
  exit 0
fi

# ---- Preflight: what this host lacks, found before anything is changed, one line each.
case $(uname -m) in
  x86_64|amd64) platform=linux-x64 ;;
  aarch64|arm64) platform=linux-arm64 ;;
  *) die "preflight: no Coffer agent for $(uname -m) (there are x86_64 and aarch64 builds); nothing was installed" ;;
esac
# The agent is Node.js 24 inside, linked against glibc 2.28 or newer (no musl: Alpine needs the container image).
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}') || glibc=""
[ -n "$glibc" ] || die "preflight: this host has no glibc (musl, e.g. Alpine?); the agent needs glibc 2.28 or newer; nothing was installed"
glibc_major=${glibc%%.*}; glibc_minor=${glibc#*.}; glibc_minor=${glibc_minor%%.*}
if [ "$glibc_major" -lt 2 ] || { [ "$glibc_major" = 2 ] && [ "$glibc_minor" -lt 28 ]; }; then
  die "preflight: glibc $glibc is too old; the agent needs glibc 2.28 or newer (Debian 10, Ubuntu 18.10, RHEL 8 and later); nothing was installed"
fi
if [ $no_service = 0 ] && ! systemd_running; then
  die "preflight: systemd is not running on this host; run again with --no-service to install without a service and start the agent yourself; nothing was installed"
fi
free_mb() { # the MB free where a path is (or would be) created
  local p=$1; while [ ! -e "$p" ]; do p=$(dirname "$p"); done
  df -Pk "$p" | awk 'NR==2 {print int($4/1024)}'
}
need_space() { # path MB what
  local free; free=$(free_mb "$1")
  [ -z "$free" ] || [ "$free" -ge "$2" ] ||
    die "preflight: $3 needs $2 MB free on $1, which has $free MB; nothing was installed"
}
need_space "${TMPDIR:-/tmp}" 250 "the download"
need_space "$(dirname "$BIN")" 300 "the agent and its Database Tools"

upgrade=0
[ -f "$CONFIG" ] && upgrade=1
if [ -n "$api_key_file" ]; then
  [ -r "$api_key_file" ] || die "cannot read the API key from $api_key_file"
  api_key=$(grep -m1 -v '^[[:space:]]*$' "$api_key_file" | tr -d '[:space:]') || true
  [ -n "$api_key" ] || die "$api_key_file holds no API key"
fi
[ -n "$api_key" ] || api_key=${COFFER_API_KEY:-}
if [ $upgrade = 0 ] && [ -z "$api_key" ] && [ -r /dev/tty ] && { : </dev/tty; } 2>/dev/null; then
  # The script itself comes through stdin (curl | bash): the key is read from the terminal, unechoed.
  IFS= read -rs -p "Coffer API key (Settings → Security on the dashboard): " api_key </dev/tty || true
  echo >&2
  api_key=$(printf %s "$api_key" | tr -d '[:space:]')
fi
if [ $upgrade = 0 ] && { [ -z "$server" ] || [ -z "$api_key" ]; }; then
  echo "coffer: --server and the API key are needed for a first install (Settings → Security shows your key: paste it when asked, or set COFFER_API_KEY, or pass --api-key-file FILE)" >&2
  usage
fi
if [ -z "$server" ]; then
  # An upgrade downloads from the server the agent already uses.
  server=$(sed -n 's/^ *"server": *"\([^"]*\)".*/\1/p' "$CONFIG" | head -1)
  [ -n "$server" ] || die "$CONFIG names no server; pass --server URL"
fi

file=coffer-agent-$platform

# The proxy: given, else the one the service already uses (an upgrade), else the environment's.
unit_env() { [ -f "$UNIT" ] && sed -n "s/^Environment=$1=//p" "$UNIT" | head -1; }
[ -n "$proxy" ] || proxy=$(unit_env HTTPS_PROXY) || true
[ -n "$no_proxy" ] || no_proxy=$(unit_env NO_PROXY) || true
case $proxy in ''|http://*|https://*) ;; *) die "--proxy must be a URL such as http://proxy.example:3128" ;; esac
if [ -n "$proxy" ]; then export https_proxy=$proxy HTTPS_PROXY=$proxy; fi
if [ -n "$no_proxy" ]; then export no_proxy NO_PROXY=$no_proxy; fi
if [ -n "$ca_file" ]; then
  grep -q 'BEGIN CERTIFICATE' "$ca_file" 2>/dev/null || die "--ca-file $ca_file is not a PEM certificate"
fi
ca_args=()
[ -n "$ca_file" ] && ca_args=(--cacert "$ca_file")
[ -z "$ca_file" ] && [ -f "$CONFIG_DIR/ca.pem" ] && ca_args=(--cacert "$CONFIG_DIR/ca.pem")

if command -v curl >/dev/null; then
  fetch_url() { curl -fsSL --retry 3 "${ca_args[@]}" -o "$2" "$1"; }
elif command -v wget >/dev/null; then
  fetch_url() { wget -q ${ca_args[1]:+--ca-certificate="${ca_args[1]}"} -O "$2" "$1"; }
else
  die "curl or wget is needed to download the agent"
fi
command -v sha256sum >/dev/null || die "sha256sum (coreutils) is needed to verify the download"
command -v openssl >/dev/null || die "openssl 3 is needed to check the agent's signature (apt-get install openssl, or dnf install openssl)"
[ -n "$RELEASE_KEYS" ] || die "this install.sh carries no release key; use the one your Coffer server serves at /downloads/install.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Everything comes from the release release.json names, under its version: during a rolling update
# two servers behind this address may serve different releases, and each answers only for its own.
fetch_url "$server/downloads/release.json" "$tmp/release.json" || die "cannot download $server/downloads/release.json"
release=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$tmp/release.json" | head -1)
case $release in ''|*[!0-9A-Za-z.+-]*) die "$server/downloads/release.json names no release version" ;; esac
fetch() { fetch_url "$server/downloads/$release/$1" "$2"; }
for attempt in 1 2 3 4 5; do
  fetch SHA256SUMS "$tmp/SHA256SUMS" 2>/dev/null && break
  [ $attempt -lt 5 ] || die "cannot download release $release from $server (while Coffer is being updated its servers may offer different releases: try again in a minute)"
  sleep 3
done
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

download() { # file-name: into $tmp, verified; the zstd copy when zstd is here and the server has one
  if command -v zstd >/dev/null && [ -n "$(expected "$1.zst")" ]; then
    say "downloading $1.zst"
    fetch "$1.zst" "$tmp/$1.zst" || die "cannot download $server/downloads/$1.zst"
    verify "$1.zst" "$tmp/$1.zst"
    zstd -q -d "$tmp/$1.zst" -o "$tmp/$1" || die "cannot decompress $1.zst"
  else
    say "downloading $1"
    fetch "$1" "$tmp/$1" || die "cannot download $server/downloads/$1"
  fi
  verify "$1" "$tmp/$1"
  chmod 0755 "$tmp/$1"
}
download "$file"
version=$("$tmp/$file" --version) || die "the downloaded agent does not run on this machine"
# The MongoDB Database Tools built for this agent, unless the host brings its own (--tools-dir).
tools=(mongodump mongorestore)
if [ -z "$tools_dir" ]; then
  for tool in "${tools[@]}"; do
    download "$tool-$platform"
    "$tmp/$tool-$platform" --version >/dev/null || die "the downloaded $tool does not run on this machine"
  done
fi

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
if [ -z "$tools_dir" ]; then
  install -d -m 0755 "$TOOLS_DIR"
  for tool in "${tools[@]}"; do
    install -m 0755 "$tmp/$tool-$platform" "$TOOLS_DIR/$tool.new"
    mv -f "$TOOLS_DIR/$tool.new" "$TOOLS_DIR/$tool"
  done
  say "installed the MongoDB Database Tools in $TOOLS_DIR: $("$TOOLS_DIR/mongodump" --version | head -1)"
fi

init_args=(init --config "$CONFIG" --state-dir "$STATE_DIR")
[ -n "$name" ] && init_args+=(--name "$name")
if [ -n "$ca_file" ]; then
  # A copy the service user can read whatever the file's folder (ProtectHome hides /root and /home).
  install -m 0600 -o "$SERVICE_USER" -g "$SERVICE_USER" "$ca_file" "$CONFIG_DIR/ca.pem"
  init_args+=(--ca-file "$CONFIG_DIR/ca.pem")
fi
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
elif [ -n "$api_key" ] || [ -n "$name" ] || [ -n "$ca_file" ]; then
  # init keeps the encryption key, and the API key when none is given; only what was passed changes.
  # The key travels in the environment: a command line is visible to every user of the host.
  COFFER_API_KEY="$api_key" "$BIN" "${init_args[@]}" --server "$server" >/dev/null
  say "updated $CONFIG; kept the encryption key and the databases"
else
  say "kept $CONFIG (encryption key and databases)"
fi
chown "$SERVICE_USER:$SERVICE_USER" "$CONFIG"
chmod 0600 "$CONFIG"

# Besides the unit's own (agent/install/coffer-agent.service, which the packages install too).
env_lines=""
add_env() { env_lines="${env_lines:+$env_lines
}Environment=$1"; }
[ -n "$tools_dir" ] && add_env "COFFER_TOOLS_DIR=$tools_dir"
[ -n "$proxy" ] && add_env "HTTPS_PROXY=$proxy"
[ -n "$no_proxy" ] && add_env "NO_PROXY=$no_proxy"
unit=$(unit_template)
unit=${unit//@BIN@/$BIN}
unit=${unit//@ENVIRONMENT@/$env_lines}
printf '%s\n' "# Written by the Coffer installer (install.sh); re-running it rewrites this file." "$unit" >"$UNIT"

if [ -n "$tools_dir" ]; then
  missing=""
  for tool in "${tools[@]}"; do [ -x "$tools_dir/$tool" ] || missing="$missing $tool"; done
  [ -z "$missing" ] || echo "coffer: warning:$missing not found in $tools_dir: the agent will not start until they are there (or run again without --tools-dir for the bundled ones)" >&2
fi

if systemd_running && [ $no_service = 0 ]; then
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
  say "no service was set up (--no-service): start the agent yourself as $SERVICE_USER with"
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
