// First: tracing (when configured) must hook modules before anything below requires them.
import './observability/start.js';
export * from './config.js';
export * from './logger.js';
export * from './errors.js';
export * from './events.js';
export * from './mongo.js';
export * from './redis.js';
export * from './ops-server.js';
export * from './shutdown.js';
export * from './service.js';
export * from './grpc/server.js';
export * from './grpc/client.js';
export * from './nats/bus.js';
export * from './validation.js';
export * from './audit-actions.js';
export * from './format.js';
export * from './value-sets.js';
export * from './observability/index.js';
