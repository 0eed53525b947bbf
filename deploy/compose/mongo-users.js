/* global db, print -- mongosh's globals */
// One MongoDB user per Coffer service, with readWrite on that service's database only: a service
// (or whoever takes its credentials) can read and change nothing of the others'. The mongo image
// runs this once, as root, when its volume is first initialised (/docker-entrypoint-initdb.d);
// for a volume made before it, run it by hand (docs/operations.md, "Docker Compose").
// Passwords come from the container's environment (MONGO_PASSWORD_<SERVICE>, from .env).
const SERVICES = [
  ['coffer-auth', 'coffer_auth', 'MONGO_PASSWORD_AUTH'],
  ['coffer-notification', 'coffer_notification', 'MONGO_PASSWORD_NOTIFICATION'],
  ['coffer-audit', 'coffer_audit', 'MONGO_PASSWORD_AUDIT'],
  ['coffer-kb', 'coffer_kb', 'MONGO_PASSWORD_KB'],
  ['coffer-orchestrator', 'coffer_orchestrator', 'MONGO_PASSWORD_ORCHESTRATOR'],
  ['coffer-storage', 'coffer_storage', 'MONGO_PASSWORD_STORAGE'],
];

const admin = db.getSiblingDB('admin');
for (const [user, database, variable] of SERVICES) {
  const pwd = process.env[variable];
  if (!pwd) throw new Error(`${variable} is not set: the ${user} user needs a password`);
  const roles = [{ role: 'readWrite', db: database }];
  // Run again (by hand, after a password change in .env), it updates the user instead.
  if (admin.getUser(user)) admin.updateUser(user, { pwd, roles });
  else admin.createUser({ user, pwd, roles });
  print(`MongoDB user ${user}: readWrite on ${database}`);
}
