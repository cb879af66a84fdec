import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceFees } from '../../../src/billing/fees.ts';
import { type ServiceContext, serviceContext } from '../../../src/gateway/service-context.ts';
import { withTransaction } from '../../../src/platform/db/pool.ts';
import { HttpError } from '../../../src/platform/http/errors.ts';
import { noPreconditions, type Preconditions } from '../../../src/platform/http/operation.ts';
import { ppsrService } from '../../../src/services/ppsr/index.ts';
import { admitChange, changeStatement } from '../../../src/services/ppsr/operations/statement-changes.ts';
import { statementsOf } from '../../../src/services/ppsr/operations/statement-lists.ts';
import {
  readStatement,
  readVersions,
  registerStatement,
} from '../../../src/services/ppsr/operations/statements.ts';
import type { Answer, InTransaction } from '../../../src/services/ppsr/operations/transaction.ts';
import type { AmendmentRequest, RegistrationRequest } from '../../../src/services/ppsr/schemas.ts';
import { receiveTransaction } from '../../../src/services/ppsr/store/transactions.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';
import { registration } from './support/api.ts';

/**
 * The register's operations run without HTTP, as the CLI, an import or a job runs them: the service
 * context, plain input, a transaction the tool records itself, no preconditions (that none
 * imports Fastify is ../operations-layer.test.ts).
 */

let gateway: TestGateway;
let context: ServiceContext;
beforeAll(async () => {
  gateway = await testGateway();
  // The sandbox's context as the gateway makes it, with charging off (no fee records): what a tool gives.
  const fees = { enabled: false, charge: async () => undefined } as unknown as ServiceFees;
  context = { ...serviceContext(gateway.runtime, 'sandbox', ppsrService), fees };
}, 120_000);
afterAll(async () => gateway?.close());

/** A transaction as a tool records it (channel Web, no caller's request id), then its work. */
function transactionally(
  organisationId: string,
  operation: string,
  work: (within: InTransaction) => Promise<Answer>,
): Promise<Answer> {
  return withTransaction(context.database.pool, async (client) => {
    const { row } = await receiveTransaction(client, context.serverKeys, {
      organisationId,
      requestId: randomUUID(),
      requestIdSupplied: false,
      billingReference: null,
      operation,
      requestHash: Buffer.alloc(32),
      channel: 'Web',
      correlationId: randomUUID(),
      receivedAt: context.clock.now(),
    });
    return work({ client, transaction: row });
  });
}

const register = (organisationId: string) =>
  transactionally(organisationId, 'PPSR_17', (within) =>
    registerStatement(
      context,
      { organisationId, caller: undefined, registration: registration() as RegistrationRequest },
      within,
    ),
  );

describe('operations called directly', () => {
  it('registers, reads, amends and lists the versions of a statement', async () => {
    const organisationId = randomUUID();
    const registered = await register(organisationId);
    expect(registered.httpStatus).toBe(201);
    const registrationNumber = registered.registrationNumber!;
    expect(registered.headers?.Location).toBe(`financing-statements/${registrationNumber}`);

    const read = await readStatement(context, { registrationNumber, access: { organisationId } });
    expect(read.statement).toMatchObject({ registrationNumber, version: 1, status: 'Registered' });
    expect(read.validators.etag).toBe(`"${registrationNumber}.1"`);

    const change = { registrationNumber, organisationId, pin: undefined, caller: undefined };
    await admitChange(context, change);
    const { debtors, collaterals } = registration() as AmendmentRequest;
    const amended = await transactionally(organisationId, 'PPSR_03', (within) =>
      changeStatement(
        context,
        {
          ...change,
          change: { kind: 'amend', amendment: { debtors, collaterals } },
          preconditions: noPreconditions,
        },
        within,
      ),
    );
    expect(amended.body).toMatchObject({ registrationNumber, version: 2 });
    expect(amended.headers?.ETag).toBe(`"${registrationNumber}.2"`);

    const versions = await readVersions(context, { registrationNumber, access: { organisationId } });
    expect(await versions.versions()).toMatchObject({
      registrationNumber,
      versions: [
        { version: 1, change: 'Registered' },
        { version: 2, change: 'Amended' },
      ],
    });
  });

  it('refuses a change the preconditions refuse, writing nothing', async () => {
    const organisationId = randomUUID();
    const registrationNumber = (await register(organisationId)).registrationNumber!;
    let seen: unknown;
    const stale: Preconditions = (current, failed) => {
      seen = current;
      throw failed!();
    };
    const discharge = transactionally(organisationId, 'PPSR_DISCHARGE', (within) =>
      changeStatement(
        context,
        {
          registrationNumber,
          organisationId,
          pin: undefined,
          caller: undefined,
          change: { kind: 'discharge' },
          preconditions: stale,
        },
        within,
      ),
    );
    await expect(discharge).rejects.toThrow(/has changed; it is at version 1/);
    expect(seen).toMatchObject({ etag: `"${registrationNumber}.1"` });
    const access = { organisationId };
    expect((await readStatement(context, { registrationNumber, access })).statement.status).toBe(
      'Registered',
    );
  });

  it("refuses another organisation's change without the PIN, and admits it with the PIN", async () => {
    const owner = randomUUID();
    const registered = await register(owner);
    const registrationNumber = registered.registrationNumber!;
    const pin = (registered.body as { financingStatementPin: string }).financingStatementPin;
    const other = { registrationNumber, organisationId: randomUUID() };
    const refused = await admitChange(context, { ...other, pin: undefined }).catch((error) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(403);
    await expect(admitChange(context, { ...other, pin })).resolves.toBeUndefined();
  });

  it("reads another organisation's statement only with its PIN or debtor PIN, else as none", async () => {
    const registered = await register(randomUUID());
    const registrationNumber = registered.registrationNumber!;
    const { financingStatementPin, debtorPin } = registered.body as Record<string, string>;
    const read = (access: Record<string, string | undefined>) =>
      readStatement(context, { registrationNumber, access: { organisationId: randomUUID(), ...access } });
    for (const access of [
      {},
      { pin: '00000000' },
      { debtorPin: financingStatementPin === '00000000' ? '1' : '00000000' },
    ]) {
      const refused = await read(access).catch((error) => error);
      expect((refused as HttpError).status, JSON.stringify(access)).toBe(404);
    }
    await expect(read({ pin: financingStatementPin })).resolves.toMatchObject({
      statement: { registrationNumber },
    });
    await expect(read({ debtorPin })).resolves.toMatchObject({ statement: { registrationNumber } });
  });

  it('refuses a statement list that names neither a search nor a group', async () => {
    await expect(
      statementsOf(context, { organisationId: randomUUID(), page: 1, pageSize: 20, offset: 0 }),
    ).rejects.toThrow(/exactly one of search-id and secured-party-group-id/);
  });
});
