/**
 * Search certificates (ours: their retrieval; published: every search yields one). A certificate lists
 * the criteria, the time, the searcher's organisation and the statements found as the search showed
 * them; its organisation reads it as JSON or as a PDF (`documents/certificate-pdf.ts`). Another
 * organisation's certificate is answered as one that does not exist.
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { getCertificate } from '../store/searches.ts';
import { getStatements } from '../store/statements.ts';
import { present, today } from './support.ts';

export const CERTIFICATE_NUMBER = /^SC[0-9]{10}$/;

/** A search certificate as the API shows it. */
export interface SearchCertificate {
  searchCertificateNumber: string;
  searchId: string;
  searchedDate: string;
  searchedUtcDate: string;
  searcher: { organisationId: string; name: string };
  criteria: { searchBy: string } & Record<string, unknown>;
  totalResults: number;
  financingStatements: ReturnType<typeof present>[];
}

/** The certificate `certificateNumber` of the organisation's searches. */
export async function readCertificate(
  context: ServiceContext,
  input: { organisationId: string; certificateNumber: string },
): Promise<SearchCertificate> {
  const number = input.certificateNumber.toUpperCase();
  if (!CERTIFICATE_NUMBER.test(number)) {
    throw new RuleError('certificateNumber', 'must be SC and 10 digits, e.g. SC0000000001');
  }
  const pool = context.database.pool;
  const row = await getCertificate(pool, input.organisationId, number);
  if (!row) {
    throw new HttpError(PLATFORM_ERRORS.notFound, `Your organisation has no search certificate ${number}.`);
  }
  // Searches made before the results were kept: the statements as they stand.
  const statements =
    (row.resultStatements as ReturnType<typeof present>[] | null) ??
    (await getStatements(pool, row.results)).map((statement) => present(statement, today(context)));
  const { kind, ...criterion } = row.criterion;
  return {
    searchCertificateNumber: row.certificateNumber,
    searchId: row.searchId,
    searchedDate: formatNzDateTime(row.searchedAt.getTime()),
    searchedUtcDate: row.searchedAt.toISOString(),
    searcher: { organisationId: row.organisationId, name: row.searcherName ?? row.organisationId },
    criteria: { searchBy: row.searchBy, criterion: kind, ...criterion },
    totalResults: row.results.length,
    financingStatements: statements,
  };
}
