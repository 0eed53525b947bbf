export * from './stack.js';
export * from './processes.js';
