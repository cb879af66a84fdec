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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { canonicalJson } from '../../../platform/transfer/canonical.ts';
import type {
  ImportSession,
  RecordImporter,
  TransferRegister,
  WriteCounts,
} from '../../../platform/transfer/register.ts';
import { type DocumentFiles, documentFolder, folderDocumentFiles } from '../store/document-files.ts';
import {
  type DocumentFileRow,
  documentsOfOthers,
  existingNumbers,
  type FundState,
  type FundVersionRow,
  fundStates,
  fundVersionExists,
  holdingsOf,
  holdingsVersionsAfter,
  insertVersions,
  numbersAfter,
  offerVersions,
  putFund,
  putRecordRow,
  type RecordKind,
  type RecordState,
  recordStates,
  replaceHoldings,
  replaceParts,
  type VersionRow,
} from '../store/transfer.ts';
import {
  checkRecord,
  type DiscloseRecord,
  type DocumentLine,
  documentFile,
  documentsFolderOf,
  type FundHoldingsLine,
  type FundLine,
  fundDocument,
  fundHoldingsLine,
  fundLine,
  fundVersionLine,
  type RecordLine,
  recordDocument,
  recordLine,
  sha256,
  versionOf,
} from './records.ts';

const PAGE = 200;
/** The change of a version an import makes when a record's current content differs. */
const AMENDED = {
  scheme: 'Scheme details amended',
  offer: 'Offer details amended',
  fund: 'Fund details amended',
};

const documentsOption = { documents: { type: 'string', usage: '[--documents DIR]' } } as const;

/** The register's transfer; `files` gives the environment's document store (the configured one). */
export function discloseTransfer(
  files: (environment: 'sandbox' | 'production') => DocumentFiles = (environment) =>
    folderDocumentFiles(documentFolder(environment)),
): TransferRegister {
  return {
    name: 'disclose',
    records: 'schemes, offers, funds with versions, holdings; documents as files in --documents DIR',
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
        for (const h of held)
          await output.write(
            fundHoldingsLine(h.fundNumber, h.version, await holdingsOf(pool, h.fundNumber, h.version)),
          );
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

/** Versions as lines, compared without their identifier, date and change: what a version says. */
const content = (v: Record<string, unknown>) => {
  const {
    versionId: _,
    versionDate: __,
    change: ___,
    offerVersionId: ____,
    holdingsPeriodEndDate: _h,
    holdingsVersionId: _v,
    ...rest
  } = v;
  return canonicalJson(rest);
};

/**
 * The versions a record will have: the file's when they extend the register's (the register's and the
 * further ones), else the register's and, when the current content differs, one made at `at`; whether
 * the file's history was taken.
 */
function nextVersions<V extends Record<string, unknown>>(
  stored: readonly V[],
  file: readonly V[],
): { extend: V[]; amend: V | undefined; adopted: boolean } {
  const same = (a: V, b: V) => canonicalJson(a) === canonicalJson(b);
  if (file.length >= stored.length && stored.every((v, i) => same(v, file[i]!)))
    return { extend: file.slice(stored.length), amend: undefined, adopted: true };
  const last = stored.at(-1);
  if (last && content(last) === content(file.at(-1)!))
    return { extend: [], amend: undefined, adopted: false };
  return { extend: [], amend: file.at(-1), adopted: false };
}

const latest = (...dates: Date[]) => new Date(Math.max(...dates.map((d) => d.getTime())));

class DiscloseImporter implements RecordImporter<DiscloseRecord> {
  private readonly folder: string;

  constructor(
    session: ImportSession,
    private readonly store: DocumentFiles,
  ) {
    const named = session.options.documents;
    this.folder = typeof named === 'string' ? named : documentsFolderOf(session.files[0]!);
  }

  check(value: unknown) {
    return checkRecord(value, this.folder);
  }

  async write(client: pg.PoolClient, records: readonly DiscloseRecord[]): Promise<WriteCounts> {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    for (const record of records) {
      const outcome =
        record.kind === 'fund'
          ? await this.writeFund(client, record.line)
          : record.kind === 'fundHoldings'
            ? await this.writeHoldings(client, record.line, record.version)
            : await this.writeRecord(client, record.kind, record.number, record.line);
      counts[outcome]++;
    }
    return counts;
  }

  /** The stored documents' digests (their bytes read from the store), by id. */
  private async digests(documents: readonly DocumentFileRow[]): Promise<Map<string, string>> {
    const digests = new Map<string, string>();
    for (const d of documents) {
      const bytes = await this.store.read(d.storageKey);
      digests.set(d.documentRecId, bytes ? sha256(bytes) : '');
    }
    return digests;
  }

  /**
   * The file's documents as rows: one the register holds with the same bytes keeps its storage key, a
   * new or changed one is put in the store under a key of its own (a rolled-back import leaves only
   * bytes nothing refers to).
   */
  private async documentRows(
    kind: RecordKind | 'fund',
    number: string,
    lines: readonly DocumentLine[],
    stored: readonly DocumentFileRow[],
    digests: ReadonlyMap<string, string>,
    client: pg.PoolClient,
  ): Promise<DocumentFileRow[]> {
    const ids = lines.map((d) => d.documentRecId);
    const others = ids.length > 0 ? await documentsOfOthers(client, kind, number, ids) : [];
    if (others.length > 0)
      throw new Error(`${kind} ${number}: ${others.join(', ')} belong to another record of the register`);
    const rows: DocumentFileRow[] = [];
    for (const d of lines) {
      const held = stored.find((s) => s.documentRecId === d.documentRecId);
      let storageKey = held && digests.get(d.documentRecId) === d.sha256 ? held.storageKey : undefined;
      if (!storageKey) {
        storageKey = `${d.documentRecId}-${d.sha256.slice(0, 16)}${path.extname(d.file)}`;
        await this.store.put(storageKey, readFileSync(path.join(this.folder, d.file)));
      }
      rows.push({
        documentRecId: d.documentRecId,
        documentType: d.documentType,
        noticeRecId: d.noticeRecId,
        title: d.title,
        fileName: d.fileName,
        contentType: d.contentType,
        sizeBytes: d.sizeBytes,
        storageKey,
        addedAt: new Date(d.addedDate),
      });
    }
    return rows;
  }

  private async writeRecord(
    client: pg.PoolClient,
    kind: RecordKind,
    number: string,
    line: RecordLine,
  ): Promise<keyof WriteCounts> {
    const stored: RecordState | undefined = (await recordStates(client, kind, [number]))[0];
    if (kind === 'offer') {
      const scheme = (line as Extract<RecordLine, { record: 'offer' }>).versions.at(-1)!.schemeNumber;
      if (scheme && !(await existingNumbers(client, 'scheme', [scheme])).has(scheme))
        throw new Error(
          `offer ${number}: scheme ${scheme} is neither in the file before it nor in the register`,
        );
    }
    const digests = stored ? await this.digests(stored.documents) : new Map<string, string>();
    const storedLine = stored ? recordLine(kind, stored, digests) : undefined;
    const storedVersions = (storedLine?.versions ?? []) as Record<string, unknown>[];
    const { extend, amend, adopted } = nextVersions(
      storedVersions,
      line.versions as Record<string, unknown>[],
    );
    const fileLastChanged = new Date(line.lastChangedDate);
    const added: VersionRow[] = extend.map((v) => ({
      version: versionOf(String(v.versionId), number)!,
      changedAt: new Date(String(v.versionDate)),
      change: String(v.change),
      document: recordDocument(kind, number, v as never),
    }));
    if (amend) {
      const previous = stored!.versions.at(-1)!;
      added.push({
        version: previous.version + 1,
        changedAt: latest(new Date(), new Date(previous.changedAt.getTime() + 1)),
        change: AMENDED[kind],
        document: recordDocument(kind, number, amend as never),
      });
    }
    const versions = [...(stored?.versions ?? []), ...added];
    const lastVersionAt = versions.at(-1)!.changedAt;
    const lastChanged = adopted
      ? latest(fileLastChanged, lastVersionAt)
      : latest(stored!.lastChanged, fileLastChanged, lastVersionAt);
    const next: RecordState = {
      number,
      lastChanged,
      versions,
      participants: line.participants,
      notices: line.notices.map((n) => ({ ...n, recordedAt: new Date(n.recordedDate) })),
      documents: line.documents.map((d) => ({
        ...d,
        storageKey: '',
        addedAt: new Date(d.addedDate),
      })),
      filings: line.filingHistory.map((f) => ({ ...f, filedAt: new Date(f.filedDate) })),
    };
    const fileDigests = new Map(line.documents.map((d) => [d.documentRecId, d.sha256]));
    if (storedLine && canonicalJson(recordLine(kind, next, fileDigests)) === canonicalJson(storedLine))
      return 'unchanged';
    const documents = await this.documentRows(
      kind,
      number,
      line.documents,
      stored?.documents ?? [],
      digests,
      client,
    );
    const current = versions.at(-1)!.document;
    const company = (kind === 'scheme' ? current.manager : current.issuer) as {
      name: string;
      nzbn: string | null;
    };
    const supervisor = (current.supervisor ?? null) as { name: string; nzbn: string | null } | null;
    await putRecordRow(client, kind, {
      number,
      schemeNumber: kind === 'offer' ? ((current.schemeNumber as string | null) ?? null) : null,
      name: String(current.name),
      status: String(current.status),
      type: String(kind === 'scheme' ? current.schemeType : current.productType),
      companyName: company.name,
      companyNzbn: company.nzbn,
      supervisorName: supervisor?.name ?? null,
      supervisorNzbn: supervisor?.nzbn ?? null,
      openDate: (current.openDate as string | null | undefined) ?? null,
      closeDate: (current.closeDate as string | null | undefined) ?? null,
      version: versions.length,
      firstRegistered: versions[0]!.changedAt,
      lastChanged,
    });
    await insertVersions(client, kind, number, added);
    await replaceParts(client, kind, number, { ...next, documents });
    return stored ? 'updated' : 'inserted';
  }

  private async writeFund(client: pg.PoolClient, line: FundLine): Promise<keyof WriteCounts> {
    const number = line.fundNumber;
    const offers = await offerVersions(client, [line.offerNumber]);
    const offerVersion = offers.get(line.offerNumber);
    if (offerVersion === undefined)
      throw new Error(
        `fund ${number}: offer ${line.offerNumber} is neither in the file before it nor in the register`,
      );
    const stored: FundState | undefined = (await fundStates(client, [number]))[0];
    const digests = stored ? await this.digests(stored.documents) : new Map<string, string>();
    const storedLine = stored ? fundLine(stored, digests) : undefined;
    // Versions compared as lines of the file's offer (a fund moved to another offer keeps its history).
    const storedVersions = (stored?.versions ?? []).map((v) => fundVersionLine(number, line.offerNumber, v));
    const { extend, amend, adopted } = nextVersions(
      storedVersions as Record<string, unknown>[],
      line.versions as Record<string, unknown>[],
    );
    const added: FundVersionRow[] = extend.map((v) => {
      const version = v as FundLine['versions'][number];
      return {
        version: versionOf(version.versionId, number)!,
        offerVersion: versionOf(version.offerVersionId, line.offerNumber)!,
        changedAt: new Date(version.versionDate),
        change: version.change,
        document: fundDocument(number, version),
        holdingsVersion:
          version.holdingsVersionId === null ? null : versionOf(version.holdingsVersionId, number)!,
        holdingsPeriodEnd: version.holdingsPeriodEndDate,
      };
    });
    if (amend) {
      const previous = stored!.versions.at(-1)!;
      added.push({
        version: previous.version + 1,
        offerVersion,
        changedAt: latest(new Date(), new Date(previous.changedAt.getTime() + 1)),
        change: AMENDED.fund,
        document: fundDocument(number, amend as FundLine['versions'][number]),
        // The holdings stay those of the register's last version (a holdings line brings others).
        holdingsVersion: previous.holdingsVersion,
        holdingsPeriodEnd: previous.holdingsPeriodEnd,
      });
    }
    const versions = [...(stored?.versions ?? []), ...added];
    const lastVersionAt = versions.at(-1)!.changedAt;
    const fileLastChanged = new Date(line.lastChangedDate);
    const lastChanged = adopted
      ? latest(fileLastChanged, lastVersionAt)
      : latest(stored!.lastChanged, fileLastChanged, lastVersionAt);
    const next: FundState = {
      fundNumber: number,
      offerNumber: line.offerNumber,
      registeredOn: line.registeredDate,
      fphRequired: line.fphRequired,
      lastChanged,
      versions,
      activities: line.complianceActivities.map((a) => ({
        kind: a.activityType,
        periodEnd: a.periodEndDate,
        dueDate: a.dueDate,
        filedAt: a.filedDate === null ? null : new Date(a.filedDate),
        late: a.late,
        fundVersion: a.versionId === null ? null : versionOf(a.versionId, number)!,
        filedBy: a.filedBy,
      })),
      documents: line.documents.map((d) => ({ ...d, storageKey: '', addedAt: new Date(d.addedDate) })),
    };
    const fileDigests = new Map(line.documents.map((d) => [d.documentRecId, d.sha256]));
    if (storedLine && canonicalJson(fundLine(next, fileDigests)) === canonicalJson(storedLine))
      return 'unchanged';
    const documents = await this.documentRows(
      'fund',
      number,
      line.documents,
      stored?.documents ?? [],
      digests,
      client,
    );
    const current = versions.at(-1)!;
    await putFund(
      client,
      {
        fundNumber: number,
        offerNumber: line.offerNumber,
        name: String(current.document.name),
        fundType: String(current.document.fundType),
        registeredOn: line.registeredDate,
        fphRequired: line.fphRequired,
        version: current.version,
        lastChanged,
      },
      added,
      next.activities,
      documents,
    );
    return stored ? 'updated' : 'inserted';
  }

  private async writeHoldings(
    client: pg.PoolClient,
    line: FundHoldingsLine,
    version: number,
  ): Promise<keyof WriteCounts> {
    if (!(await fundVersionExists(client, line.fundNumber, version)))
      throw new Error(
        `fundHoldings ${line.versionId}: no such fund version in the file before it or in the register`,
      );
    const stored = await holdingsOf(client, line.fundNumber, version);
    if (canonicalJson(fundHoldingsLine(line.fundNumber, version, stored)) === canonicalJson(line))
      return 'unchanged';
    await replaceHoldings(client, line.fundNumber, version, line.holdings);
    return stored.length === 0 ? 'inserted' : 'updated';
  }
}
