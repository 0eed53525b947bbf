// The local stack launcher and the test kit: free ports, the real servers (FerretDB, NATS, Redis,
// MailDev, MinIO) started as local processes, the whole stack, and the seed data tests share.
export * from './stack.js';
export * from './processes.js';
export * from './servers.js';
export * from './seed.js';
export * from './service-keys.js';
