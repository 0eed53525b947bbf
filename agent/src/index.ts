// Public API of @coffer/agent for the daemon and tests. The CLI lives in ./cli.

// Encryption format (docs/encryption-format.md)
export { createEncryptor, EncryptTransform, type Encryptor, type EncryptOptions } from './crypto/encrypt.js';
export { createDecryptor, DecryptTransform, type Decryptor } from './crypto/decrypt.js';
export {
  verifyFile,
  decryptFile,
  type VerifyResult,
  type VerifyOptions,
  type DecryptFileResult,
} from './crypto/verify.js';
export { CofferFormatError, isCofferFormatError, type CofferFormatErrorCode } from './crypto/errors.js';
export {
  keyFingerprint,
  fingerprintHex,
  Compression,
  DEFAULT_CHUNK_SIZE,
  FORMAT_VERSION,
} from './crypto/format.js';
export {
  generateMasterKey,
  encodeKey,
  decodeKey,
  keyFileText,
  parseKeyFile,
  KeyFormatError,
} from './crypto/key.js';

// Local config and daemon status
export {
  loadConfig,
  saveConfig,
  resolveConfigPath,
  statusPathFor,
  masterKeyOf,
  findDatabase,
  ConfigError,
  type AgentConfig,
  type DatabaseEntry,
} from './config/config.js';
export {
  readStatus,
  writeStatus,
  STATUS_HEARTBEAT_MS,
  STATUS_STALE_MS,
  type AgentStatus,
  type StatusReading,
} from './status.js';

// Backup and restore pipelines
export { runBackup, type BackupOptions, type BackupResult } from './pipeline/backup.js';
export { runRestore, type RestoreOptions, type RestoreResult } from './pipeline/restore.js';
export { checkDatabase, type CollectionInfo } from './pipeline/mongo.js';
export { PipelineError, type PipelineErrorCode } from './pipeline/errors.js';
export { redact, redactorFor } from './pipeline/redact.js';
export type { Progress, ProgressListener } from './pipeline/progress.js';
export { AGENT_EXEC_ARGV } from './runtime/exec-argv.js';
