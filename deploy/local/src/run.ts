/**
 * The local run (README's first command, via deploy/local/start.sh): starts every server and
 * service, prints where things are, and stops everything on Ctrl-C.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startStack } from './stack.js';

const repoRoot = path.resolve(__dirname, '../../..');
const dataDir = path.resolve(process.env.COFFER_DATA_DIR ?? path.join(repoRoot, '.coffer-data'));

interface Secrets {
  jwtSecret: string;
  apiKeyPepper: string;
  adminEmail: string;
  adminPassword: string;
}

/** Secrets of this local installation, generated on the first run and kept in the data folder. */
function localSecrets(): { secrets: Secrets; generatedAdmin: boolean } {
  const file = path.join(dataDir, 'local-secrets.json');
  let saved: Partial<Secrets> = {};
  if (fs.existsSync(file)) saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Secrets>;
  const generatedAdmin = !saved.adminPassword && !process.env.COFFER_ADMIN_PASSWORD;
  const secrets: Secrets = {
    jwtSecret: saved.jwtSecret ?? crypto.randomBytes(32).toString('base64url'),
    apiKeyPepper: saved.apiKeyPepper ?? crypto.randomBytes(32).toString('base64url'),
    adminEmail: process.env.COFFER_ADMIN_EMAIL ?? saved.adminEmail ?? 'admin@coffer.local',
    adminPassword:
      process.env.COFFER_ADMIN_PASSWORD ??
      saved.adminPassword ??
      crypto.randomBytes(12).toString('base64url'),
  };
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return { secrets, generatedAdmin };
}

/**
 * A data folder made before PostgreSQL became FerretDB's default storage keeps its SQLite
 * database (moving it over is docs/operations.md's "FerretDB's storage"), unless
 * COFFER_FERRETDB_BACKEND says otherwise.
 */
function keepSqliteData() {
  if (process.env.COFFER_FERRETDB_BACKEND) return;
  const sqliteDir = path.join(dataDir, 'ferretdb');
  const hasSqlite = fs.existsSync(sqliteDir) && fs.readdirSync(sqliteDir).some((f) => f.endsWith('.sqlite'));
  if (!hasSqlite || fs.existsSync(path.join(dataDir, 'postgres'))) return;
  process.env.COFFER_FERRETDB_BACKEND = 'sqlite';
  console.log(
    'FerretDB stays on the SQLite database of this data folder (docs/operations.md says how to move it).',
  );
}

async function main() {
  keepSqliteData();
  const { secrets, generatedAdmin } = localSecrets();
  const port = Number(process.env.PORT ?? 8080);
  console.log(`Starting Coffer (data in ${dataDir}) ...`);
  const stack = await startStack({
    repoRoot,
    dataDir,
    ports: 'local',
    gatewayPort: port,
    env: {
      JWT_SECRET: secrets.jwtSecret,
      API_KEY_PEPPER: secrets.apiKeyPepper,
      COFFER_ADMIN_EMAIL: secrets.adminEmail,
      COFFER_ADMIN_PASSWORD: secrets.adminPassword,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    },
  });
  console.log('');
  console.log(`  App:          ${stack.urls.app}`);
  console.log(`  Mail catcher: ${stack.urls.mailWeb}`);
  console.log(`  Admin login:  ${secrets.adminEmail}`);
  if (generatedAdmin) console.log(`  Admin password (generated, shown once): ${secrets.adminPassword}`);
  else console.log(`  Admin password: as set, or in ${path.join(dataDir, 'local-secrets.json')}`);
  console.log(`  Logs:         ${stack.logDir}`);
  console.log(
    `  NATS:         ${stack.urls.natsMonitor}/jsz (monitoring); \`nats\` CLI settings in ${path.join(dataDir, 'nats-ops.env')} (docs/runbook.md)`,
  );
  console.log('\nPress Ctrl-C to stop.');
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping Coffer ...');
    void stack.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`Coffer did not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
