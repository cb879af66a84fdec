/**
 * The customer organisation (PPSR_44/45), its secured party groups (PPSR_34), its fees (SEC_43) and its
 * transactions (SEC_56).
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { answeredConditionally, evaluatePreconditions } from '../../../platform/http/conditional.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { checkSecuredParties, EMAIL } from '../domain/parties.ts';
import {
  CustomerOrganisation,
  CustomerOrganisationUpdate,
  FeeList,
  FeeQuery,
  GroupList,
  GroupParams,
  responses,
  SecuredPartyGroup,
  SecuredPartyGroupRequest,
  TransactionList,
  TransactionQuery,
} from '../schemas.ts';
import {
  type CustomerOrganisationRow,
  ensureCustomerOrganisation,
  type GroupRow,
  getGroup,
  insertGroup,
  listGroups,
  updateCustomerOrganisation,
  updateGroup,
} from '../store/account.ts';
import { findEndedTransactions, type TransactionRow } from '../store/transactions.ts';
import type { Processing } from './processing.ts';
import { organisationOf } from './support.ts';

type GroupInput = Static<typeof SecuredPartyGroupRequest>;

const JSON_TYPE = 'application/json; charset=utf-8';

const presentOrganisation = (row: CustomerOrganisationRow) => ({
  organisationId: row.organisationId,
  name: row.name,
  email: row.email,
  version: row.version,
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

function checkGroup(body: GroupInput) {
  const name = body.name.trim();
  if (name === '' || name.length > 200) throw new RuleError('name', 'must be 1 to 200 characters');
  const email = body.email.trim();
  if (!EMAIL.test(email)) throw new RuleError('email', 'must be an email address');
  return { name, email, securedParties: checkSecuredParties(body.securedParties) };
}

export function accountRoutes(app: FastifyInstance, context: ServiceContext, processing: Processing): void {
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
    {
      schema: {
        operationId: 'PPSR_44',
        summary: 'The customer organisation the caller acts for',
        response: responses({ 200: CustomerOrganisation }, { conditional: true }),
      },
    },
    async (request, reply) => {
      const row = await organisationRow(request);
      if (answeredConditionally(request, reply, { etag: `"${row.version}"`, lastModified: row.updatedAt })) {
        return reply;
      }
      return reply.type(JSON_TYPE).send(JSON.stringify(presentOrganisation(row)));
    },
  );

  app.put<{ Body: { email: string | null } }>(
    '/customer-organisation',
    {
      schema: {
        operationId: 'PPSR_45',
        summary: 'Update the customer organisation’s email address (If-Match: its ETag)',
        body: CustomerOrganisationUpdate,
        response: responses({ 200: CustomerOrganisation }, { transaction: true }),
      },
    },
    async (request, reply) => {
      const current = await organisationRow(request);
      const email = request.body.email === null ? null : request.body.email.trim();
      if (email !== null && !EMAIL.test(email))
        throw new RuleError('email', 'must be an email address or null');
      const ifMatch = request.headers['if-match'];
      const expectedVersion =
        typeof ifMatch === 'string' && /^"\d+"$/.test(ifMatch.trim())
          ? Number(ifMatch.trim().slice(1, -1))
          : undefined;
      if (typeof ifMatch === 'string' && ifMatch.trim() !== '*' && expectedVersion === undefined) {
        throw new HttpError(
          PLATFORM_ERRORS.preconditionFailed,
          'If-Match does not name a version of the organisation.',
        );
      }
      return processing.run(request, reply, {
        operation: 'PPSR_45',
        organisationId: current.organisationId,
        headers: (answer) => ({ ETag: `"${(answer.body as { version: number }).version}"` }),
        async work(client) {
          const row = await updateCustomerOrganisation(
            client,
            current.organisationId,
            { email, expectedVersion },
            context.clock.now(),
          );
          if (!row)
            throw new HttpError(
              PLATFORM_ERRORS.preconditionFailed,
              'If-Match does not hold: the organisation has changed.',
            );
          return { httpStatus: 200, body: presentOrganisation(row) };
        },
      });
    },
  );

  app.post<{ Body: GroupInput }>(
    '/secured-party-groups',
    {
      schema: {
        operationId: 'PPSR_34',
        summary: 'Create a secured party group',
        body: SecuredPartyGroupRequest,
        response: responses({ 201: SecuredPartyGroup }, { transaction: true }),
      },
    },
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const group = checkGroup(request.body);
      return processing.run(request, reply, {
        operation: 'PPSR_34',
        organisationId,
        headers: (answer) => ({
          Location: `secured-party-groups/${(answer.body as { securedPartyGroupId: string }).securedPartyGroupId}`,
        }),
        async work(client) {
          const row = await insertGroup(client, { organisationId, ...group }, context.clock.now());
          return { httpStatus: 201, body: presentGroup(row), spgId: row.securedPartyGroupId };
        },
      });
    },
  );

  app.get(
    '/secured-party-groups',
    {
      schema: {
        operationId: 'PPSR_34_LIST',
        summary: 'The secured party groups of the caller’s organisation',
        response: responses({ 200: GroupList }),
      },
    },
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const groups = await listGroups(pool, organisationId);
      return reply.type(JSON_TYPE).send(JSON.stringify({ securedPartyGroups: groups.map(presentGroup) }));
    },
  );

  const groupNotFound = (id: string) =>
    new HttpError(PLATFORM_ERRORS.notFound, `Your organisation has no secured party group ${id}.`);

  app.get<{ Params: { securedPartyGroupId: string } }>(
    '/secured-party-groups/:securedPartyGroupId',
    {
      schema: {
        operationId: 'PPSR_34_GET',
        summary: 'A secured party group of the caller’s organisation',
        params: GroupParams,
        response: responses({ 200: SecuredPartyGroup }, { conditional: true }),
      },
    },
    async (request, reply) => {
      const organisationId = await organisationOf(context, request);
      const id = request.params.securedPartyGroupId;
      const row = await getGroup(pool, id);
      if (!row || row.organisationId !== organisationId) throw groupNotFound(id);
      if (answeredConditionally(request, reply, { etag: `"${row.version}"` })) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(presentGroup(row)));
    },
  );

  app.put<{ Params: { securedPartyGroupId: string }; Body: GroupInput }>(
    '/secured-party-groups/:securedPartyGroupId',
    {
      schema: {
        operationId: 'PPSR_34_UPDATE',
        summary: 'Replace a secured party group (If-Match: its ETag)',
        params: GroupParams,
        body: SecuredPartyGroupRequest,
        response: responses({ 200: SecuredPartyGroup }, { transaction: true }),
      },
    },
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
        headers: (answer) => ({ ETag: `"${(answer.body as { version: number }).version}"` }),
        async work(client) {
          const row = await getGroup(client, id, { forUpdate: true });
          if (!row || row.organisationId !== organisationId) throw groupNotFound(id);
          evaluatePreconditions(
            request,
            { etag: `"${row.version}"` },
            () =>
              new HttpError(
                PLATFORM_ERRORS.preconditionFailed,
                `If-Match does not hold: the group is at version ${row.version}.`,
              ),
          );
          const updated = await updateGroup(client, id, group, context.clock.now());
          return { httpStatus: 200, body: presentGroup(updated), spgId: id };
        },
      });
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/customer-organisation-fees',
    {
      schema: {
        operationId: 'SEC_43',
        summary: 'The customer organisation’s fees for this register, newest first',
        querystring: FeeQuery,
        response: responses({ 200: FeeList }),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const { page, pageSize } = parsePage(query, { defaultSize: 50, maxSize: 500, firstPage: 1 });
      const status = query['fee-status'];
      if (status !== undefined && status !== 'Unbilled' && status !== 'Invoiced') {
        throw new RuleError('fee-status', 'must be Unbilled or Invoiced');
      }
      const result = await context.fees.list(request.caller, {
        page,
        pageSize,
        ...(status ? { feeStatus: status } : {}),
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

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/customer-organisation-transactions',
    {
      schema: {
        operationId: 'SEC_56',
        summary:
          'Transactions by request id or billing reference, once completed or failed (never while processing)',
        querystring: TransactionQuery,
        response: responses({ 200: TransactionList }),
      },
    },
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
