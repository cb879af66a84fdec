/**
 * Financing statements: register (PPSR_17), get (PPSR_01), amend (PPSR_03), renew, discharge, versions
 * (PPSR_55), the statements of a search or group (PPSR_40), discharged in a date range (PPSR_38). What
 * each does is `operations/statements.ts` and `operations/statement-lists.ts`.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import {
  conditionalRead,
  declareOperation,
  preconditionsOf,
  typed,
} from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import {
  admitChange,
  CHANGES,
  changeStatement,
  type StatementChange,
} from '../operations/statement-changes.ts';
import { dischargedStatements, statementsOf } from '../operations/statement-lists.ts';
import {
  readStatement,
  readVerificationStatements,
  readVersions,
  registerStatement,
} from '../operations/statements.ts';
import {
  organisationOf,
  payingOrganisationOf,
  type ReadAccess,
  readerOrganisationOf,
  registrationNumberParam,
} from '../operations/support.ts';
import {
  AmendmentRequest,
  DISCHARGED_PAGING,
  DischargedQuery,
  FinancingStatement,
  RegistrationAnswer,
  RegistrationNumberParams,
  RegistrationRequest,
  RenewalRequest,
  readHeaders,
  responses,
  STATEMENT_PAGING,
  StatementList,
  StatementListQuery,
  statementReadHeaders,
  transactionHeaders,
  VerificationStatementList,
  VersionList,
} from '../schemas.ts';
import { named, type OperationName } from './operation-names.ts';
import type { Processing } from './processing.ts';
import { debtorPinOf, JSON_ONLY, JSON_TYPE, pinOf } from './support.ts';

/** Who reads a whole statement: the organisation they act for, the PINs they send. */
async function readAccessOf(context: ServiceContext, request: FastifyRequest): Promise<ReadAccess> {
  return {
    organisationId: await readerOrganisationOf(context, request.caller),
    pin: pinOf(request),
    debtorPin: debtorPinOf(request),
  };
}

/** The body of a change that takes none (the discharge): nothing, or an empty object. */
const NO_BODY = Type.Unsafe<Record<string, never> | null>({
  type: ['object', 'null'],
  additionalProperties: Type.Never(),
  description: 'No body: the change takes none (an empty object is accepted)',
  examples: [{}],
});

export function statementRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  processing: Processing,
): void {
  registrationRoutes(plugin, context, processing);
  changeRoutes(plugin, context, processing);
  listRoutes(plugin, context);
}

/** PPSR_17, PPSR_01: register a statement, read one. */
function registrationRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  const app = typed(plugin);

  app.post(
    '/financing-statements',
    declareOperation(
      {
        schema: {
          ...named('PPSR_17'),
          summary: 'Register a financing statement (fee-bearing)',
          headers: transactionHeaders(context.environment),
          body: RegistrationRequest,
          response: responses({ 201: RegistrationAnswer }, { transaction: true }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      // Who pays and their direct debit authority, before the transaction is received: a refusal is
      // not kept under the request id and consumes nothing.
      const organisationId = await payingOrganisationOf(context, request.caller);
      const input = { organisationId, caller: request.caller, registration: request.body };
      return processing.run(request, reply, {
        operation: 'PPSR_17',
        organisationId,
        work: (client, transaction) => registerStatement(context, input, { client, transaction }),
      });
    },
  );

  app.get(
    '/financing-statements/:registrationNumber',
    declareOperation(
      {
        schema: {
          ...named('PPSR_01'),
          summary:
            'Get a financing statement by its registration number (its organisation, or with its PIN or debtor PIN)',
          params: RegistrationNumberParams,
          headers: statementReadHeaders(),
          response: responses({ 200: FinancingStatement }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const registrationNumber = registrationNumberParam(request.params.registrationNumber);
      const access = await readAccessOf(context, request);
      const { statement, validators } = await readStatement(context, { registrationNumber, access });
      if (conditionalRead(request, reply, validators)) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(statement));
    },
  );

  /** A change to a statement in force (operations/statements.ts `changeStatement`). */
}

/** PPSR_03, renew, discharge: the changes to a statement in force. */
function changeRoutes(plugin: FastifyInstance, context: ServiceContext, processing: Processing): void {
  function change(
    kind: StatementChange['kind'],
    path: string,
    summary: string,
    body: typeof AmendmentRequest | typeof RenewalRequest | undefined,
    changeOf: (body: Record<string, unknown>) => StatementChange,
  ): void {
    const { operation, feeCode } = CHANGES[kind];
    plugin.put<{ Params: { registrationNumber: string }; Body: Record<string, unknown> }>(
      path,
      declareOperation(
        {
          schema: {
            ...named(operation as OperationName),
            summary,
            params: RegistrationNumberParams,
            headers: transactionHeaders(context.environment, { change: true }),
            body: body ?? NO_BODY,
            response: responses({ 200: FinancingStatement }, { transaction: true, update: true }),
          },
        },
        { produces: JSON_ONLY, conditional: {} },
      ),
      async (request, reply) => {
        const registrationNumber = registrationNumberParam(request.params.registrationNumber);
        const organisationId = feeCode
          ? await payingOrganisationOf(context, request.caller)
          : await organisationOf(context, request.caller);
        const pin = pinOf(request);
        await admitChange(context, { registrationNumber, organisationId, pin });
        const input = {
          registrationNumber,
          organisationId,
          pin,
          caller: request.caller,
          preconditions: preconditionsOf(request),
        };
        return processing.run(request, reply, {
          operation,
          organisationId,
          work: (client, transaction) =>
            changeStatement(
              context,
              { ...input, change: changeOf(request.body ?? {}) },
              { client, transaction },
            ),
        });
      },
    );
  }

  change(
    'amend',
    '/financing-statements/:registrationNumber',
    'Amend a financing statement (If-Match: its ETag)',
    AmendmentRequest,
    (body) => ({ kind: 'amend', amendment: body as AmendmentRequest }),
  );
  change(
    'renew',
    '/financing-statements/:registrationNumber/renew',
    'Renew a financing statement (fee-bearing): at most five years from today',
    RenewalRequest,
    (body) => ({ kind: 'renew', expiryDate: (body as { expiryDate?: string }).expiryDate }),
  );
  change(
    'discharge',
    '/financing-statements/:registrationNumber/discharge',
    'Discharge a financing statement (final)',
    undefined,
    () => ({ kind: 'discharge' }),
  );
}

/** PPSR_55, PPSR_40, PPSR_38: a statement's versions, lists of statements. */
function listRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);

  app.get(
    '/financing-statements/:registrationNumber/versions',
    declareOperation(
      {
        schema: {
          ...named('PPSR_55'),
          summary: 'Every version of a financing statement, oldest first (as PPSR_01: who may read it)',
          params: RegistrationNumberParams,
          headers: statementReadHeaders(),
          response: responses({ 200: VersionList }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const registrationNumber = registrationNumberParam(request.params.registrationNumber);
      const access = await readAccessOf(context, request);
      const list = await readVersions(context, { registrationNumber, access });
      if (conditionalRead(request, reply, list.validators)) return reply;
      return reply.type(JSON_TYPE).send(JSON.stringify(await list.versions()));
    },
  );

  app.get(
    '/financing-statements/:registrationNumber/verification-statements',
    declareOperation(
      {
        schema: {
          ...named('PPSR_55_VERIFICATION'),
          summary:
            'The verification statements of a financing statement, as mailed (ours; as PPSR_01: who may read it)',
          params: RegistrationNumberParams,
          headers: statementReadHeaders(),
          response: responses({ 200: VerificationStatementList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const registrationNumber = registrationNumberParam(request.params.registrationNumber);
      const access = await readAccessOf(context, request);
      const list = await readVerificationStatements(context, { registrationNumber, access });
      return reply.type(JSON_TYPE).send(JSON.stringify(list));
    },
  );

  app.get(
    '/financing-statements',
    declareOperation(
      {
        schema: {
          ...named('PPSR_40'),
          summary: 'The financing statements of an earlier search (search-id) or of a secured party group',
          querystring: StatementListQuery,
          headers: readHeaders(),
          response: responses({ 200: StatementList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const organisationId = await organisationOf(context, request.caller);
      const paged = parsePage(query, STATEMENT_PAGING);
      const list = await statementsOf(context, {
        organisationId,
        searchId: query['search-id'],
        groupId: query['secured-party-group-id'],
        ...paged,
      });
      return reply.type(JSON_TYPE).send(JSON.stringify(list));
    },
  );

  app.get(
    '/discharged-financing-statements',
    declareOperation(
      {
        schema: {
          ...named('PPSR_38'),
          summary:
            'Your organisation’s financing statements discharged in a date range (pages of at most 100, at most 50,000 results)',
          querystring: DischargedQuery,
          headers: readHeaders(),
          response: responses({ 200: StatementList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const list = await dischargedStatements(context, {
        organisationId: await organisationOf(context, request.caller),
        startDate: query['start-date'],
        endDate: query['end-date'],
        ...parsePage(query, DISCHARGED_PAGING),
      });
      return reply.type(JSON_TYPE).send(JSON.stringify(list));
    },
  );
}
