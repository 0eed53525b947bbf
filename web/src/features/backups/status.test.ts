import {
  isActiveStatus,
  isFinalStatus,
  restoreConfirmMatches,
  restoreDetail,
  restoreMismatchMessage,
  statusLabel,
  statusPalette,
  truncateError,
} from './status';

describe('status badges', () => {
  it('label and colour per status', () => {
    expect(['pending', 'in-progress', 'completed', 'failed', 'queued'].map(statusLabel)).toEqual([
      'Pending',
      'In Progress',
      'Completed',
      'Failed',
      'Queued',
    ]);
    expect(['pending', 'in-progress', 'completed', 'failed', 'queued'].map(statusPalette)).toEqual([
      'yellow',
      'blue',
      'green',
      'red',
      'gray',
    ]);
  });

  it('knows running and finished', () => {
    expect(['pending', 'in-progress', 'completed', 'failed'].map(isActiveStatus)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(['pending', 'in-progress', 'completed', 'failed'].map(isFinalStatus)).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});

describe('restore history details', () => {
  it('cuts errors to 50 characters plus an ellipsis', () => {
    const long = 'x'.repeat(51);
    expect(truncateError(long)).toBe(`${'x'.repeat(50)}…`);
    expect(truncateError('x'.repeat(50))).toBe('x'.repeat(50));
    expect(restoreDetail({ status: 'failed', error: long })).toBe(`${'x'.repeat(50)}…`);
  });

  it('texts per status without an error', () => {
    expect(restoreDetail({ status: 'completed' })).toBe('Restore completed successfully');
    expect(restoreDetail({ status: 'failed' })).toBe('Restore failed');
    expect(restoreDetail({ status: 'pending' })).toBe('Restore in progress');
    expect(restoreDetail({ status: 'in-progress' })).toBe('Waiting for agent');
  });
});

describe('restore confirmation', () => {
  it('needs the exact database name', () => {
    expect(restoreConfirmMatches('production-db', 'production-db')).toBe(true);
    expect(restoreConfirmMatches('Production-db', 'production-db')).toBe(false);
    expect(restoreConfirmMatches('production-db ', 'production-db')).toBe(false);
    expect(restoreMismatchMessage('shop')).toBe("Please type 'shop' to confirm");
  });
});
