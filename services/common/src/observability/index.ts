export * from './context.js';
export * from './metrics.js';
export * from './tracing.js';
export * from './trace-context.js';
export * from './build-info.js';
