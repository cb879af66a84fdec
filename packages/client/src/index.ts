/**
 * `@register-services/client`: one typed client per register of Register Services Gateway.
 *
 * ```ts
 * const ppsr = createClient({ register: 'ppsr', environment: 'sandbox', baseUrl, key });
 * const statement = await ppsr.PPSR_01({ path: { registrationNumber: 'FH04R729A8ND9224' } });
 * ```
 */
import { type RegisterClient, registerClient } from './core/register.ts';
import { type Environment, Transport, type TransportOptions } from './core/transport.ts';
import { type DisclosePaths, disclose, type discloseOperations } from './registers/disclose.ts';
import { type IponzPaths, iponz, type iponzOperations } from './registers/iponz.ts';
import { type IponzSoap, iponzSoap } from './registers/iponz-soap.ts';
import { type MarketRentPaths, marketRent, type marketRentOperations } from './registers/market-rent.ts';
import { type NzbnPaths, nzbn, type nzbnOperations } from './registers/nzbn.ts';
import {
  type PpsrPaths,
  type PpsrTransactions,
  ppsr,
  type ppsrOperations,
  ppsrTransactions,
} from './registers/ppsr.ts';

export * from './core/errors.ts';
export {
  type AuthorizationStart,
  finishAuthorization,
  OAuthError,
  pkcePair,
  startAuthorization,
  type TokenAnswer,
  type TokenSource,
  type UserTokens,
  userTokens,
} from './core/oauth.ts';
export type { Paging, RegisterClient } from './core/register.ts';
export {
  type Answer,
  type Environment,
  REQUEST_ID_HEADER,
  type RetryPolicy,
  retryAfterMs,
  Transport,
} from './core/transport.ts';
export type { AnswerOf, CallOptions, InputOf, OperationOf } from './core/typing.ts';
export type { TimeoutPattern, TransactionOutcome } from './registers/ppsr.ts';

export type RegisterId = 'nzbn' | 'market-rent' | 'iponz' | 'ppsr' | 'disclose';

export type NzbnClient = RegisterClient<NzbnPaths, typeof nzbnOperations>;
export type MarketRentClient = RegisterClient<MarketRentPaths, typeof marketRentOperations>;
export type IponzClient = RegisterClient<IponzPaths, typeof iponzOperations> & {
  /** The SOAP operations (WSDL operation names), typed from the register's XSDs. */
  soap: IponzSoap;
};
export type PpsrClient = RegisterClient<PpsrPaths, typeof ppsrOperations> & PpsrTransactions;
export type DiscloseClient = RegisterClient<DisclosePaths, typeof discloseOperations>;

export interface Clients {
  nzbn: NzbnClient;
  'market-rent': MarketRentClient;
  iponz: IponzClient;
  ppsr: PpsrClient;
  disclose: DiscloseClient;
}

export type ClientOptions<R extends RegisterId> = Omit<TransportOptions, 'registerPath'> & {
  register: R;
  environment: Environment;
} & (R extends 'disclose'
    ? {
        /** The organisation the calls are made for (`x-organisation`): the offers register requires it. */
        organisation: string;
      }
    : { organisation?: undefined });

const REGISTERS = { nzbn, 'market-rent': marketRent, iponz, ppsr, disclose } as const;

/** The client of one register in one environment. */
export function createClient<R extends RegisterId>(options: ClientOptions<R>): Clients[R] {
  const register = REGISTERS[options.register];
  if (!register) throw new TypeError(`no register named ${String(options.register)}`);
  const { organisation, register: id, ...rest } = options;
  const transport = new Transport({
    ...rest,
    registerPath: register.basePath,
    etagOf: register.etagOf,
    headers: { ...options.headers, ...(organisation ? { 'x-organisation': organisation } : {}) },
  });
  const client = registerClient(
    transport,
    register.operations,
    register.paging,
    register.mediaTypes,
  ) as object;
  if (id === 'ppsr') return Object.assign(client, ppsrTransactions(transport)) as Clients[R];
  if (id === 'iponz') return Object.assign(client, { soap: iponzSoap(transport) }) as Clients[R];
  return client as Clients[R];
}
