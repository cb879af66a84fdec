/**
 * The customer organisation (PPSR_44/45), its secured party groups (PPSR_34), its fees (SEC_43) and its
 * transactions (SEC_56).
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import {
  conditionalRead,
  conditionalWrite,
  declareOperation,
  type ResourceValidators,
  typed,
} from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { checkSecuredParties, EMAIL } from '../domain/parties.ts';
import {
  CustomerOrganisation,
  CustomerOrganisationUpdate,
  FEE_PAGING,
  FeeList,
  FeeQuery,
  GroupList,
  GroupParams,
  responses,
  SecuredPartyGroup,
  SecuredPartyGroupRequest,
  TransactionList,
  TransactionQuery,
  transactionHeaders,
} from '../schemas.ts';
import {
  type CustomerOrganisationRow,
  ensureCustomerOrganisation,
  type GroupRow,
  getGroup,
  insertGroup,
  listGroups,
  lockCustomerOrganisation,
  updateCustomerOrganisation,
  updateGroup,
} from '../store/account.ts';
import { findEndedTransactions, type TransactionRow } from '../store/transactions.ts';
import type { Processing } from './processing.ts';
import { JSON_ONLY, organisationOf } from './support.ts';

type GroupInput = Static<typeof SecuredPartyGroupRequest>;

const JSON_TYPE = 'application/json; charset=utf-8';

const presentOrganisation = (row: CustomerOrganisationRow) => ({
  organisationId: row.organisationId,
  name: row.name,
  email: row.email,
  version: row.version,
});

/** An organisation's or a group's validators: its version, and when it was last changed. */
const validatorsOf = (row: { version: number; updatedAt: Date }): ResourceValidators => ({
  etag: `"${row.version}"`,
  lastModified: row.updatedAt,
});

/** Validators as headers of a write's answer (kept with it for repeats). */
const validatorHeaders = (row: { version: number; updatedAt: Date }): Record<string, string> => ({
  ETag: `"${row.version}"`,
  'Last-Modified': row.updatedAt.toUTCString(),
});

const presentGroup = (row: GroupRow) => ({
  securedPartyGroupId: row.securedPartyGroupId,
  name: row.name,
  email: row.email,
  securedParties: row.securedParties,
  version: row.version,
});

function presentTransaction(row: TransactionRow) {
  return {
    requestId: row.requestId,
    billingReference: row.billingReference,
    channel: row.channel,
    correlationId: row.correlationId,
    paymentSessionId: row.paymentSessionId,
    receivedDate: formatNzDateTime(row.receivedAt.getTime()),
    receivedUtcDate: row.receivedAt.toISOString(),
    registrationNumber: row.registrationNumber,
    spgId: row.spgId,
    statusCode: row.statusCode,
    response: (row.response as { body?: unknown } | null)?.body ?? null,
  };
}

const stale = (holds: string) =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    `Precondition Failed: If-Match or If-Unmodified-Since does not hold; ${holds}.`,
  );

function checkGroup(body: GroupInput) {
  const name = body.name.trim();
  if (name === '' || name.length > 200) throw new RuleError('name', 'must be 1 to 200 characters');
  const email = body.email.trim();
  if (!EMAIL.test(email)) throw new RuleError('email', 'must be an email address');
  return { name, email, securedParties: checkSecuredParties(body.securedParties) };
}

export function accountRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  processing: Processing,
): void {
  const app = typed(plugin);
  const pool = context.database.pool;

  async function organisationRow(request: FastifyRequest): Promise<CustomerOrganisationRow> {
    const organisationId = await organisationOf(context, request);
    const found = await context.identity.organisation(organisationId);
    return ensureCustomerOrganisation(
      pool,
      organisationId,
      found?.name ?? organisationId,
      context.clock.now(),
    );
  }

  app.get(
    '/customer-organisation',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_44',
          summary: 'The customer organisation the caller acts for',
          response: responses({ 200: CustomerOrganisation }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const row = await organisationRow(request);
      if (conditionalRead(request, reply, validatorsOf(row))) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(presentOrganisation(row)));
    },
  );

  app.put(
    '/customer-organisation',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_45',
          summary: 'Update the customer organisation’s email address (If-Match: its ETag)',
          headers: transactionHeaders(context.environment),
          body: CustomerOrganisationUpdate,
          response: responses({ 200: CustomerOrganisation }, { transaction: true, update: true }),
        },
      },
      { produces: JSON_ONLY, conditional: {} },
    ),
    async (request, reply) => {
      const current = await organisationRow(request);
      const email = request.body.email === null ? null : request.body.email.trim();
      if (email !== null && !EMAIL.test(email))
        throw new RuleError('email', 'must be an email address or null');
      return processing.run(request, reply, {
        operation: 'PPSR_45',
        organisationId: current.organisationId,
        async work(client) {
          // If-Match and If-Unmodified-Since against the organisation as it stands, under its lock.
          const locked = await lockCustomerOrganisation(client, current.organisationId);
          conditionalWrite(request, locked && validatorsOf(locked), () =>
            stale(`the organisation is at version ${locked?.version}`),
          );
          const row = await updateCustomerOrganisation(
            client,
            current.organisationId,
            { email, expectedVersion: locked?.version },
            context.clock.now(),
          );
          if (!row) throw stale('the organisation has changed');
          return { httpStatus: 200, body: presentOrganisation(row), headers: validatorHeaders(row) };
        },
      });
    },
  );

  app.post(
    '/secured-party-groups',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_34',
          summary: 'Create a secured party group',
          headers: transactionHeaders(context.environment),
          body: SecuredPartyGroupRequest,
          response: responses({ 201: SecuredPartyGroup }, { transaction: true }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const group = checkGroup(request.body);
      return processing.run(request, reply, {
        operation: 'PPSR_34',
        organisationId,
        async work(client) {
          const row = await insertGroup(client, { organisationId, ...group }, context.clock.now());
          return {
            httpStatus: 201,
            body: presentGroup(row),
            headers: {
              ...validatorHeaders(row),
              Location: `secured-party-groups/${row.securedPartyGroupId}`,
            },
            spgId: row.securedPartyGroupId,
          };
        },
      });
    },
  );

  app.get(
    '/secured-party-groups',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_34_LIST',
          summary: 'The secured party groups of the caller’s organisation',
          response: responses({ 200: GroupList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const groups = await listGroups(pool, organisationId);
      return reply.type(JSON_TYPE).send(JSON.stringify({ securedPartyGroups: groups.map(presentGroup) }));
    },
  );

  const groupNotFound = (id: string) =>
    new HttpError(PLATFORM_ERRORS.notFound, `Your organisation has no secured party group ${id}.`);

  app.get(
    '/secured-party-groups/:securedPartyGroupId',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_34_GET',
          summary: 'A secured party group of the caller’s organisation',
          params: GroupParams,
          response: responses({ 200: SecuredPartyGroup }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const id = request.params.securedPartyGroupId;
      const row = await getGroup(pool, id);
      if (!row || row.organisationId !== organisationId) throw groupNotFound(id);
      if (conditionalRead(request, reply, validatorsOf(row))) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(presentGroup(row)));
    },
  );

  app.put(
    '/secured-party-groups/:securedPartyGroupId',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_34_UPDATE',
          summary: 'Replace a secured party group (If-Match: its ETag)',
          params: GroupParams,
          headers: transactionHeaders(context.environment),
          body: SecuredPartyGroupRequest,
          response: responses({ 200: SecuredPartyGroup }, { transaction: true, update: true }),
        },
      },
      { produces: JSON_ONLY, conditional: {} },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const id = request.params.securedPartyGroupId;
      const group = checkGroup(request.body);
      // Another organisation's group (or none) is refused before the transaction is recorded.
      const existing = await getGroup(pool, id);
      if (!existing || existing.organisationId !== organisationId) throw groupNotFound(id);
      return processing.run(request, reply, {
        operation: 'PPSR_34_UPDATE',
        organisationId,
        async work(client) {
          const row = await getGroup(client, id, { forUpdate: true });
          if (!row || row.organisationId !== organisationId) throw groupNotFound(id);
          conditionalWrite(request, validatorsOf(row), () => stale(`the group is at version ${row.version}`));
          const updated = await updateGroup(client, id, group, context.clock.now());
          return {
            httpStatus: 200,
            body: presentGroup(updated),
            headers: validatorHeaders(updated),
            spgId: id,
          };
        },
      });
    },
  );

  app.get(
    '/customer-organisation-fees',
    declareOperation(
      {
        schema: {
          operationId: 'SEC_43',
          summary: 'The customer organisation’s fees for this register, newest first',
          querystring: FeeQuery,
          response: responses({ 200: FeeList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const { page, pageSize } = parsePage(query, FEE_PAGING);
      const status = query['fee-status'];
      const result = await context.fees.list(request.caller, {
        page,
        pageSize,
        ...(status ? { feeStatus: status as 'Unbilled' | 'Invoiced' } : {}),
        ...(query['request-id'] ? { requestId: query['request-id'] } : {}),
        ...(query['billing-reference'] ? { billingReference: query['billing-reference'] } : {}),
      });
      const fees = result.records.map((fee) => ({
        transactionType: fee.operation,
        description: fee.description,
        amount: fee.amountCents / 100,
        gst: fee.gstCents / 100,
        currency: fee.currency,
        feeStatus: fee.feeStatus,
        paymentSessionId: String(fee.id),
        requestId: fee.requestId,
        billingReference: fee.billingReference,
        registrationNumber: fee.objectKind === 'financing-statement' ? fee.objectId : null,
        chargedDate: formatNzDateTime(fee.chargedAt.getTime()),
      }));
      return reply
        .type(JSON_TYPE)
        .send(
          JSON.stringify({ totalResults: result.total, page: result.page, pageSize: result.pageSize, fees }),
        );
    },
  );

  app.get(
    '/customer-organisation-transactions',
    declareOperation(
      {
        schema: {
          operationId: 'SEC_56',
          summary:
            'Transactions by request id or billing reference, once completed or failed (never while processing)',
          querystring: TransactionQuery,
          response: responses({ 200: TransactionList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const requestId = request.query['request-id'];
      const billingReference = request.query['billing-reference'];
      if (
        (requestId === undefined || requestId === '') ===
        (billingReference === undefined || billingReference === '')
      ) {
        throw new RuleError('request-id', 'give exactly one of request-id and billing-reference');
      }
      const organisationId = await organisationOf(context, request);
      const rows = await findEndedTransactions(
        pool,
        context.serverKeys,
        organisationId,
        requestId ? { requestId } : { billingReference: billingReference! },
      );
      return reply
        .header('Cache-Control', 'no-cache')
        .type(JSON_TYPE)
        .send(JSON.stringify({ transactions: rows.map(presentTransaction) }));
    },
  );
}
