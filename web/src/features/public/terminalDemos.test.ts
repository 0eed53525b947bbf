import { DEMO_LINE_INTERVAL_MS, DEMO_RESTART_DELAY_MS, playDemo, TERMINAL_DEMOS } from './terminalDemos';

describe('playDemo', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('adds a line every 800 ms and starts over 3 s after the last one', () => {
    expect(DEMO_LINE_INTERVAL_MS).toBe(800);
    expect(DEMO_RESTART_DELAY_MS).toBe(3000);
    const seen: number[] = [];
    const stop = playDemo(3, (n) => seen.push(n));
    expect(seen).toEqual([0]);

    jest.advanceTimersByTime(799);
    expect(seen).toEqual([0]);
    jest.advanceTimersByTime(1);
    expect(seen).toEqual([0, 1]);
    jest.advanceTimersByTime(1600);
    expect(seen).toEqual([0, 1, 2, 3]);

    // The whole demo stays on screen for 3 s, then it is cleared and plays again.
    jest.advanceTimersByTime(2999);
    expect(seen).toEqual([0, 1, 2, 3]);
    jest.advanceTimersByTime(1);
    expect(seen).toEqual([0, 1, 2, 3, 0]);
    jest.advanceTimersByTime(800);
    expect(seen).toEqual([0, 1, 2, 3, 0, 1]);
    stop();
  });

  it('stops changing once stopped (the page was left)', () => {
    const seen: number[] = [];
    const stop = playDemo(5, (n) => seen.push(n));
    jest.advanceTimersByTime(1600);
    stop();
    jest.advanceTimersByTime(60_000);
    expect(seen).toEqual([0, 1, 2]);
  });

  it('shows nothing and schedules nothing for an empty demo', () => {
    const onChange = jest.fn();
    playDemo(0, onChange);
    expect(onChange).toHaveBeenCalledWith(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('TERMINAL_DEMOS', () => {
  it('has the encryption and the restore demo, each opening with a command', () => {
    expect(TERMINAL_DEMOS.map((d) => d.id)).toEqual(['encryption', 'restore']);
    for (const d of TERMINAL_DEMOS) expect(d.lines[0]?.kind).toBe('command');
  });

  it('never shows a secret: no API key, connection string or master key', () => {
    const text = TERMINAL_DEMOS.flatMap((d) => d.lines.map((l) => l.text)).join('\n');
    expect(text).not.toMatch(/cof_[A-Za-z0-9_-]{8,}/);
    expect(text).not.toMatch(/mongodb(\+srv)?:\/\//);
    expect(text).not.toMatch(/coffer-key-v1:|"masterKey"/);
  });
});
