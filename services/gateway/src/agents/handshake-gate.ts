import { createHash } from 'node:crypto';
import { limitReached, unavailable } from '@coffer/common';
import { LIMITS } from '@coffer/contracts';
import type { RateLimiter } from '../http/rate-limit.js';

/** The gateway's bounds on agents' handshakes (GatewayConfig's AGENT_HANDSHAKE* settings). */
export interface HandshakeLimits {
  /**
   * Handshakes this gateway works on at once, all keys together; more wait for a turn. After a
   * gateway restart every agent reconnects at once: each handshake is a registration in the
   * orchestrator, and taken a few dozen at a time they leave its database room for everyone
   * else's requests (bench/load, part "storm").
   */
  concurrentTotal: number;
  /**
   * Handshakes that may wait for a turn on this gateway, all keys together; more are refused at
   * once. Each holds an open connection for up to its wait: this bounds what clients spread over
   * many addresses, with keys nobody has checked yet, can keep queued.
   */
  maxWaiting: number;
  /** Handshakes of one API key this gateway works on at once; more wait for a turn. */
  concurrentPerKey: number;
  /** Handshakes from one client address this gateway works on at once; more wait for a turn. */
  concurrentPerAddress: number;
  /** New handshakes of one API key per minute, on all gateways together. */
  perKeyPerMinute: number;
  /** New handshakes from one client address per minute, on all gateways together. */
  perAddressPerMinute: number;
}

export const HANDSHAKE_RATE_MESSAGE =
  'Too many agent connections from this API key or address; the agent will try again later';
export const HANDSHAKE_BUSY_MESSAGE =
  'Too many agent connections waiting for this API key or address; the agent will try again later';
export const HANDSHAKE_TIMEOUT_MESSAGE =
  'The agent connection waited too long for its turn; the agent will try again';
/** Never sent (the connection is gone); says why the wait ended, in tests and logs. */
export const HANDSHAKE_GONE_MESSAGE = 'The agent connection closed while waiting for its turn';

/** The slot every handshake on this gateway takes (HandshakeLimits.concurrentTotal). */
const ALL = 'all';
/** Handshakes that may wait for a turn per key or address; more are refused at once. */
const MAX_WAITING = LIMITS.agentsPerAccount;

interface Waiter {
  slots: string[];
  go: () => void;
}

/**
 * Admits agents' handshakes: a few at a time per key, per address and in all on this gateway, the
 * rest waiting for a turn (first come, first served) until their wait ends; then a per-minute rate
 * per API key and per client address in Redis (shared by every gateway). One key or address
 * flooding the gateway with handshakes then takes a few of the orchestrator's registrations at a
 * time, not all of them, and every other account's agents still register. Keys are kept hashed,
 * never as sent.
 */
export function handshakeGate(deps: { rateLimit: RateLimiter; limits: HandshakeLimits }) {
  const { limits } = deps;
  const running = new Map<string, number>();
  const waiting: Waiter[] = [];
  /** Waiters per key and per address: a storm queues thousands, counted without a scan. */
  const waitingFor = new Map<string, number>();
  const count = (map: Map<string, number>, slot: string, by: number) => {
    const n = (map.get(slot) ?? 0) + by;
    if (n > 0) map.set(slot, n);
    else map.delete(slot);
  };

  const limitOf = (slot: string) =>
    slot === ALL
      ? limits.concurrentTotal
      : slot.startsWith('key:')
        ? limits.concurrentPerKey
        : limits.concurrentPerAddress;
  const fits = (slots: string[]) => slots.every((s) => (running.get(s) ?? 0) < limitOf(s));
  const take = (slots: string[]) => slots.forEach((s) => count(running, s, 1));
  const queue = (w: Waiter) => {
    waiting.push(w);
    for (const s of w.slots) if (s !== ALL) count(waitingFor, s, 1);
  };
  const unqueue = (i: number) => {
    const [w] = waiting.splice(i, 1);
    for (const s of w!.slots) if (s !== ALL) count(waitingFor, s, -1);
  };

  function give(slots: string[]) {
    for (const s of slots) count(running, s, -1);
    // First come, first served among those that fit now; none fits once every turn is taken.
    for (let i = 0; i < waiting.length && (running.get(ALL) ?? 0) < limits.concurrentTotal;) {
      const w = waiting[i]!;
      if (!fits(w.slots)) {
        i++;
        continue;
      }
      unqueue(i);
      take(w.slots);
      w.go();
    }
  }

  /** Waits until `slots` fit (first come, first served), `waitUntil` passes or `gone` aborts. */
  function turn(slots: string[], waitUntil: number, gone?: AbortSignal): Promise<void> {
    if (fits(slots)) {
      take(slots);
      return Promise.resolve();
    }
    // A storm's agents wait rather than retry, up to bounds per key, per address and in all.
    if (
      waiting.length >= limits.maxWaiting ||
      slots.some((s) => s !== ALL && (waitingFor.get(s) ?? 0) >= MAX_WAITING)
    )
      return Promise.reject(limitReached(HANDSHAKE_BUSY_MESSAGE, 'RATE_LIMITED'));
    return new Promise<void>((resolve, reject) => {
      const leave = (err: Error) => {
        clearTimeout(timer);
        gone?.removeEventListener('abort', onGone);
        const i = waiting.indexOf(waiter);
        if (i >= 0) unqueue(i);
        reject(err);
      };
      const onGone = () => leave(unavailable(HANDSHAKE_GONE_MESSAGE));
      const waiter: Waiter = {
        slots,
        go: () => {
          clearTimeout(timer);
          gone?.removeEventListener('abort', onGone);
          resolve();
        },
      };
      const timer = setTimeout(
        () => leave(unavailable(HANDSHAKE_TIMEOUT_MESSAGE)),
        Math.max(0, waitUntil - Date.now()),
      );
      if (gone?.aborted) return leave(unavailable(HANDSHAKE_GONE_MESSAGE));
      gone?.addEventListener('abort', onGone, { once: true });
      queue(waiter);
    });
  }

  return {
    /**
     * Waits for the handshake's turn, then counts it against the per-minute rates; resolves with
     * the function that ends it (call it once the handshake is answered). Refuses with
     * LIMIT_REACHED past a rate or the waiting bound, and with UNAVAILABLE when the turn did not
     * come by `waitUntil` (ms since the epoch) or the agent went away (`gone`) while waiting.
     *
     * Only admitted handshakes count against the rates: after a gateway restart a waiting agent
     * spends none of its account's allowance, so its turn, when it comes, is not refused for
     * the time its neighbours spent queueing.
     */
    async admit(
      apiKey: string,
      address: string,
      opts: { waitUntil: number; gone?: AbortSignal },
    ): Promise<() => void> {
      const keyId = createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
      const slots = [ALL, `key:${keyId}`, `addr:${address}`];
      await turn(slots, opts.waitUntil, opts.gone);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        give(slots);
      };
      try {
        await deps.rateLimit(
          [
            { key: `agent-handshake:key:${keyId}`, limit: limits.perKeyPerMinute },
            { key: `agent-handshake:addr:${address}`, limit: limits.perAddressPerMinute },
          ],
          HANDSHAKE_RATE_MESSAGE,
        );
      } catch (err) {
        end();
        throw err;
      }
      return end;
    },
  };
}
export type HandshakeGate = ReturnType<typeof handshakeGate>;
