import { updateResultText } from './updateResult';

describe('Check for Updates result on the agent card', () => {
  const agentId = 'a'.repeat(24);
  it('says up to date, updated to X, or update failed with the reason', () => {
    expect(
      updateResultText({ agentId, status: 'current', fromVersion: '0.2.0', toVersion: '0.2.0' }),
    ).toEqual({
      status: 'success',
      message: 'Up to date: version 0.2.0 is the newest.',
    });
    expect(
      updateResultText({ agentId, status: 'updated', fromVersion: '0.1.0', toVersion: '0.2.0' }),
    ).toEqual({
      status: 'success',
      message: 'Updated to version 0.2.0.',
    });
    expect(
      updateResultText({
        agentId,
        status: 'failed',
        fromVersion: '0.1.0',
        toVersion: '0.1.0',
        error: 'the download does not match the signed hash',
      }),
    ).toEqual({
      status: 'error',
      message: 'Update failed: the download does not match the signed hash. Version 0.1.0 keeps running.',
    });
    // The command reached no agent: nothing was tried, so no version is said to keep running.
    expect(
      updateResultText({ agentId, status: 'failed', fromVersion: '', toVersion: '', error: 'not received.' })
        .message,
    ).toBe('Update failed: not received.');
    expect(updateResultText('checking').status).toBe('info');
  });
});
