/**
 * `rsg import nzbn` and `rsg export nzbn` (docs/formats/nzbn.md) on the platform's transfer framework.
 *
 * Idempotent by business number: a line that says what the register holds changes nothing. A changed
 * entity becomes its next version (the replaced document kept, as every update keeps it); history
 * periods and organisation parts the register lacks are added, changed parts replaced. Every committed
 * transaction tells every process's entity cache to forget what it holds. Change events (the watchlists'
 * and the change event search's) only with `--emit-changes`: NEW for a new entity, one event per changed
 * part of a changed one. No fees.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../../platform/db/pool.ts';
import { documentFileName, documentsFolderFor } from '../../../platform/transfer/documents.ts';
import type { RecordImporter, TransferRegister } from '../../../platform/transfer/register.ts';
import { documentFilesOf } from '../operations/document-files.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { type EntityTransferRow, entitiesAfter } from '../store/transfer.ts';
import { bulkFileImporter } from './bulk-file.ts';
import { NzbnImporter } from './importer.ts';
import { entityLine } from './records.ts';

const PAGE = 500;

/** The register's transfer; `documents` makes the sandbox's generated entities' documents. */
export function nzbnTransfer(documents: DocumentSource): TransferRegister {
  return {
    name: 'nzbn',
    records: 'entities whole (private parts, roles, history, organisation parts, filings), or the bulk CSV',
    importOptions: {
      'bulk-csv': { type: 'boolean', usage: '[--bulk-csv]' },
      documents: { type: 'string', usage: '[--documents DIR]' },
    },
    exportOptions: { documents: { type: 'string', usage: '[--documents DIR]' } },
    refuseFiles: (files, options) => {
      const csv = files.find((file) => /\.csv(\.gz)?$/i.test(file));
      if (csv && options['bulk-csv'] !== true)
        return `${csv}: a CSV file; the register's monthly bulk CSV is imported with --bulk-csv (docs/formats/nzbn.md)`;
      return undefined;
    },
    importer: (session) =>
      session.options['bulk-csv'] === true
        ? (bulkFileImporter(session, documents) as RecordImporter<unknown>)
        : new NzbnImporter(session, documents),
    async exportAll({ database, output, options, file }) {
      const folder = documentsFolderFor(options.documents, file);
      let count = 0;
      let after = '';
      for (;;) {
        const rows = await entitiesAfter(database.pool, documents, after, PAGE);
        for (const row of rows) {
          await copyFilingDocuments(database, row, folder);
          await output.writeLine(entityLine(row));
        }
        count += rows.length;
        if (rows.length < PAGE) return count;
        after = rows.at(-1)!.stored.nzbn;
      }
    },
  };
}

/** A filing's document bytes into the documents folder beside the export. */
async function copyFilingDocuments(
  database: Database,
  row: EntityTransferRow,
  folder: string | undefined,
): Promise<void> {
  if (row.filings.length === 0) return;
  if (!folder)
    throw new Error('an export to standard output needs --documents DIR for the filings’ documents');
  mkdirSync(folder, { recursive: true });
  const store = documentFilesOf(database);
  for (const filing of row.filings) {
    const stored = await store.get(filing.storageId);
    if (!stored) throw new Error(`document ${filing.documentId}: its bytes are not in the document store`);
    const target = path.join(folder, documentFileName(filing.documentId, filing.fileName));
    await pipeline(stored.stream, createWriteStream(target));
  }
}
