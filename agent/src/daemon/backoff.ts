/**
 * Reconnect delays: 1 s, 2 s, 4 s … up to 30 s, each randomised by ±50 % so that many agents cut
 * off together do not all come back in the same second. `reset()` after a good connection.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs = 1000,
    private readonly maxMs = 30_000,
    private readonly jitter = 0.5,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const base = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    const spread = base * this.jitter * (this.random() * 2 - 1);
    return Math.round(Math.min(this.maxMs, Math.max(this.minMs / 2, base + spread)));
  }

  reset(): void {
    this.attempt = 0;
  }
}
