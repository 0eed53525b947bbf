import type { CommandAck } from '@coffer/contracts';
import { commandListener, type DispatchDeps } from './dispatch.js';
import { silentLogger } from './log.js';

const JOB = 'aaaaaaaaaaaaaaaaaaaaaaaa';

function setup(over: Partial<DispatchDeps> = {}) {
  const calls: string[] = [];
  const listener = commandListener({
    log: silentLogger,
    stopping: () => false,
    registered: () => true,
    acceptJob: (cmd) => {
      calls.push(`job ${cmd.kind} ${cmd.jobId}`);
      return { accepted: true };
    },
    update: () => calls.push('update'),
    restart: () => calls.push('restart'),
    reset: () => calls.push('reset'),
    ...over,
  });
  const send = (raw: unknown) => {
    const answers: CommandAck[] = [];
    listener(raw, (a) => answers.push(a));
    return answers;
  };
  return { send, calls };
}

describe('command dispatch', () => {
  it('acknowledges at once, then starts the work', () => {
    const { send, calls } = setup();
    expect(send({ commandId: 'c1', kind: 'backup', jobId: JOB, databaseName: 'shop' })).toEqual([
      { accepted: true },
    ]);
    for (const kind of ['update', 'restart', 'reset'])
      expect(send({ commandId: 'c', kind })).toEqual([{ accepted: true }]);
    expect(calls).toEqual([`job backup ${JOB}`, 'update', 'restart', 'reset']);
  });

  it("passes on the job runner's refusal", () => {
    const { send } = setup({ acceptJob: () => ({ accepted: false, error: 'Database "shop" is busy' }) });
    expect(
      send({ commandId: 'c1', kind: 'restore', jobId: JOB, databaseName: 'shop', backupId: JOB }),
    ).toEqual([{ accepted: false, error: 'Database "shop" is busy' }]);
  });

  it('refuses a malformed command, any command while stopping, and a job before registration', () => {
    expect(setup().send({ kind: 'format-disk' })).toEqual([
      { accepted: false, error: 'Unknown command kind "format-disk"' },
    ]);
    const stopping = setup({ stopping: () => true });
    expect(stopping.send({ commandId: 'c', kind: 'update' })).toEqual([
      { accepted: false, error: 'The agent is shutting down' },
    ]);
    expect(stopping.calls).toEqual([]);
    const early = setup({ registered: () => false });
    expect(early.send({ commandId: 'c', kind: 'backup', jobId: JOB, databaseName: 'shop' })).toEqual([
      { accepted: false, error: 'The agent is not registered yet; try again in a moment' },
    ]);
    expect(early.calls).toEqual([]);
  });

  it('works without an acknowledgement callback', () => {
    const { calls } = setup();
    commandListener({
      log: silentLogger,
      stopping: () => false,
      registered: () => true,
      acceptJob: () => ({ accepted: true }),
      update: () => calls.push('update'),
      restart: () => undefined,
      reset: () => undefined,
    })({ commandId: 'c', kind: 'update' });
    expect(calls).toEqual(['update']);
  });
});
