#!/usr/bin/env bash
# README command 2: install what this machine lacks, build, and run every test suite (unit,
# integration against the real servers, browser in headless Chromium). Ends with one line
# `N passed, M failed`. Extra arguments go to jest (e.g. --selectProjects unit).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/local/setup.sh --with-browser --with-minio --with-debian-root --with-arm64 --with-natscli --with-stripe-mock --with-tinyproxy --with-rpm
python3 -c 'import cryptography, zstandard' 2>/dev/null || pip install -q cryptography zstandard >&2
# The API fuzzing suite (tests/integration/security/fuzz.test.ts) drives schemathesis, pinned.
SCHEMATHESIS_VERSION=4.32.5
[ "$(schemathesis --version 2>/dev/null)" = "schemathesis, version $SCHEMATHESIS_VERSION" ] ||
  pip install -q "schemathesis==$SCHEMATHESIS_VERSION" >&2
mkdir -p test-results
rm -f test-results/*.json
set +e
npx jest --ci --json --outputFile=test-results/jest.json "$@"
status=$?
if [ $# -eq 0 ]; then
  # The backup round trip once more, against a stack whose storage is S3 (MinIO) instead of files.
  COFFER_STORAGE_BACKEND=s3 npx jest --ci --json --outputFile=test-results/jest-s3.json \
    --selectProjects integration --testPathPatterns tests/integration/pipeline/roundtrip
  s3_status=$?
  [ $status -ne 0 ] || status=$s3_status
fi
set -e
node deploy/local/summarise-jest.cjs test-results/jest*.json
exit $status
