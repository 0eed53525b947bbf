import type { Server } from 'socket.io';
import { createLogger, notFound, type EventBus } from '@coffer/common';
import type { Clients } from '../clients';
import type { Identity } from '../http/identity';
import { startAgentNamespace } from './namespace';
import type { Ack } from './protocol';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const AGENT = 'dddddddddddddddddddddddd';

/** One connected agent socket on a namespace whose Socket.IO server is faked; returns its listeners. */
function connectedAgent(reportAgentUpdate: jest.Mock) {
  const listeners = new Map<string, (payload: unknown, ack?: Ack) => void>();
  let connection: ((socket: unknown) => void) | undefined;
  const nsp = {
    use: () => {},
    on: (_event: string, l: (socket: unknown) => void) => (connection = l),
  };
  startAgentNamespace({
    io: { of: () => nsp } as unknown as Server,
    identity: {} as Identity,
    clients: { orchestrator: { reportAgentUpdate } } as unknown as Clients,
    bus: {} as EventBus,
    log: createLogger('test', 'silent'),
  });
  connection!({
    data: { userId: USER, agentId: AGENT, databases: [] },
    join: async () => {},
    emit: () => {},
    on: (event: string, l: (payload: unknown, ack?: Ack) => void) => listeners.set(event, l),
  });
  /** Emits an acknowledged event from the agent and resolves to the gateway's answer. */
  return (event: string, payload: unknown) =>
    new Promise<Parameters<Ack>[0]>((resolve) => listeners.get(event)!(payload, resolve));
}

describe('agent namespace: agent:update', () => {
  it("relays the outcome with the socket's user and agent, and acknowledges once it is recorded", async () => {
    const report = jest.fn().mockResolvedValue({});
    const emit = connectedAgent(report);
    await expect(
      emit('agent:update', { status: 'failed', fromVersion: '1.2.0', toVersion: '1.2.0', error: 'denied' }),
    ).resolves.toEqual({ ok: true });
    expect(report).toHaveBeenCalledWith({
      userId: USER,
      agentId: AGENT,
      status: 'failed',
      fromVersion: '1.2.0',
      toVersion: '1.2.0',
      error: 'denied',
    });
  });

  it('refuses a bad payload without calling the orchestrator', async () => {
    const report = jest.fn();
    const emit = connectedAgent(report);
    await expect(
      emit('agent:update', { status: 'maybe', fromVersion: '1', toVersion: '2' }),
    ).resolves.toEqual({
      ok: false,
      error: 'Invalid agent:update payload',
    });
    expect(report).not.toHaveBeenCalled();
  });

  it("passes on the orchestrator's answer when it refuses the report", async () => {
    const emit = connectedAgent(jest.fn().mockRejectedValue(notFound('Agent not found')));
    await expect(
      emit('agent:update', { status: 'updated', fromVersion: '1.2.0', toVersion: '1.3.0' }),
    ).resolves.toEqual({ ok: false, error: 'Agent not found' });
  });
});
