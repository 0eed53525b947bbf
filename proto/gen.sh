#!/usr/bin/env bash
# Regenerates the TypeScript for every .proto with ts-proto (grpc-js services). CI runs this and
# fails when the committed code differs, so the .proto files stay the single source of truth.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
rm -rf src/gen && mkdir -p src/gen
protoc \
  --plugin="protoc-gen-ts_proto=$root/node_modules/.bin/protoc-gen-ts_proto" \
  --ts_proto_out=src/gen \
  --ts_proto_opt=outputServices=grpc-js,esModuleInterop=true,env=node,forceLong=number,useOptionals=none,importSuffix=.js,useExactTypes=false,stringEnums=true,outputJsonMethods=false \
  -I . coffer/*.proto grpc/health/v1/health.proto
