import {
  downloadPath,
  effectiveMethod,
  installCommand,
  MASKED_API_KEY,
  nextStep,
  previousStep,
} from './wizardCommands';

const origin = 'https://coffer.example';

describe('install commands', () => {
  it('automated Linux: one curl | bash line', () => {
    expect(installCommand('linux', 'automated', origin, 'cof_abc')).toBe(
      'curl -fsSL https://coffer.example/downloads/install.sh | sudo bash -s -- --server https://coffer.example --api-key cof_abc',
    );
  });

  it('manual Linux: chmod, init, db add, run', () => {
    expect(installCommand('linux', 'manual', origin, 'cof_abc')).toBe(
      'chmod +x coffer-agent-linux-x64 && ./coffer-agent-linux-x64 init --server https://coffer.example --api-key cof_abc && ./coffer-agent-linux-x64 db add production-db --uri - && ./coffer-agent-linux-x64 run',
    );
  });

  it('Windows: always manual, with the exe', () => {
    const cmd =
      '.\\coffer-agent-windows-x64.exe init --server https://coffer.example --api-key cof_abc && .\\coffer-agent-windows-x64.exe db add production-db --uri - && .\\coffer-agent-windows-x64.exe run';
    expect(installCommand('windows', 'manual', origin, 'cof_abc')).toBe(cmd);
    expect(installCommand('windows', 'automated', origin, 'cof_abc')).toBe(cmd);
    expect(effectiveMethod('windows', 'automated')).toBe('manual');
    expect(effectiveMethod('linux', 'automated')).toBe('automated');
  });

  it('masks a missing API key', () => {
    expect(installCommand('linux', 'automated', origin, '')).toContain(`--api-key ${MASKED_API_KEY}`);
    expect(installCommand('linux', 'manual', origin, null)).toContain(`--api-key ${MASKED_API_KEY}`);
  });

  it('downloads from /downloads', () => {
    expect(downloadPath('linux')).toBe('/downloads/coffer-agent-linux-x64');
    expect(downloadPath('windows')).toBe('/downloads/coffer-agent-windows-x64.exe');
  });
});

describe('step navigation', () => {
  it('skips Download both ways for the automated installer', () => {
    expect(nextStep(3, 'automated')).toBe(5);
    expect(previousStep(5, 'automated')).toBe(3);
    expect(nextStep(3, 'manual')).toBe(4);
    expect(previousStep(5, 'manual')).toBe(4);
  });

  it('stays within 1..6', () => {
    expect(previousStep(1, 'manual')).toBe(1);
    expect(nextStep(6, 'manual')).toBe(6);
    expect(nextStep(1, 'automated')).toBe(2);
  });
});
