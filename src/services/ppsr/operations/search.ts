/**
 * The search (PPSR_02): fee-bearing, a transaction, a search certificate and a `searchId`; later pages
 * of the same `searchId` are read from the search's snapshot, free (published).
 */
import { randomUUID } from 'node:crypto';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import {
  type CheckedSearch,
  checkPaging,
  checkSearchId,
  MAX_RESULTS,
  type SearchKind,
  type SearchRequest,
} from '../domain/search.ts';
import { lookupOf } from '../domain/search-keys.ts';
import { getSearch, insertSearch, type SearchRow } from '../store/searches.ts';
import { findInForce, getStatements } from '../store/statements.ts';
import { chargeFee, present, today } from './support.ts';
import type { Answer, InTransaction } from './transaction.ts';

const SEARCH_FEES: Record<SearchKind, string> = {
  debtorOrganisation: 'PPSR_SEARCH_DEBTOR_ORGANISATION',
  debtorPerson: 'PPSR_SEARCH_DEBTOR_PERSON',
  motorVehicle: 'PPSR_SEARCH_MOTOR_VEHICLE',
  aircraft: 'PPSR_SEARCH_SERIAL_NUMBER',
  registrationNumber: 'PPSR_SEARCH_REGISTRATION_NUMBER',
};

/** A page of a search's results, each statement with its status today. */
async function answer(context: ServiceContext, search: SearchRow, page: number, pageSize: number) {
  const offset = (page - 1) * pageSize;
  const rows = await getStatements(context.database.pool, search.results.slice(offset, offset + pageSize));
  const day = today(context);
  return {
    searchId: search.searchId,
    searchCertificateNumber: search.certificateNumber,
    totalResults: search.results.length,
    page,
    pageSize,
    financingStatements: rows.map((row) => present(row, day)),
  };
}

export type SearchPage = Awaited<ReturnType<typeof answer>>;

/**
 * A later page of an earlier search of the organisation (`searchId` in the request), from its snapshot:
 * free, no transaction.
 */
export async function searchPage(
  context: ServiceContext,
  input: { organisationId: string; request: SearchRequest & { searchId: string } },
): Promise<SearchPage> {
  const { page, pageSize } = checkPaging(input.request);
  const pool = context.database.pool;
  const search = await getSearch(pool, input.organisationId, checkSearchId(input.request.searchId));
  if (!search) throw new RuleError('searchId', 'is not a search of your organisation');
  return answer(context, search, page, pageSize);
}

/**
 * A new search (checked: domain/search.ts `checkSearch`): the statements in force it finds (at most
 * 300) kept as its snapshot with a certificate number, the fee by the kind of search, the first page.
 */
export async function searchStatements(
  context: ServiceContext,
  input: { organisationId: string; caller: Caller | undefined; search: CheckedSearch },
  { client, transaction }: InTransaction,
): Promise<Answer> {
  const checked = input.search;
  const searchedAt = context.clock.now();
  const day = today(context);
  const results = await findInForce(client, lookupOf(checked.criterion), day, MAX_RESULTS);
  // The certificate's: the statements as this search shows them, and the searcher's organisation.
  const found = await getStatements(client, results);
  const searcher = await context.identity.organisation(input.organisationId);
  const search = await insertSearch(client, {
    searchId: randomUUID(),
    organisationId: input.organisationId,
    searchBy: checked.searchBy,
    criterion: checked.criterion,
    searchedAt,
    results,
    transactionId: transaction.id,
    searcherName: searcher?.name ?? input.organisationId,
    resultStatements: found.map((row) => present(row, day)),
  });
  const paymentSessionId = await chargeFee(context, client, transaction, {
    operation: 'PPSR_02',
    feeCode: SEARCH_FEES[checked.searchBy],
    caller: input.caller,
    object: { kind: 'search', id: search.certificateNumber },
  });
  return {
    httpStatus: 200,
    body: await answer(context, search, checked.page, checked.pageSize),
    paymentSessionId,
  };
}
