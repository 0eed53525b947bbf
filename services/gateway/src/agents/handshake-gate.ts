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

/** The slot every handshake on this gateway takes (HandshakeLimits.concurrentTotal). */
const ALL = 'all';
/** Handshakes that may wait for a turn per key or address; more are refused at once. */
const MAX_WAITING = LIMITS.agentsPerAccount;

interface Waiter {
  slots: string[];
  go: () => void;
}

/**
 * Admits agents' handshakes: a per-minute rate per API key and per client address in Redis (shared
 * by every gateway), then a few at a time per key and per address on this gateway, the rest
 * waiting for a turn until the handshake's deadline. One key or address flooding the gateway
 * with handshakes then takes a few of the orchestrator's registrations at a time, not all of them,
 * and every other account's agents still register. Keys are kept hashed, never as sent.
 */
export function handshakeGate(deps: { rateLimit: RateLimiter; limits: HandshakeLimits }) {
  const { limits } = deps;
  const running = new Map<string, number>();
  const waiting: Waiter[] = [];

  const limitOf = (slot: string) =>
    slot === ALL
      ? limits.concurrentTotal
      : slot.startsWith('key:')
        ? limits.concurrentPerKey
        : limits.concurrentPerAddress;
  const fits = (slots: string[]) => slots.every((s) => (running.get(s) ?? 0) < limitOf(s));
  const take = (slots: string[]) => slots.forEach((s) => running.set(s, (running.get(s) ?? 0) + 1));

  function give(slots: string[]) {
    for (const s of slots) {
      const n = (running.get(s) ?? 1) - 1;
      if (n > 0) running.set(s, n);
      else running.delete(s);
    }
    // First come, first served among those that fit now.
    for (let i = 0; i < waiting.length;) {
      const w = waiting[i]!;
      if (!fits(w.slots)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      take(w.slots);
      w.go();
    }
  }

  return {
    /**
     * Waits for the handshake's turn; resolves with the function that ends it (call it once the
     * handshake is answered). Refuses with LIMIT_REACHED past a rate or the waiting bound, and
     * with UNAVAILABLE when the turn did not come by `deadline` (ms since the epoch).
     */
    async admit(apiKey: string, address: string, deadline: number): Promise<() => void> {
      const keyId = createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
      await deps.rateLimit(
        [
          { key: `agent-handshake:key:${keyId}`, limit: limits.perKeyPerMinute },
          { key: `agent-handshake:addr:${address}`, limit: limits.perAddressPerMinute },
        ],
        HANDSHAKE_RATE_MESSAGE,
      );
      const slots = [ALL, `key:${keyId}`, `addr:${address}`];
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        give(slots);
      };
      if (fits(slots)) {
        take(slots);
        return end;
      }
      // The shared turn is bounded by the deadline alone: a storm's agents wait rather than retry.
      if (slots.some((s) => s !== ALL && waiting.filter((w) => w.slots.includes(s)).length >= MAX_WAITING))
        throw limitReached(HANDSHAKE_BUSY_MESSAGE, 'RATE_LIMITED');
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          slots,
          go: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(
          () => {
            waiting.splice(waiting.indexOf(waiter), 1);
            reject(unavailable(HANDSHAKE_TIMEOUT_MESSAGE));
          },
          Math.max(0, deadline - Date.now()),
        );
        waiting.push(waiter);
      });
      return end;
    },
  };
}
export type HandshakeGate = ReturnType<typeof handshakeGate>;
