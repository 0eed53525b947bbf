// @coffer/contracts: one contract per edge, imported by the gateway, the services, the agent and
// the web app alike (docs/engineering.md "Edge contracts").
export * from './ids.js';
export * from './limits.js';
export * from './text.js';
export * from './errors.js';
export * from './schedule.js';
export * from './progress.js';
export * from './realtime.js';
export * from './agent/handshake.js';
export { version as agentVersion } from './agent/fields.js';
export * from './agent/commands.js';
export * from './agent/events.js';
export * from './agent/refusals.js';
export * from './agent/socket.js';
export * from './agent/data-plane.js';
export * from './agent/verification.js';
export * from './kb.js';
export * from './two-factor.js';
export * from './gfs.js';
export * from './format.js';
