/**
 * The harness's public types (`register-services-gateway/testing`). Self-contained on purpose: a test
 * suite's type checker reads this file and nothing else of the gateway.
 */

/** The registers: their sandbox APIs are under `<url>/sandbox/<path>`. */
export type RegisterId = 'nzbn' | 'market-rent' | 'iponz' | 'ppsr' | 'disclose';

export interface SandboxOptions {
  /** The seed scale: `small` (the default: about 80 MB, seeded once per machine) or `full`. */
  scale?: 'small' | 'full';
  /** `virtual` (the default): `clock.advance` and `clock.set` move the sandbox's time. `real`: wall time. */
  clock?: 'virtual' | 'real';
  /** Where the virtual clock starts (ISO 8601); the default is now. A reset brings it back here. */
  clockAt?: string | Date;
  /**
   * A PostgreSQL server to use (any database's address on it; the role needs CREATEDB). The default is
   * `DATABASE_URL`, else the machine's embedded server, started by the first harness and stopped by
   * the last.
   */
  databaseUrl?: string;
  /** Run the registers' background jobs (watchlist deliveries, month-end invoices). Default true. */
  jobs?: boolean;
  /** Further gateway settings, as `rsg start` reads them from the environment (e.g. `RSG_FEES`). */
  env?: Record<string, string>;
  /** Progress lines (a first start makes the template: migrations and a seed). */
  log?: (line: string) => void;
}

/** A register object a user or an organisation can hold authority over. */
export interface RegisterObject {
  /** The register, e.g. `nzbn`. */
  service: RegisterId;
  /** e.g. `entity` (a business number), `fund` (an offers-register fund). */
  kind: string;
  /** The object's identifier in its register, e.g. an NZBN. */
  id: string;
}

export interface SandboxUser {
  userId: string;
  email: string;
  password: string;
  /** A three-legged OAuth access token of the sandbox: `Authorization: Bearer <token>`. */
  token: string;
}

export interface SandboxUserOptions {
  email?: string;
  /** Objects the user holds authority over (a business the user acts for), granted before the token. */
  authorities?: RegisterObject[];
}

export interface ClockReading {
  now: Date;
  mode: 'virtual' | 'real';
  frozen: boolean;
}

export interface SandboxClock {
  read(): Promise<ClockReading>;
  /** Moves the virtual clock forward, e.g. `31d`, `2h30m`, `1mo`, `PT2H`. */
  advance(duration: string): Promise<ClockReading>;
  /** Sets the virtual clock (ISO 8601 date-time). */
  set(time: string | Date): Promise<ClockReading>;
}

export interface Sandbox {
  /** The gateway's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Each register's sandbox base URL, e.g. `http://127.0.0.1:41234/sandbox/nzbn/v5` for `nzbn`. */
  registers: Record<RegisterId, string>;
  /**
   * A subscription key of each register's sandbox product (`Ocp-Apim-Subscription-Key`), held by an
   * operator: the sandbox's admin routes (`/sandbox/admin/…`) take them too.
   */
  keys: Record<RegisterId, string>;
  /** The user who holds `keys`. */
  userId: string;
  /** The seed scale and the template this sandbox was copied from. */
  scale: 'small' | 'full';
  clock: SandboxClock;
  /** A new user with a password, authorities when asked, and an access token from the OAuth sign-in. */
  user(options?: SandboxUserOptions): Promise<SandboxUser>;
  /** Grants a user (or an organisation) authority over a register object. */
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
  /** Stops the gateway and drops its databases. */
  stop(): Promise<void>;
}
