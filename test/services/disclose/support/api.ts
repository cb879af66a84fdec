import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { AppOptions } from '../../../../src/app.ts';
import { type ServiceContext, serviceContext } from '../../../../src/gateway/service-context.ts';
import { grantAuthority } from '../../../../src/identity/operations/authorities.ts';
import { addOrganisation } from '../../../../src/identity/operations/organisations.ts';
import { addMember } from '../../../../src/identity/store/memberships.ts';
import { setClock } from '../../../../src/platform/environment-clocks.ts';
import { discloseService } from '../../../../src/services/disclose/index.ts';
import { seedDisclose } from '../../../../src/services/disclose/sandbox/seed.ts';
import {
  documentFolder,
  folderDocumentFiles,
} from '../../../../src/services/disclose/store/document-files.ts';
import { subscriber, type TestGateway, testGateway } from '../../../support/runtime.ts';
import { testCompanies } from './companies.ts';

/** The sandbox clock of the tests: 20 May 2026, so FPH for 31 March 2026 is due and not yet overdue. */
export const NOW = '2026-05-20T00:00:00Z';
export const BASE = '/sandbox/companies-office/disclose-register/v1';

export interface DiscloseGateway {
  gateway: TestGateway;
  key: string;
  userId: string;
  /** The organisation the subscriber acts for: authority over the funds of OFR10001 and OFR10002. */
  organisation: string;
  /** That organisation's id (what the gateway resolves `x-organisation` to, for a `Caller`). */
  organisationId: string;
  /** Another organisation the subscriber belongs to, with no authority over any fund. */
  otherOrganisation: string;
  call(
    method: string,
    url: string,
    options?: { headers?: Record<string, string>; body?: unknown; organisation?: string | null },
  ): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function discloseGateway(
  options: {
    schemes?: number;
    standaloneOffers?: number;
    env?: Record<string, string>;
    app?: AppOptions;
  } = {},
): Promise<DiscloseGateway> {
  // The document store of the gateway under test: a folder of its own (read when the routes mount).
  const folder = await mkdtemp(path.join(tmpdir(), 'rsg-disclose-'));
  process.env.RSG_DISCLOSE_DOCUMENTS_DIR = folder;
  const gateway = await testGateway({
    clockMode: 'virtual',
    ...(options.env ? { env: options.env } : {}),
    ...(options.app ? { app: options.app } : {}),
  });
  await setClock(gateway.runtime.gateway.pool, 'sandbox', NOW);
  await gateway.runtime.clocks.reload();
  const pool = gateway.runtime.gateway.pool;
  const { primaryKey, user } = await subscriber(gateway, 'sandbox-disclose');
  const organisation = await addOrganisation(pool, {
    environment: 'sandbox',
    identifier: 'harbour-funds',
    name: 'Harbour Funds',
  });
  const other = await addOrganisation(pool, {
    environment: 'sandbox',
    identifier: 'no-authority',
    name: 'No authority',
  });
  await addMember(pool, organisation.id, user.id, 'owner');
  await addMember(pool, other.id, user.id, 'member');
  await seedDisclose(
    {
      database: gateway.runtime.environments.sandbox,
      scale: 'small',
      clock: gateway.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: {
        grantOperatorsAuthority: async () => {},
        async grantOperatorsOrganisationAuthority(service, kind, id) {
          await grantAuthority(
            pool,
            { environment: 'sandbox', service, kind, id },
            { organisationId: organisation.id },
          );
          return organisation.identifier;
        },
      },
    },
    {
      organisations: testCompanies(),
      files: folderDocumentFiles(documentFolder('sandbox')),
      schemes: options.schemes ?? 6,
      standaloneOffers: options.standaloneOffers ?? 4,
    },
  );
  const call: DiscloseGateway['call'] = (method, url, o = {}) =>
    gateway.app.inject({
      method: method as 'GET',
      url: `${BASE}${url}`,
      headers: {
        'Ocp-Apim-Subscription-Key': primaryKey,
        ...(o.organisation === null ? {} : { 'x-organisation': o.organisation ?? organisation.identifier }),
        ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...o.headers,
      },
      ...(o.body === undefined
        ? {}
        : { payload: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) }),
    });
  return {
    gateway,
    key: primaryKey,
    userId: user.id,
    organisation: organisation.identifier,
    organisationId: organisation.id,
    otherOrganisation: other.identifier,
    call,
    get: (url, headers = {}) => call('GET', url, { headers }),
    close: () => gateway.close(),
  };
}

/**
 * The sandbox's service context of the offers register, as the gateway gives it to the routes
 * (gateway/mount.ts): what the CLI, an import or a job hands an operation of services/disclose/operations/.
 */
export function sandboxContext(gateway: TestGateway): ServiceContext {
  return serviceContext(gateway.runtime, 'sandbox', discloseService);
}
