/**
 * `rsg import disclose` and `rsg export disclose` (docs/formats/disclose.md): schemes, offers and funds
 * with every version, their participants, notices, documents (files beside the NDJSON) and filings, and
 * the holdings of fund versions, through the platform's transfer framework.
 *
 * Idempotent by identifier: a record as the register holds it changes nothing. A record whose versions
 * extend the register's gets the further versions as the file has them; one whose current content
 * differs otherwise gets one new version made at the import. What a record holds besides its versions
 * (participants, notices, documents, filing history; a fund's activities and documents) is set to the
 * file's. No filing is made, no activity computed, no fee charged: an import is a load.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TransferRegister } from '../../../platform/transfer/register.ts';
import { type DocumentFiles, documentFolder, folderDocumentFiles } from '../store/document-files.ts';
import {
  type DocumentFileRow,
  fundStates,
  fundVersionKey,
  holdingsOfVersions,
  holdingsVersionsAfter,
  numbersAfter,
  recordStates,
} from '../store/transfer.ts';
import { DiscloseImporter } from './importer.ts';
import {
  documentFile,
  documentsFolderOf,
  fundHoldingsLine,
  fundLine,
  recordLine,
  sha256,
} from './records.ts';

const PAGE = 200;

const documentsOption = { documents: { type: 'string', usage: '[--documents DIR]' } } as const;

/** The register's transfer; `files` gives the environment's document store (the configured one). */
export function discloseTransfer(
  files: (environment: 'sandbox' | 'production') => DocumentFiles = (environment) =>
    folderDocumentFiles(documentFolder(environment)),
): TransferRegister {
  return {
    name: 'disclose',
    records: 'schemes, offers, funds with versions, holdings; documents as files beside FILE',
    importOptions: documentsOption,
    exportOptions: documentsOption,
    importer: (session) => new DiscloseImporter(session, files(session.environment)),
    async exportAll({ database, environment, options, output, file }) {
      const named = options.documents;
      if (typeof named !== 'string' && !file)
        throw new Error('an export to standard output needs --documents DIR for the documents’ files');
      const folder = typeof named === 'string' ? named : documentsFolderOf(file!);
      mkdirSync(folder, { recursive: true });
      const store = files(environment);
      const pool = database.pool;
      /** Copies a record's documents beside the export; their digests. */
      const copy = async (documents: readonly DocumentFileRow[]) => {
        const digests = new Map<string, string>();
        for (const d of documents) {
          const bytes = await store.read(d.storageKey);
          if (!bytes) throw new Error(`document ${d.documentRecId}: its bytes are not in the document store`);
          const line = documentFileLine(d, bytes);
          writeFileSync(path.join(folder, line.file), bytes);
          digests.set(d.documentRecId, line.sha256);
        }
        return digests;
      };
      let count = 0;
      for (const kind of ['scheme', 'offer'] as const) {
        let after = '';
        for (;;) {
          const numbers = await numbersAfter(pool, kind, after, PAGE);
          for (const state of await recordStates(pool, kind, numbers))
            await output.write(recordLine(kind, state, await copy(state.documents)));
          count += numbers.length;
          if (numbers.length < PAGE) break;
          after = numbers.at(-1)!;
        }
      }
      let after = '';
      for (;;) {
        const numbers = await numbersAfter(pool, 'fund', after, PAGE);
        for (const state of await fundStates(pool, numbers))
          await output.write(fundLine(state, await copy(state.documents)));
        count += numbers.length;
        if (numbers.length < PAGE) break;
        after = numbers.at(-1)!;
      }
      let from = { fundNumber: '', version: 0 };
      for (;;) {
        const held = await holdingsVersionsAfter(pool, from, PAGE);
        const rows = await holdingsOfVersions(pool, held);
        for (const h of held)
          await output.write(fundHoldingsLine(h.fundNumber, h.version, rows.get(fundVersionKey(h)) ?? []));
        count += held.length;
        if (held.length < PAGE) break;
        from = held.at(-1)!;
      }
      return count;
    },
  };
}

const documentFileLine = (d: DocumentFileRow, bytes: Buffer) => ({
  file: documentFile(d.documentRecId, d.fileName),
  sha256: sha256(bytes),
});
