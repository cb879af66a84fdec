/**
 * Financing statements: register (PPSR_17), get (PPSR_01), amend (PPSR_03), renew, discharge, versions
 * (PPSR_55), the statements of a search or group (PPSR_40), discharged in a date range (PPSR_38).
 */

import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { addDays, parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import {
  conditionalRead,
  conditionalWrite,
  declareOperation,
  typed,
} from '../../../platform/http/operation.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { nzLocalToEpoch } from '../../../platform/nz-time.ts';
import { type Collateral, checkCollaterals } from '../domain/collateral.ts';
import { expiryDate, renewedExpiryDate } from '../domain/dates.ts';
import {
  businessNumbersOf,
  checkDebtors,
  checkSecuredParties,
  type Debtor,
  type SecuredParty,
} from '../domain/parties.ts';
import { pinVerifier } from '../domain/pin-verifiers.ts';
import { pinFrom, registrationNumberFrom } from '../domain/registration-number.ts';
import { checkSearchId } from '../domain/search.ts';
import { PPSR_ERRORS } from '../errors.ts';
import {
  AmendmentRequest,
  DISCHARGED_PAGING,
  DischargedQuery,
  FinancingStatement,
  RegistrationAnswer,
  RegistrationNumberParams,
  RegistrationRequest,
  RenewalRequest,
  responses,
  STATEMENT_PAGING,
  StatementList,
  StatementListQuery,
  transactionHeaders,
  VersionList,
} from '../schemas.ts';
import { getGroup } from '../store/account.ts';
import { getSearch } from '../store/searches.ts';
import {
  type Change,
  dischargedBetween,
  getStatement,
  getStatements,
  insertStatement,
  listVersions,
  rehashPin,
  type StatementDocument,
  type StatementRow,
  statementsOfGroup,
  writeVersion,
} from '../store/statements.ts';
import { queueVerificationStatements } from '../store/verification.ts';
import type { Processing } from './processing.ts';
import {
  chargeFee,
  JSON_ONLY,
  organisationOf,
  payingOrganisationOf,
  present,
  registrationNumberParam,
  requireRightToChange,
  statementNotFound,
  statementValidators,
  today,
  versionListValidators,
} from './support.ts';

/** Published: PPSR_38 answers at most 50,000 results in all. */
const DISCHARGED_CAP = 50_000;
/** The body of a change that takes none (the discharge): nothing, or an empty object. */
const NO_BODY = Type.Unsafe<Record<string, never> | null>({
  type: ['object', 'null'],
  additionalProperties: Type.Never(),
  description: 'No body: the change takes none (an empty object is accepted)',
  examples: [{}],
});

/** Business numbers of organisation debtors must be in the business number register of this environment. */
async function checkBusinessNumbers(context: ServiceContext, debtors: readonly Debtor[]): Promise<void> {
  const register = context.registers.businessNumbers;
  if (!register) return;
  const numbers = businessNumbersOf(debtors);
  for (const [i, debtor] of debtors.entries()) {
    if (debtor.debtorType !== 'organisation' || !debtor.nzbn) continue;
    if (!numbers.includes(debtor.nzbn)) continue;
    const entity = await register.find(debtor.nzbn);
    if (!entity) {
      throw new RuleError(`debtors.${i}.nzbn`, `is not in the business number register (${debtor.nzbn})`);
    }
  }
}

/** The secured parties of a registration: listed, or the group's (of the caller's organisation). */
async function securedPartiesOf(
  client: pg.PoolClient,
  body: { securedParties?: SecuredParty[] | undefined; securedPartyGroupId?: string | undefined },
  organisationId: string,
): Promise<{ parties: SecuredParty[]; groupId: string | null }> {
  if (body.securedPartyGroupId !== undefined) {
    if (body.securedParties !== undefined) {
      throw new RuleError('securedParties', 'must be left out when securedPartyGroupId is given');
    }
    const group = await getGroup(client, body.securedPartyGroupId);
    if (!group || group.organisationId !== organisationId) {
      throw new RuleError('securedPartyGroupId', 'is not a secured party group of your organisation');
    }
    return { parties: group.securedParties, groupId: group.securedPartyGroupId };
  }
  return { parties: checkSecuredParties(body.securedParties ?? []), groupId: null };
}

const VERB: Record<Change, string> = {
  Registered: 'registered',
  Amended: 'amended',
  Renewed: 'renewed',
  Discharged: 'discharged',
};

/** The verification statements of a change: one to each secured party of the new version. */
function verificationOf(row: StatementRow, change: Change) {
  return row.document.securedParties.map((party) => ({
    registrationNumber: row.registrationNumber,
    version: row.version,
    change,
    to: party.email,
    subject: `Verification statement: financing statement ${row.registrationNumber} ${VERB[change]}`,
    text: [
      `Dear ${party.name},`,
      '',
      `Financing statement ${row.registrationNumber} was ${VERB[change]} on the secured interests register; this is version ${row.version}.`,
      `Expiry date: ${row.expiryDate}.`,
      `Debtors: ${row.document.debtors.map((d) => (d.debtorType === 'organisation' ? d.organisationName : `${d.firstName} ${d.lastName}`)).join('; ')}.`,
      `Collateral: ${row.document.collaterals.map((c) => c.collateralType).join(', ')}.`,
      '',
      'If you did not expect this change, contact the registering organisation at once.',
    ].join('\n'),
  }));
}

async function verify(client: pg.PoolClient, row: StatementRow, change: Change, now: Date): Promise<void> {
  await queueVerificationStatements(client, verificationOf(row, change), now);
}

/** A statement's ETag and Last-Modified, as headers of a write's answer (kept with it for repeats). */
function validatorHeaders(row: StatementRow): Record<string, string> {
  const validators = statementValidators(row);
  return { ETag: validators.etag, 'Last-Modified': validators.lastModified.toUTCString() };
}

export function statementRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  processing: Processing,
): void {
  const app = typed(plugin);
  const pool = context.database.pool;
  const year = () => Number(today(context).slice(0, 4));

  app.post(
    '/financing-statements',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_17',
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
      const organisationId = await payingOrganisationOf(context, request);
      const body = request.body;
      return processing.run(request, reply, {
        operation: 'PPSR_17',
        organisationId,
        async work(client, transaction) {
          const now = context.clock.now();
          const day = today(context);
          const debtors = checkDebtors(body.debtors as Debtor[], day);
          const collaterals = checkCollaterals(body.collaterals as Collateral[], year());
          const expiry = expiryDate(day, body.expiryDate);
          const { parties, groupId } = await securedPartiesOf(client, body, organisationId);
          await checkBusinessNumbers(context, debtors);
          const document: StatementDocument = { debtors, securedParties: parties, collaterals };
          const pin = pinFrom(randomBytes(8));
          const debtorPin = pinFrom(randomBytes(8));
          const verifier = pinVerifier(context.serverKeys, pin);
          const debtorVerifier = pinVerifier(context.serverKeys, debtorPin);
          // The statement, its first version, its search keys and its verification statements in one
          // statement; a registration number already taken (never seen in practice) draws another.
          let row: StatementRow;
          do {
            row = {
              registrationNumber: registrationNumberFrom(randomBytes(16)),
              organisationId,
              securedPartyGroupId: groupId,
              registeredAt: now,
              expiryDate: expiry,
              dischargedAt: null,
              version: 1,
              changedAt: now,
              document,
              pinHash: verifier.hash,
              pinKeyIds: verifier.keyIds,
            };
          } while (
            !(await insertStatement(client, {
              registrationNumber: row.registrationNumber,
              organisationId,
              securedPartyGroupId: groupId,
              registeredAt: now,
              expiryDate: expiry,
              pinHash: verifier.hash,
              pinKeyIds: verifier.keyIds,
              debtorPinHash: debtorVerifier.hash,
              debtorPinKeyIds: debtorVerifier.keyIds,
              document,
              transactionId: transaction.id,
              verificationStatements: verificationOf(row, 'Registered'),
            }))
          );
          const registrationNumber = row.registrationNumber;
          const fee = await chargeFee(context, client, transaction, {
            operation: 'PPSR_17',
            feeCode: 'PPSR_REGISTRATION',
            caller: request.caller,
            object: { kind: 'financing-statement', id: registrationNumber },
          });
          return {
            httpStatus: 201,
            body: { ...present(row, day), financingStatementPin: pin, debtorPin },
            headers: { ...validatorHeaders(row), Location: `financing-statements/${registrationNumber}` },
            registrationNumber,
            paymentSessionId: fee,
          };
        },
      });
    },
  );

  app.get(
    '/financing-statements/:registrationNumber',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_01',
          summary: 'Get a financing statement by its registration number',
          params: RegistrationNumberParams,
          response: responses({ 200: FinancingStatement }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const registrationNumber = registrationNumberParam(request.params.registrationNumber);
      const row = await getStatement(pool, registrationNumber);
      if (!row) throw statementNotFound(registrationNumber);
      if (conditionalRead(request, reply, statementValidators(row))) return reply;
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(present(row, today(context))));
    },
  );

  /**
   * A change to a statement in force: locked, checked (If-Match and If-Unmodified-Since, the right to
   * change), the next version.
   */
  function change(
    path: string,
    operation: string,
    summary: string,
    body: typeof AmendmentRequest | typeof RenewalRequest | undefined,
    /** The operation's fee code, if it bears one. */
    fee: string | undefined,
    next: (
      current: StatementRow,
      input: Record<string, unknown>,
      day: string,
    ) => {
      change: Exclude<Change, 'Registered'>;
      expiryDate: string;
      document: StatementDocument;
    },
  ): void {
    plugin.put<{ Params: { registrationNumber: string }; Body: Record<string, unknown> }>(
      path,
      declareOperation(
        {
          schema: {
            operationId: operation,
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
        const organisationId = fee
          ? await payingOrganisationOf(context, request)
          : await organisationOf(context, request);
        // A statement that does not exist, or that this organisation may not change, is refused before
        // the transaction is recorded (the work checks again under the row's lock).
        const existing = await getStatement(pool, registrationNumber);
        if (!existing) throw statementNotFound(registrationNumber);
        const rehash = requireRightToChange(context, request, existing, organisationId);
        // A PIN that matched a verifier of an old form or key: its verifier is made with the current key.
        if (rehash) await rehashPin(pool, registrationNumber, existing.pinKeyIds, rehash);
        return processing.run(request, reply, {
          operation,
          organisationId,
          async work(client, transaction) {
            const now = context.clock.now();
            const day = today(context);
            const current = await getStatement(client, registrationNumber, { forUpdate: true });
            if (!current) throw statementNotFound(registrationNumber);
            checkStatementPreconditions(request, current);
            requireRightToChange(context, request, current, organisationId);
            if (current.dischargedAt || current.expiryDate < day) {
              throw new HttpError(
                PPSR_ERRORS.statementNotInForce,
                `Financing statement ${registrationNumber} is ${current.dischargedAt ? 'discharged' : 'expired'}: it can no longer be changed.`,
              );
            }
            const planned = next(current, request.body ?? {}, day);
            const row = await writeVersion(client, current, {
              ...planned,
              at: now,
              transactionId: transaction.id,
            });
            const paymentSessionId = fee
              ? await chargeFee(context, client, transaction, {
                  operation,
                  feeCode: fee,
                  caller: request.caller,
                  object: { kind: 'financing-statement', id: registrationNumber },
                })
              : null;
            await verify(client, row, planned.change, now);
            return {
              httpStatus: 200,
              body: present(row, day),
              headers: validatorHeaders(row),
              registrationNumber,
              paymentSessionId,
            };
          },
        });
      },
    );
  }

  change(
    '/financing-statements/:registrationNumber',
    'PPSR_03',
    'Amend a financing statement (If-Match: its ETag)',
    AmendmentRequest,
    undefined,
    (current, input, day) => {
      const body = input as AmendmentRequest;
      const debtors = checkDebtors(body.debtors as Debtor[], day);
      const collaterals = checkCollaterals(
        body.collaterals as Collateral[],
        Number(day.slice(0, 4)),
        current.document.collaterals,
      );
      const securedParties =
        body.securedParties === undefined
          ? current.document.securedParties
          : checkSecuredParties(body.securedParties);
      return {
        change: 'Amended',
        expiryDate: current.expiryDate,
        document: { debtors, securedParties, collaterals },
      };
    },
  );
  change(
    '/financing-statements/:registrationNumber/renew',
    'PPSR_RENEW',
    'Renew a financing statement (fee-bearing): at most five years from today',
    RenewalRequest,
    'PPSR_RENEWAL',
    (current, input, day) => ({
      change: 'Renewed',
      expiryDate: renewedExpiryDate(day, current.expiryDate, (input as { expiryDate?: string }).expiryDate),
      document: current.document,
    }),
  );
  change(
    '/financing-statements/:registrationNumber/discharge',
    'PPSR_DISCHARGE',
    'Discharge a financing statement (final)',
    undefined,
    undefined,
    (current) => ({ change: 'Discharged', expiryDate: current.expiryDate, document: current.document }),
  );

  app.get(
    '/financing-statements/:registrationNumber/versions',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_55',
          summary: 'Every version of a financing statement, oldest first',
          params: RegistrationNumberParams,
          response: responses({ 200: VersionList }, { conditional: true }),
        },
      },
      { produces: JSON_ONLY, conditional: 'read' },
    ),
    async (request, reply) => {
      const registrationNumber = registrationNumberParam(request.params.registrationNumber);
      const row = await getStatement(pool, registrationNumber);
      if (!row) throw statementNotFound(registrationNumber);
      const day = today(context);
      if (conditionalRead(request, reply, versionListValidators(row, day))) return reply;
      const versions = (await listVersions(pool, registrationNumber)).map((v) => ({
        ...present(
          {
            ...row,
            version: v.version,
            expiryDate: v.expiryDate,
            dischargedAt: v.change === 'Discharged' ? v.changedAt : null,
            document: v.document,
          },
          day,
        ),
        // A version shows the status it had when it was current (superseded versions were registered).
        ...(v.version < row.version ? { status: 'Registered' } : {}),
        change: v.change,
      }));
      return reply
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ registrationNumber, versions }));
    },
  );

  app.get(
    '/financing-statements',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_40',
          summary: 'The financing statements of an earlier search (search-id) or of a secured party group',
          querystring: StatementListQuery,
          response: responses({ 200: StatementList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const organisationId = await organisationOf(context, request);
      const { page, pageSize, offset } = parsePage(query, STATEMENT_PAGING);
      const searchId = query['search-id'];
      const groupId = query['secured-party-group-id'];
      if ((searchId === undefined) === (groupId === undefined)) {
        throw new RuleError('search-id', 'give exactly one of search-id and secured-party-group-id');
      }
      let total: number;
      let rows: StatementRow[];
      if (searchId !== undefined) {
        const search = await getSearch(pool, organisationId, checkSearchId(searchId, 'search-id'));
        if (!search) throw new RuleError('search-id', 'is not a search of your organisation');
        total = search.results.length;
        rows = await getStatements(pool, search.results.slice(offset, offset + pageSize));
      } else {
        const group = await getGroup(pool, groupId!);
        if (!group || group.organisationId !== organisationId) {
          throw new RuleError('secured-party-group-id', 'is not a secured party group of your organisation');
        }
        ({ total, rows } = await statementsOfGroup(pool, group.securedPartyGroupId, {
          offset,
          limit: pageSize,
        }));
      }
      return sendStatementPage(reply, { total, page, pageSize, rows }, today(context));
    },
  );

  app.get(
    '/discharged-financing-statements',
    declareOperation(
      {
        schema: {
          operationId: 'PPSR_38',
          summary:
            'Financing statements discharged in a date range (pages of at most 100, at most 50,000 results)',
          querystring: DischargedQuery,
          response: responses({ 200: StatementList }),
        },
      },
      { produces: JSON_ONLY },
    ),
    async (request, reply) => {
      const query = request.query;
      const dayOf = (value: string, field: string) => {
        const parsed = parseDate(value);
        if (!parsed) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
        return parsed;
      };
      const start = dayOf(query['start-date'], 'start-date');
      dayOf(query['end-date'], 'end-date');
      if (query['end-date'] < query['start-date'])
        throw new RuleError('end-date', 'must not be before start-date');
      const { page, pageSize, offset } = parsePage(query, DISCHARGED_PAGING);
      if (offset >= DISCHARGED_CAP) {
        throw new RuleError('page', `must start within the first ${DISCHARGED_CAP} results`);
      }
      // From the first day's New Zealand midnight to the midnight after the last day.
      const from = new Date(nzLocalToEpoch(start.year, start.month, start.day));
      const after = parseDate(addDays(query['end-date'], 1))!;
      const to = new Date(nzLocalToEpoch(after.year, after.month, after.day));
      const { total, rows } = await dischargedBetween(pool, from, to, {
        offset,
        limit: Math.min(pageSize, DISCHARGED_CAP - offset),
        cap: DISCHARGED_CAP,
      });
      return sendStatementPage(reply, { total, page, pageSize, rows }, today(context));
    },
  );
}

/** A page of statements (PPSR_40, PPSR_38), each with its status on `day`. */
function sendStatementPage(
  reply: FastifyReply,
  list: { total: number; page: number; pageSize: number; rows: StatementRow[] },
  day: string,
) {
  return reply.type('application/json; charset=utf-8').send(
    JSON.stringify({
      totalResults: list.total,
      page: list.page,
      pageSize: list.pageSize,
      financingStatements: list.rows.map((row) => present(row, day)),
    }),
  );
}

/**
 * A change's preconditions against the statement as it stands, under its lock: If-Match and
 * If-Unmodified-Since (412 naming the version it is at, nothing written).
 */
function checkStatementPreconditions(request: FastifyRequest, current: StatementRow): void {
  const validators = statementValidators(current);
  conditionalWrite(
    request,
    validators,
    () =>
      new HttpError(
        PLATFORM_ERRORS.preconditionFailed,
        `Precondition Failed: financing statement ${current.registrationNumber} has changed; it is at version ${current.version} (ETag ${validators.etag}, Last-Modified ${validators.lastModified.toUTCString()}).`,
      ),
  );
}
