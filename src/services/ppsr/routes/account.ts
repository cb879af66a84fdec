/**
 * The customer organisation (PPSR_44/45), its secured party groups (PPSR_34), its fees (SEC_43) and its
 * transactions (SEC_56). What each does is `operations/account.ts`.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import {
  conditionalRead,
  declareOperation,
  preconditionsOf,
  typed,
} from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import {
  admitGroupReplacement,
  admitOrganisationUpdate,
  checkGroup,
  createGroup,
  customerOrganisation,
  deleteGroup,
  feesOf,
  groupsOf,
  readGroup,
  replaceGroup,
  transactionsOf,
  updateOrganisationEmail,
} from '../operations/account.ts';
import { organisationOf } from '../operations/support.ts';
import {
  CustomerOrganisation,
  CustomerOrganisationUpdate,
  FEE_PAGING,
  FeeList,
  FeeQuery,
  GroupList,
  GroupParams,
  readHeaders,
  responses,
  SecuredPartyGroup,
  SecuredPartyGroupRequest,
  TransactionList,
  TransactionQuery,
  transactionHeaders,
} from '../schemas.ts';
import { named } from './operation-names.ts';
import type { Processing } from './processing.ts';
import { JSON_ONLY, JSON_TYPE } from './support.ts';

export function accountRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  processing: Processing,
): void {
  organisationRoutes(plugin, context, processing);
  groupRoutes(plugin, context, processing);
  recordRoutes(plugin, context);
}

/** PPSR_44, PPSR_45: the customer organisation. */
function organisationRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);

  app.get(
    '/customer-organisation',
    declareOperation(
      {
        schema: {
          ...named('PPSR_44'),
          summary: 'The customer organisation the caller acts for',
          headers: readHeaders(),
          response: responses({ 200: CustomerOrganisation }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const { organisation, validators } = await customerOrganisation(context, { caller: request.caller });
      if (conditionalRead(request, reply, validators)) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(organisation));
    },
  );

  app.put(
    '/customer-organisation',
    declareOperation(
      {
        schema: {
          ...named('PPSR_45'),
          summary: 'Update the customer organisation’s email address (If-Match: its ETag)',
          headers: transactionHeaders(context.environment),
          body: CustomerOrganisationUpdate,
          response: responses({ 200: CustomerOrganisation }, { transaction: true, update: true }),
        },
      },
      { produces: JSON_ONLY, conditional: {} },
    ),
    async (request, reply) => {
      const admitted = await admitOrganisationUpdate(context, {
        caller: request.caller,
        email: request.body.email,
      });
      const input = { ...admitted, preconditions: preconditionsOf(request) };
      return processing.run(request, reply, {
        operation: 'PPSR_45',
        organisationId: admitted.organisationId,
        work: (client, transaction) => updateOrganisationEmail(context, input, { client, transaction }),
      });
    },
  );
}

/** PPSR_34: the secured party groups. */
function groupRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);

  app.post(
    '/secured-party-groups',
    declareOperation(
      {
        schema: {
          ...named('PPSR_34'),
          summary: 'Create a secured party group',
          headers: transactionHeaders(context.environment),
          body: SecuredPartyGroupRequest,
          response: responses({ 201: SecuredPartyGroup }, { transaction: true }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      const input = { organisationId, group: checkGroup(request.body) };
      return processing.run(request, reply, {
        operation: 'PPSR_34',
        organisationId,
        work: (client, transaction) => createGroup(context, input, { client, transaction }),
      });
    },
  );

  app.get(
    '/secured-party-groups',
    declareOperation(
      {
        schema: {
          ...named('PPSR_34_LIST'),
          summary: 'The secured party groups of the caller’s organisation',
          headers: readHeaders(),
          response: responses({ 200: GroupList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      return reply.type(JSON_TYPE).send(JSON.stringify(await groupsOf(context, { organisationId })));
    },
  );

  app.get(
    '/secured-party-groups/:securedPartyGroupId',
    declareOperation(
      {
        schema: {
          ...named('PPSR_34_GET'),
          summary: 'A secured party group of the caller’s organisation',
          params: GroupParams,
          headers: readHeaders(),
          response: responses({ 200: SecuredPartyGroup }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      const groupId = request.params.securedPartyGroupId;
      const { group, validators } = await readGroup(context, { organisationId, groupId });
      if (conditionalRead(request, reply, validators)) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(group));
    },
  );

  app.put(
    '/secured-party-groups/:securedPartyGroupId',
    declareOperation(
      {
        schema: {
          ...named('PPSR_34_UPDATE'),
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
      const organisationId = await organisationOf(context, request.caller);
      const groupId = request.params.securedPartyGroupId;
      const group = checkGroup(request.body);
      await admitGroupReplacement(context, { organisationId, groupId });
      const input = { organisationId, groupId, group, preconditions: preconditionsOf(request) };
      return processing.run(request, reply, {
        operation: 'PPSR_34_UPDATE',
        organisationId,
        work: (client, transaction) => replaceGroup(context, input, { client, transaction }),
      });
    },
  );

  app.delete(
    '/secured-party-groups/:securedPartyGroupId',
    declareOperation(
      {
        schema: {
          ...named('PPSR_34_DELETE'),
          summary: 'Delete a secured party group no financing statement names (ours; If-Match: its ETag)',
          params: GroupParams,
          headers: transactionHeaders(context.environment),
          response: {
            204: { description: 'Deleted' },
            ...responses({}, { transaction: true, update: true }),
          },
        },
      },
      { produces: JSON_ONLY, conditional: {} },
    ),
    async (request, reply) => {
      const organisationId = await organisationOf(context, request.caller);
      const groupId = request.params.securedPartyGroupId;
      await admitGroupReplacement(context, { organisationId, groupId });
      const input = { organisationId, groupId, preconditions: preconditionsOf(request) };
      return processing.run(request, reply, {
        operation: 'PPSR_34_DELETE',
        organisationId,
        work: (client, transaction) => deleteGroup(context, input, { client, transaction }),
      });
    },
  );
}

/** SEC_43, SEC_56: the fees and the transactions. */
function recordRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);

  app.get(
    '/customer-organisation-fees',
    declareOperation(
      {
        schema: {
          ...named('PPSR_43'),
          summary: 'The customer organisation’s fees for this register, newest first',
          querystring: FeeQuery,
          headers: readHeaders(),
          response: responses({ 200: FeeList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const { page, pageSize } = parsePage(query, FEE_PAGING);
      const fees = await feesOf(context, {
        caller: request.caller,
        page,
        pageSize,
        feeStatus: query['fee-status'] as 'Unbilled' | 'Invoiced' | undefined,
        requestId: query['request-id'],
        billingReference: query['billing-reference'],
      });
      return reply.type(JSON_TYPE).send(JSON.stringify(fees));
    },
  );

  app.get(
    '/customer-organisation-transactions',
    declareOperation(
      {
        schema: {
          ...named('PPSR_56'),
          summary:
            'Transactions by request id or billing reference, once completed or failed (never while processing)',
          querystring: TransactionQuery,
          headers: readHeaders(),
          response: responses({ 200: TransactionList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const transactions = await transactionsOf(context, {
        caller: request.caller,
        requestId: request.query['request-id'],
        billingReference: request.query['billing-reference'],
      });
      return reply.header('Cache-Control', 'no-cache').type(JSON_TYPE).send(JSON.stringify(transactions));
    },
  );
}
