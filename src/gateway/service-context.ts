import { type ServiceFees, serviceFees } from '../billing/fees.ts';
import { readSettings } from '../config.ts';
import type { RegisterDirectory } from '../identity/operations/register-directory.ts';
import { serviceIdentity } from '../identity/operations/service-identity.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/pool.ts';
import { sendMail } from '../platform/mail.ts';
import type { ServerKeys } from '../platform/server-keys.ts';
import type { Runtime } from '../runtime.ts';
import {
  type Environment,
  type Registers,
  registersOf,
  type ServiceDefinition,
} from '../services/contract.ts';
import type { VerifiedToken } from './http/tokens.ts';

/** What the gateway hands a service when it mounts it in one environment. */
export interface ServiceContext {
  environment: Environment;
  service: ServiceDefinition;
  /** That environment's database. */
  database: Database;
  clock: Clock;
  /** Uniform in [0, 1), keyed by the server secret: the same key always gives the same number. */
  keyedUniform(key: string): number;
  /** The server secret's keys (platform/server-keys.ts), for what a service keeps keyed or encrypted. */
  serverKeys: ServerKeys;
  /** "May this caller act on this object?" — answered by identity/, in this environment and service. */
  identity: ServiceIdentity;
  /** Fees: charge inside the operation's transaction, refuse without a direct debit authority (billing/). */
  fees: ServiceFees;
  /** The values of the service's own settings (`ServiceDefinition.settings`), by name. */
  settings: Readonly<Record<string, number>>;
  /** The other registers of this environment (the business number register's lookups). */
  registers: Registers;
  /**
   * The absolute URL of a path from the gateway's root, on its public base URL (RSG_PUBLIC_URL, else the
   * listen address): links, redirects and WSDL addresses never take their host from the request.
   */
  absoluteUrl(path: string): string;
}

/**
 * The context of one service in one environment, made from the runtime: what the gateway hands the
 * service's routes when it mounts it (http/mount.ts), and what the CLI, an import, a job or a test hands its
 * operations (`services/<id>/operations/`) to run them without HTTP.
 */
export function serviceContext(
  runtime: Runtime,
  environment: Environment,
  service: ServiceDefinition,
): ServiceContext {
  const database = runtime.environments[environment];
  const clock = runtime.clocks.for(environment);
  return {
    environment,
    service,
    database,
    clock,
    keyedUniform: runtime.keyedUniform,
    serverKeys: runtime.serverKeys,
    identity: serviceIdentity(runtime.gateway.pool, environment, service.id, clock, async (message) => {
      await sendMail(
        {
          pool: runtime.gateway.pool,
          smtpUrl: runtime.config.smtpUrl,
          from: runtime.config.mailFrom,
          environment,
        },
        message,
      );
    }),
    fees: serviceFees({
      environment,
      service: service.id,
      database: database.pool,
      gateway: runtime.gateway.pool,
      clock,
      schedule: runtime.config.fees.schedule,
      enabled: runtime.config.fees.enabled,
      directCredit: service.acceptsDirectCredit,
      payers: runtime.payers,
    }),
    settings: readSettings(runtime.config.variables, service.settings),
    registers: registersOf(runtime.services, database),
    absoluteUrl: (path) => runtime.publicUrl.absolute(path),
  };
}

export interface ServiceIdentity {
  mayAct(caller: Caller | undefined, kind: string, objectId: string): Promise<boolean>;
  objectsCallerMayActOn(caller: Caller | undefined, kind: string): Promise<string[]>;
  /** Business authorities over one object: who holds them (current ones only). */
  listAuthorities(kind: string, objectId: string): Promise<HeldAuthority[]>;
  /**
   * Grants authority to a user (by id or email) or to an organisation (by its register identifier, in
   * this environment). Undefined when no such user or organisation exists. Idempotent.
   */
  grantAuthority(
    kind: string,
    objectId: string,
    holder: { userId: string } | { email: string } | { organisation: string },
    options?: { grantedBy?: string; role?: string },
  ): Promise<HeldAuthority | undefined>;
  /** An organisation of this environment by its id: its register identifier and name. */
  organisation(organisationId: string): Promise<{ id: string; identifier: string; name: string } | undefined>;
  /** Revokes one authority over the object; false when there was none with that id. */
  revokeAuthority(kind: string, objectId: string, authorityId: string): Promise<boolean>;
  /**
   * The register's view of identity's users, organisations, organisation users and authorities (with
   * their register profile, statuses and invitations): identity's own rows, never a copy.
   */
  directory: RegisterDirectory;
}

export interface HeldAuthority {
  id: string;
  /** The holder: a user's email, or an organisation's register identifier. */
  userEmail: string | null;
  organisationIdentifier: string | null;
  role: string;
  grantedAt: Date;
}

/** The authenticated caller, as a service sees it. */
export interface Caller {
  environment: Environment;
  subscriptionId: string;
  productId: string;
  /** The user who owns the subscription (the software provider). */
  subscriberId: string;
  /** A verified bearer token, when one was sent. */
  token?: VerifiedToken | undefined;
  /** The end user acting: the subject of a three-legged token. */
  userId?: string | undefined;
  /** The organisation the call is made for (the offers register's x-organisation header), once resolved. */
  organisationId?: string | undefined;
}

/** Route option: `{ config: { threeLegged: true } }` makes the guard require a user's token. */
declare module 'fastify' {
  interface FastifyContextConfig {
    threeLegged?: boolean;
    /** Overrides the scope the guard requires (`<service>:read` for GET/HEAD, `<service>:write` otherwise). */
    scope?: string;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}
