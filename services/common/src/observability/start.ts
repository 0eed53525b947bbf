import { startTracing } from './tracing.js';

// Imported first by @coffer/common's index: tracing must hook http, grpc-js, mongodb and redis
// before any of them is required (see tracing.ts).
startTracing();
