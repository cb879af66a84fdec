/**
 * NZBN_004_13: a company's filings (the published EntitiesFilingsSearchResponse of Filing), oldest
 * first: the sandbox generator's (its registration, annual returns, director changes …; sandbox/filings.ts)
 * and those made through NZBN_905, each with its documents as published Documents whose signed URLs are
 * made for the caller. Filings are public, as the companies register's are. The definition publishes no
 * 404 for this search: a business number no entity has answers an empty list (a malformed one is 400).
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { formatNzDateTime, parseNzDateTime } from '../../../platform/nz-time.ts';
import {
  byRegistration,
  type FilingCode,
  type FilingRecord,
  type PublishedFiling,
  publishedFiling,
} from '../domain/filings.ts';
import { filingsOf } from '../store/filings.ts';
import { generatedFilings, publishedDocument } from './document-links.ts';
import { entityView, loadEntity, type NzbnContext, nzbnParam } from './support.ts';

export async function listFilings(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<{ items: PublishedFiling[] }> {
  const nzbn = nzbnParam(input.nzbn);
  const stored = await loadEntity(context, nzbn).catch((error: unknown) => {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  });
  if (!stored) return { items: [] };
  const entity = entityView(stored, false);
  const made = await filingsOf(context.database.pool, nzbn);
  const records: (FilingRecord & { at: number })[] = [
    ...generatedFilings(context, nzbn),
    ...made.map((filing) => ({
      filingId: filing.filingId,
      filingCode: filing.filingCode as FilingCode,
      registrationDate: formatNzDateTime(filing.registrationDate.getTime()),
      attachments: [
        { documentId: filing.documentId, documentType: filing.documentType ?? filing.filingCode },
      ],
    })),
  ].map((record) => ({ ...record, at: parseNzDateTime(record.registrationDate)! }));
  const items = records.sort(byRegistration).map((record) =>
    publishedFiling(
      record,
      record.attachments.map((attachment) => publishedDocument(context, input.caller, attachment)),
      entity.entityStatusCode,
    ),
  );
  return { items };
}
