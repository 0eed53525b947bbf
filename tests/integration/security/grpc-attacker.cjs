// An attacker on the same host as Coffer's services: a plain process (internal-attacker.test.ts
// runs it as the OS user `nobody`) that knows the .proto files, calls the services' gRPC ports
// directly and sends only what it is given: no token, or one handed to it (a compromised service's).
//
//   node grpc-attacker.cjs '<JSON list of calls>'   → prints a JSON list of outcomes
//
// A call: { service, method, type, request, metadata?, stream? } where `service` names the
// @coffer/proto namespace and client (e.g. "auth" / "AuthServiceClient"), `type` the request
// message; an outcome: { code, details, answer } or, for a streamed answer, { code, chunks }.
const grpc = require('@grpc/grpc-js');
const proto = require('@coffer/proto');

const CLIENTS = {
  auth: ['auth', 'AuthServiceClient'],
  notification: ['notification', 'NotificationServiceClient'],
  audit: ['audit', 'AuditServiceClient'],
  'backup-orchestrator': ['orchestrator', 'OrchestratorServiceClient'],
  storage: ['storage', 'StorageServiceClient'],
  kb: ['kb', 'KbServiceClient'],
  health: ['health', 'HealthClient'],
};

function call(c) {
  const [ns, clientName] = CLIENTS[c.service];
  const client = new proto[ns][clientName](c.address, grpc.credentials.createInsecure());
  // Shared messages (UserRef, Empty, Ok) live in common.proto.
  const request = (proto[ns][c.type] ?? proto.common[c.type]).fromPartial(c.request);
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(c.metadata ?? {})) metadata.set(k, v);
  const deadline = new Date(Date.now() + 15_000);
  return new Promise((resolve) => {
    const done = (outcome) => {
      client.close();
      resolve(outcome);
    };
    if (c.stream) {
      const stream = client[c.method](request, metadata, { deadline });
      let chunks = 0;
      stream.on('data', () => chunks++);
      stream.on('error', (err) => done({ code: grpc.status[err.code], details: err.details, chunks }));
      stream.on('end', () => done({ code: 'OK', chunks }));
      return;
    }
    client[c.method](request, metadata, { deadline }, (err, answer) =>
      done(
        err
          ? { code: grpc.status[err.code], details: err.details }
          : { code: 'OK', answer: JSON.parse(JSON.stringify(answer)) },
      ),
    );
  });
}

(async () => {
  const calls = JSON.parse(process.argv[2]);
  const outcomes = [];
  for (const c of calls) outcomes.push(await call(c));
  process.stdout.write(JSON.stringify({ uid: process.getuid(), outcomes }));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
