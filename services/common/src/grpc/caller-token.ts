import type { KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { forbidden, unauthenticated } from '../errors.js';
import type { CallerAccess, ServiceName } from './callers.js';
import type { ServiceIdentity } from './service-keys.js';

/** gRPC metadata key of the caller token: `authorization: Bearer <jwt>`. */
export const CALLER_TOKEN_HEADER = 'authorization';

/** A token lives this long; a caller signs a new one this long before the old one expires. */
export const CALLER_TOKEN_TTL_SECONDS = 300;
const RENEW_BEFORE_SECONDS = 60;
/** Tokens claiming a longer life than this are refused (a stolen one must not last). */
const MAX_TOKEN_AGE_SECONDS = 2 * CALLER_TOKEN_TTL_SECONDS;
/** Allowed clock difference between two hosts. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The tokens `identity` sends to `callee`: EdDSA JWTs (iss = sub = caller, aud = callee, exp a few
 * minutes on), one reused for every call until shortly before it expires so a busy caller signs a
 * few times an hour, not per call. Undefined when the service has no private key.
 */
export function callerTokens(identity: ServiceIdentity, callee: ServiceName, now = () => Date.now()) {
  let current: { token: Promise<string>; renewAt: number } | undefined;
  const { privateKey } = identity;
  if (!privateKey) return undefined;
  return (): Promise<string> => {
    const at = Math.floor(now() / 1000);
    if (current && at < current.renewAt) return current.token;
    const token = new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setIssuer(identity.name)
      .setSubject(identity.name)
      .setAudience(callee)
      .setIssuedAt(at)
      .setExpirationTime(at + CALLER_TOKEN_TTL_SECONDS)
      .sign(privateKey);
    const entry = { token, renewAt: at + CALLER_TOKEN_TTL_SECONDS - RENEW_BEFORE_SECONDS };
    current = entry;
    // A failed signing is not kept: the next call tries again.
    token.catch(() => {
      if (current === entry) current = undefined;
    });
    return token;
  };
}

const BEARER = /^Bearer ([A-Za-z0-9._-]{1,4096})$/;

/** Why a call was refused, for the log line (never the token itself). */
export class CallerRefusal extends Error {
  constructor(
    readonly error: ReturnType<typeof unauthenticated>,
    /** The caller the token names (verified or not), or undefined without a readable token. */
    readonly claimedCaller: string | undefined,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const NOT_A_SERVICE_CALL = 'This service answers only calls from Coffer services';

/**
 * Checks incoming calls to service `audience`: a token signed by a service whose public key it
 * has (else UNAUTHENTICATED) and a caller `allowed` the method (else PERMISSION_DENIED). Answers
 * the caller's name, or rejects with a CallerRefusal.
 */
export function callerVerifier(opts: {
  audience: ServiceName;
  publicKeys: ReadonlyMap<string, readonly KeyObject[]>;
  allowed: Readonly<Partial<Record<string, CallerAccess>>>;
  now?: () => number;
}) {
  const now = opts.now ?? (() => Date.now());
  // Verified tokens until their expiry: a caller reuses one token for minutes.
  const verified = new Map<string, { caller: string; exp: number }>();
  const refuse = (reason: string, claimed?: string) =>
    new CallerRefusal(unauthenticated(NOT_A_SERVICE_CALL), claimed, reason);

  async function authenticate(token: string): Promise<string> {
    const hit = verified.get(token);
    if (hit && hit.exp * 1000 > now()) return hit.caller;
    let claimed: string | undefined;
    try {
      const iss = decodeJwt(token).iss;
      claimed = typeof iss === 'string' ? iss.slice(0, 64) : undefined;
    } catch {
      throw refuse('the caller token is not a JWT');
    }
    const keys = claimed !== undefined ? opts.publicKeys.get(claimed) : undefined;
    if (!claimed || !keys?.length)
      throw refuse('the token names no caller whose key this service has', claimed);
    let payload: JWTPayload | undefined;
    let failure = 'invalid';
    // More than one key only while the caller's key is being rotated.
    for (const key of keys) {
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: ['EdDSA'],
          issuer: claimed,
          subject: claimed,
          audience: opts.audience,
          requiredClaims: ['iat', 'exp'],
          maxTokenAge: MAX_TOKEN_AGE_SECONDS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(now()),
        }));
        break;
      } catch (err) {
        failure = (err as { code?: string }).code ?? failure;
      }
    }
    if (!payload) throw refuse(`the caller token does not verify (${failure})`, claimed);
    const exp = payload.exp!;
    if (verified.size >= 1000) verified.clear();
    verified.set(token, { caller: claimed, exp });
    return claimed;
  }

  /** `method`: its name in the .proto, e.g. `GetProfile`. */
  return async (authorization: unknown, method: string): Promise<string> => {
    const header = Array.isArray(authorization) ? (authorization as unknown[])[0] : authorization;
    if (header === undefined) throw refuse('the call carries no caller token');
    const m = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!m) throw refuse('the caller token is not a bearer token');
    const caller = await authenticate(m[1]!);
    const access = opts.allowed[caller];
    if (!access)
      throw new CallerRefusal(
        forbidden(`${opts.audience} does not take calls from ${caller}`),
        caller,
        `${caller} may not call ${opts.audience}`,
      );
    if (access !== '*' && !access.includes(method))
      throw new CallerRefusal(
        forbidden(`${opts.audience} does not take ${method} calls from ${caller}`),
        caller,
        `${caller} may not call ${method}`,
      );
    return caller;
  };
}
export type CallerVerifier = ReturnType<typeof callerVerifier>;
