// The types of `register-services-gateway/testing/jest` (sandbox.cjs): the harness's own, nothing else
// of the gateway's.
import type { ClockReading, RegisterId, RegisterObject, SandboxUser, SandboxUserOptions } from '../types.js';

/** This Jest worker's sandbox, as its test files reach it: over HTTP, with the operator's key. */
export interface JestSandbox {
  /** The gateway's base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Each register's sandbox base URL, e.g. `http://127.0.0.1:41234/sandbox/nzbn/v5` for `nzbn`. */
  readonly registers: Readonly<Record<RegisterId, string>>;
  /** A subscription key of each register's sandbox product (`Ocp-Apim-Subscription-Key`), an operator's. */
  readonly keys: Readonly<Record<RegisterId, string>>;
  /** The user who holds `keys`. */
  readonly userId: string;
  readonly scale: 'small' | 'full';
  readonly clock: {
    read(): Promise<ClockReading>;
    /** Moves the virtual clock forward, e.g. `31d`, `2h30m`, `1mo`, `PT2H`. */
    advance(duration: string): Promise<ClockReading>;
    /** Sets the virtual clock (ISO 8601 date-time). */
    set(time: string | Date): Promise<ClockReading>;
  };
  /** A new user with a password, authorities when asked, and a sandbox access token (`token`). */
  user(options?: SandboxUserOptions): Promise<SandboxUser>;
  /** Grants a user or an organisation authority over a register object of the sandbox. */
  grantAuthority(
    holder: { userId: string } | { organisationId: string },
    object: RegisterObject,
  ): Promise<void>;
  /** Every register back to its seeded state, the clock to where it was at the start; keys and users stay. */
  reset(): Promise<void>;
  /** Keeps the registers (and the clock) as they are now under `name`. */
  snapshot(name: string): Promise<void>;
  /** Puts the registers and the clock back as they were when `name` was kept. */
  restore(name: string): Promise<void>;
}

/**
 * A refused or failed admin call: the route's HTTP status and its problem+json body. A 503 with
 * `Retry-After` is waited out (up to 30 s) before it is thrown, except by `clock.advance`, `user()`
 * and `grantAuthority()`.
 */
export declare class SandboxAdminError extends Error {
  readonly status: number;
  readonly problem: unknown;
  /** The answer's `Retry-After` header, if it had one. */
  readonly retryAfter: string | null;
}

/** This worker's sandbox (`JEST_WORKER_ID`), started by the suite's `globalSetup`. */
export declare function sandbox(): JestSandbox;
