/**
 * The offers register's import (`rsg import disclose`): checked lines written a segment at a time — a
 * run of lines of one kind, each number once — with the register's state of the whole segment read in a
 * few statements and its writes made set by set (store/transfer.ts).
 *
 * Idempotent by identifier: a record as the register holds it changes nothing. A record whose versions
 * extend the register's gets the further versions as the file has them; one whose current content
 * differs otherwise gets one new version made at the import. What a record holds besides its versions
 * (participants, notices, documents, filing history; a fund's activities and documents) is set to the
 * file's. No filing is made, no activity computed, no fee charged: an import is a load.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { canonicalJson } from '../../../platform/transfer/canonical.ts';
import type { ImportSession, RecordImporter, WriteCounts } from '../../../platform/transfer/register.ts';
import type { DocumentFiles } from '../store/document-files.ts';
import {
  copyNewFunds,
  copyNewRecords,
  type DocumentFileRow,
  existingNumbers,
  type FundState,
  type FundVersionRow,
  type FundWrite,
  fundStates,
  fundVersionKey,
  fundVersionsHeld,
  holdingsOfVersions,
  idOwners,
  offerVersions,
  type RecordKind,
  type RecordState,
  type RecordWrite,
  recordStates,
  replaceHoldings,
  type VersionRow,
  writeFunds,
  writeRecords,
} from '../store/transfer.ts';
import {
  checkRecord,
  type DiscloseRecord,
  type DocumentLine,
  documentsFolderOf,
  type FundLine,
  fundDocument,
  fundHoldingsLine,
  fundLine,
  fundVersionLine,
  type OfferLine,
  type RecordLine,
  recordDocument,
  recordLine,
  sha256,
  versionOf,
} from './records.ts';

/** The change of a version an import makes when a record's current content differs. */
const AMENDED = {
  scheme: 'Scheme details amended',
  offer: 'Offer details amended',
  fund: 'Fund details amended',
};

/** A version line compared without its identifier, date, change and pointers: what a version says. */
const content = (v: Record<string, unknown>) => {
  const {
    versionId: _id,
    versionDate: _date,
    change: _change,
    offerVersionId: _offer,
    holdingsPeriodEndDate: _period,
    holdingsVersionId: _holdings,
    ...rest
  } = v;
  return canonicalJson(rest);
};

/**
 * The versions a record gains: the file's further ones when they extend the register's (`adopted`),
 * else, when the last one says something else, one to make at the import (`amend`).
 */
function versionPlan<V extends Record<string, unknown>>(
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
/** A version made at the import: now, and never before the version it follows. */
const amendedAt = (previous: Date) => latest(new Date(), new Date(previous.getTime() + 1));

/** The record's last change: the file's when its history is taken, else never earlier than the register's. */
const lastChangedOf = (adopted: boolean, file: string, stored: Date | undefined, lastVersion: Date) =>
  adopted || !stored ? latest(new Date(file), lastVersion) : latest(stored, new Date(file), lastVersion);

/** Notes that `number` gives the id; two records of one segment giving the same id stop the import. */
function own(owned: Map<string, string>, kind: string, id: string, number: string): void {
  const other = owned.get(id);
  if (other !== undefined && other !== number)
    throw new Error(`${kind} ${number}: ${id} is also given to ${kind} ${other} in the file`);
  owned.set(id, number);
}

/** Consecutive records of one kind, each number once: what is read and written together. */
function segments(records: readonly DiscloseRecord[]): DiscloseRecord[][] {
  const out: DiscloseRecord[][] = [];
  let current: DiscloseRecord[] = [];
  let numbers = new Set<string>();
  for (const record of records) {
    const key = record.kind === 'fundHoldings' ? `${record.number} ${record.version}` : record.number;
    if (current.length > 0 && (current[0]!.kind !== record.kind || numbers.has(key))) {
      out.push(current);
      current = [];
      numbers = new Set();
    }
    current.push(record);
    numbers.add(key);
  }
  if (current.length > 0) out.push(current);
  return out;
}

export class DiscloseImporter implements RecordImporter<DiscloseRecord> {
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
    for (const segment of segments(records)) {
      const kind = segment[0]!.kind;
      if (kind === 'scheme' || kind === 'offer') {
        const lines = segment.map((r) => r.line as RecordLine);
        await this.writeRecords(client, kind, lines, counts);
      } else if (kind === 'fund') {
        await this.writeFunds(
          client,
          segment.map((r) => r.line as FundLine),
          counts,
        );
      } else {
        await this.writeHoldings(
          client,
          segment as Extract<DiscloseRecord, { kind: 'fundHoldings' }>[],
          counts,
        );
      }
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

  /** Refuses (the import stops) ids the file gives a record that belong to another one. */
  private async ownIds(client: pg.PoolClient, kind: RecordKind | 'fund', owned: Map<string, string>) {
    if (owned.size === 0) return;
    for (const [id, owner] of await idOwners(client, [...owned.keys()])) {
      if (owner !== `${kind} ${owned.get(id)}`)
        throw new Error(`${kind} ${owned.get(id)}: ${id} belongs to ${owner} in the register`);
    }
  }

  /**
   * The file's documents as rows: one the register holds with the same bytes keeps its storage key, a
   * new or changed one is put in the store under a key of its own (a rolled-back import leaves only
   * bytes nothing refers to).
   */
  private async documentRows(
    lines: readonly DocumentLine[],
    stored: readonly DocumentFileRow[],
    digests: ReadonlyMap<string, string>,
  ): Promise<DocumentFileRow[]> {
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

  private async writeRecords(
    client: pg.PoolClient,
    kind: RecordKind,
    lines: readonly RecordLine[],
    counts: WriteCounts,
  ): Promise<void> {
    const numberOf = (line: RecordLine) =>
      line.record === 'scheme' ? line.schemeNumber : (line as OfferLine).offerNumber;
    const numbers = lines.map(numberOf);
    const stored = new Map((await recordStates(client, kind, numbers)).map((s) => [s.number, s]));
    if (kind === 'offer') {
      const schemes = [
        ...new Set(lines.flatMap((l) => (l as OfferLine).versions.at(-1)!.schemeNumber ?? [])),
      ];
      const known = await existingNumbers(client, 'scheme', schemes);
      for (const line of lines) {
        const scheme = (line as OfferLine).versions.at(-1)!.schemeNumber;
        if (scheme && !known.has(scheme))
          throw new Error(
            `offer ${numberOf(line)}: scheme ${scheme} is neither in the file before it nor in the register`,
          );
      }
    }
    // Records the register holds are replaced; new ones are copied, as a load is.
    const writes: RecordWrite[] = [];
    const fresh: RecordWrite[] = [];
    const owned = new Map<string, string>();
    for (const line of lines) {
      const number = numberOf(line);
      const write = await this.recordWrite(kind, number, line, stored.get(number));
      if (!write) {
        counts.unchanged++;
        continue;
      }
      counts[stored.has(number) ? 'updated' : 'inserted']++;
      (stored.has(number) ? writes : fresh).push(write);
      for (const id of [
        ...line.documents.map((d) => d.documentRecId),
        ...line.notices.map((n) => n.noticeRecId),
      ])
        own(owned, kind, id, number);
    }
    await this.ownIds(client, kind, owned);
    await writeRecords(client, kind, writes);
    await copyNewRecords(client, kind, fresh);
  }

  /** What the import writes for one scheme or offer, or undefined when the register holds it already. */
  private async recordWrite(
    kind: RecordKind,
    number: string,
    line: RecordLine,
    stored: RecordState | undefined,
  ): Promise<RecordWrite | undefined> {
    const digests = stored ? await this.digests(stored.documents) : new Map<string, string>();
    const storedLine = stored ? recordLine(kind, stored, digests) : undefined;
    const plan = versionPlan(
      (storedLine?.versions ?? []) as Record<string, unknown>[],
      line.versions as Record<string, unknown>[],
    );
    const added: VersionRow[] = plan.extend.map((v) => ({
      version: versionOf(String(v.versionId), number)!,
      changedAt: new Date(String(v.versionDate)),
      change: String(v.change),
      document: recordDocument(kind, number, v as never),
    }));
    if (plan.amend) {
      const previous = stored!.versions.at(-1)!;
      added.push({
        version: previous.version + 1,
        changedAt: amendedAt(previous.changedAt),
        change: AMENDED[kind],
        document: recordDocument(kind, number, plan.amend as never),
      });
    }
    const versions = [...(stored?.versions ?? []), ...added];
    const lastChanged = lastChangedOf(
      plan.adopted,
      line.lastChangedDate,
      stored?.lastChanged,
      versions.at(-1)!.changedAt,
    );
    const next: RecordState = {
      number,
      lastChanged,
      versions,
      participants: line.participants,
      notices: line.notices.map((n) => ({ ...n, recordedAt: new Date(n.recordedDate) })),
      documents: line.documents.map((d) => ({ ...d, storageKey: '', addedAt: new Date(d.addedDate) })),
      filings: line.filingHistory.map((f) => ({ ...f, filedAt: new Date(f.filedDate) })),
    };
    const fileDigests = new Map(line.documents.map((d) => [d.documentRecId, d.sha256]));
    if (storedLine && canonicalJson(recordLine(kind, next, fileDigests)) === canonicalJson(storedLine))
      return undefined;
    const current = versions.at(-1)!.document;
    const company = (kind === 'scheme' ? current.manager : current.issuer) as {
      name: string;
      nzbn: string | null;
    };
    const supervisor = (current.supervisor ?? null) as { name: string; nzbn: string | null } | null;
    return {
      row: {
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
      },
      added,
      participants: next.participants,
      notices: next.notices,
      documents: await this.documentRows(line.documents, stored?.documents ?? [], digests),
      filings: next.filings,
    };
  }

  private async writeFunds(
    client: pg.PoolClient,
    lines: readonly FundLine[],
    counts: WriteCounts,
  ): Promise<void> {
    const offers = await offerVersions(client, [...new Set(lines.map((l) => l.offerNumber))]);
    const stored = new Map(
      (
        await fundStates(
          client,
          lines.map((l) => l.fundNumber),
        )
      ).map((s) => [s.fundNumber, s]),
    );
    const writes: FundWrite[] = [];
    const fresh: FundWrite[] = [];
    const owned = new Map<string, string>();
    for (const line of lines) {
      const offerVersion = offers.get(line.offerNumber);
      if (offerVersion === undefined)
        throw new Error(
          `fund ${line.fundNumber}: offer ${line.offerNumber} is neither in the file before it nor in the register`,
        );
      const write = await this.fundWrite(line, stored.get(line.fundNumber), offerVersion);
      if (!write) {
        counts.unchanged++;
        continue;
      }
      counts[stored.has(line.fundNumber) ? 'updated' : 'inserted']++;
      (stored.has(line.fundNumber) ? writes : fresh).push(write);
      for (const d of line.documents) own(owned, 'fund', d.documentRecId, line.fundNumber);
    }
    await this.ownIds(client, 'fund', owned);
    await writeFunds(client, writes);
    await copyNewFunds(client, fresh);
  }

  /** What the import writes for one fund, or undefined when the register holds it already. */
  private async fundWrite(
    line: FundLine,
    stored: FundState | undefined,
    offerVersion: number,
  ): Promise<FundWrite | undefined> {
    const number = line.fundNumber;
    const digests = stored ? await this.digests(stored.documents) : new Map<string, string>();
    const storedLine = stored ? fundLine(stored, digests) : undefined;
    // Versions compared as lines of the file's offer (a fund moved to another offer keeps its history).
    const plan = versionPlan(
      (stored?.versions ?? []).map((v) => fundVersionLine(number, line.offerNumber, v)) as Record<
        string,
        unknown
      >[],
      line.versions as Record<string, unknown>[],
    );
    const added: FundVersionRow[] = plan.extend.map((v) => {
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
    if (plan.amend) {
      const previous = stored!.versions.at(-1)!;
      added.push({
        version: previous.version + 1,
        offerVersion,
        changedAt: amendedAt(previous.changedAt),
        change: AMENDED.fund,
        document: fundDocument(number, plan.amend as FundLine['versions'][number]),
        // The holdings stay those of the register's last version (a holdings line brings others).
        holdingsVersion: previous.holdingsVersion,
        holdingsPeriodEnd: previous.holdingsPeriodEnd,
      });
    }
    const versions = [...(stored?.versions ?? []), ...added];
    const lastChanged = lastChangedOf(
      plan.adopted,
      line.lastChangedDate,
      stored?.lastChanged,
      versions.at(-1)!.changedAt,
    );
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
      return undefined;
    const current = versions.at(-1)!;
    return {
      fund: {
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
      activities: next.activities,
      documents: await this.documentRows(line.documents, stored?.documents ?? [], digests),
    };
  }

  /** Holdings lines (each fund version once): their versions and stored rows read at once, the changed set. */
  private async writeHoldings(
    client: pg.PoolClient,
    records: readonly Extract<DiscloseRecord, { kind: 'fundHoldings' }>[],
    counts: WriteCounts,
  ): Promise<void> {
    const versions = records.map((r) => ({ fundNumber: r.line.fundNumber, version: r.version }));
    const held = await fundVersionsHeld(client, versions);
    for (const r of records) {
      if (!held.has(fundVersionKey({ fundNumber: r.line.fundNumber, version: r.version })))
        throw new Error(
          `fundHoldings ${r.line.versionId}: no such fund version in the file before it or in the register`,
        );
    }
    const stored = await holdingsOfVersions(client, versions);
    const changed: Parameters<typeof replaceHoldings>[1][number][] = [];
    for (const { line, version } of records) {
      const rows = stored.get(fundVersionKey({ fundNumber: line.fundNumber, version })) ?? [];
      if (canonicalJson(fundHoldingsLine(line.fundNumber, version, rows)) === canonicalJson(line)) {
        counts.unchanged++;
        continue;
      }
      counts[rows.length === 0 ? 'inserted' : 'updated']++;
      changed.push({ fundNumber: line.fundNumber, version, holdings: line.holdings });
    }
    await replaceHoldings(client, changed);
  }
}
