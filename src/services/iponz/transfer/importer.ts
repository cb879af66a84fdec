/**
 * The IP office's import (`rsg import iponz`): checked records written a segment at a time — a run of
 * lines of one kind, each identifier once — with the register's state of the segment read in a few
 * statements, new records copied set by set and changed ones replaced.
 *
 * Idempotent by identifier (a client's id, an international application's number, a case's kind and
 * number, a filed case's correspondence by its case): a record as the register holds it changes nothing.
 * A changed case becomes its next version (its ETag moves; its history is the file's); a changed client,
 * international application or correspondence is set to the file's. The parties' clients must be in
 * the register or earlier in the file, named as the register names them; a bibliographic XML document's
 * parties that the register lacks become clients of the name and country the document gives. A document's
 * bytes never change: a stored document must have the same bytes in the file. No fees, no mail, no
 * filings or examination: an import is a load. Every committed transaction tells every process's case
 * cache to forget what it holds.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { canonicalJson } from '../../../platform/transfer/canonical.ts';
import { documentFileName, documentsFolderOf } from '../../../platform/transfer/documents.ts';
import type {
  FileRecord,
  ImportSession,
  RecordImporter,
  WriteCounts,
} from '../../../platform/transfer/register.ts';
import type { CaseParty, CaseRecord, Client } from '../domain/model.ts';
import { casesNamed } from '../store/cases.ts';
import { clientsNamed, insertClients, replaceClients } from '../store/clients.ts';
import { copyCases, type LoadedCase } from '../store/seed.ts';
import {
  applicationsNamed,
  type CaseKept,
  caseKey,
  casesKept,
  correspondenceHolders,
  correspondenceNamed,
  documentHolders,
  forgetCachedCases,
  heldCases,
  putApplications,
  putCorrespondence,
  replaceCases,
} from '../store/transfer.ts';
import { type CorrespondenceRecord, correspondenceLine } from './correspondence.ts';
import {
  applicationLine,
  caseContent,
  caseLine,
  checkDocument,
  checkRecord,
  clientLine,
  type DocumentFileLine,
  type ImportedCase,
  type IponzRecord,
} from './records.ts';
import { isXmlFile, XmlDocument, xmlRecords } from './xml.ts';

/** A record's identifier: what a segment holds once. */
function keyOf(record: IponzRecord): string {
  switch (record.kind) {
    case 'client':
      return `client:${record.client.clientId}`;
    case 'internationalApplication':
      return `pct:${record.application.internationalApplicationNumber}`;
    case 'case':
      return `case:${caseKey(record.case.loaded)}`;
    case 'correspondence':
      return `correspondence:${caseKey(record.correspondence)}`;
  }
}

/** Consecutive records of one kind, each identifier once: what is read and written together. */
function segments(records: readonly IponzRecord[]): IponzRecord[][] {
  const out: IponzRecord[][] = [];
  let current: IponzRecord[] = [];
  let keys = new Set<string>();
  for (const record of records) {
    const key = keyOf(record);
    if (current.length > 0 && (current[0]!.kind !== record.kind || keys.has(key))) {
      out.push(current);
      current = [];
      keys = new Set();
    }
    current.push(record);
    keys.add(key);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** A client's country as a case's party shows it: its physical address's, else service, else postal. */
const countryOf = (client: Client): string | null =>
  (client.addresses.physical ?? client.addresses.service ?? client.addresses.postal)?.countryCode ?? null;

/**
 * A case's stored documents as its line names them: each one's file, size and SHA-256 (read from the
 * document store); with `folder`, each one's bytes are written there too (an export).
 */
export async function storedFiles(
  store: DocumentStore,
  record: Pick<CaseRecord, 'documents'>,
  kept: CaseKept | undefined,
  folder?: string,
): Promise<DocumentFileLine[]> {
  const files: DocumentFileLine[] = [];
  for (const d of record.documents) {
    const size = kept?.stored.get(d.documentIdentifier);
    if (size === undefined) continue;
    const stored = await store.get(d.documentIdentifier);
    if (!stored) throw new Error(`document ${d.documentIdentifier}: its bytes are not in the document store`);
    const file = documentFileName(d.documentIdentifier, `document.${d.objectFormat}`);
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(piece: Buffer, _encoding, done) {
        hash.update(piece);
        done(null, piece);
      },
    });
    if (folder) await pipeline(stored.stream, hashing, createWriteStream(path.join(folder, file)));
    else await pipeline(stored.stream, hashing, new Writable({ write: (_piece, _encoding, done) => done() }));
    files.push({ ObjectIdentifier: d.documentIdentifier, file, size, sha256: hash.digest('hex') });
  }
  return files;
}

export class IponzImporter implements RecordImporter<IponzRecord> {
  /** Where documents' files are read from (`--documents`, else beside the first file). */
  private readonly folder: string;

  constructor(
    session: ImportSession,
    private readonly store: DocumentStore,
  ) {
    const named = session.options.documents;
    this.folder = typeof named === 'string' ? named : documentsFolderOf(session.files[0]!);
  }

  readFile(file: string, onBytes: (bytes: number) => void): AsyncIterable<FileRecord> | undefined {
    return isXmlFile(file) ? xmlRecords(file, onBytes) : undefined;
  }

  check(value: unknown) {
    if (value instanceof XmlDocument) return checkDocument(value.kind, value.tree);
    return checkRecord(value, this.folder);
  }

  async write(client: pg.PoolClient, records: readonly IponzRecord[]): Promise<WriteCounts> {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    let cases = false;
    for (const segment of segments(records)) {
      const kind = segment[0]!.kind;
      if (kind === 'client') await this.writeClients(client, segment as ClientRecords, counts);
      else if (kind === 'internationalApplication')
        await this.writeApplications(client, segment as ApplicationRecords, counts);
      else if (kind === 'case') await this.writeCases(client, segment as CaseRecords, counts);
      else await this.writeCorrespondence(client, segment as CorrespondenceRecords, counts);
      cases ||= kind !== 'internationalApplication';
    }
    if (cases) await forgetCachedCases(client);
    return counts;
  }

  private async writeClients(client: pg.PoolClient, records: ClientRecords, counts: WriteCounts) {
    const held = new Map(
      (
        await clientsNamed(
          client,
          records.map((r) => r.client.clientId),
        )
      ).map((c) => [c.clientId, c]),
    );
    const fresh: Client[] = [];
    const changed: Client[] = [];
    for (const { client: c } of records) {
      const before = held.get(c.clientId);
      if (!before) fresh.push(c);
      else if (canonicalJson(clientLine(before)) !== canonicalJson(clientLine(c))) changed.push(c);
      else counts.unchanged++;
    }
    const now = new Date();
    await insertClients(client, fresh, now);
    await replaceClients(client, changed, now);
    counts.inserted += fresh.length;
    counts.updated += changed.length;
  }

  private async writeApplications(client: pg.PoolClient, records: ApplicationRecords, counts: WriteCounts) {
    const held = new Map(
      (
        await applicationsNamed(
          client,
          records.map((r) => r.application.internationalApplicationNumber),
        )
      ).map((a) => [a.internationalApplicationNumber, a]),
    );
    const put = records.filter(({ application: a }) => {
      const before = held.get(a.internationalApplicationNumber);
      if (before && canonicalJson(applicationLine(before)) === canonicalJson(applicationLine(a))) {
        counts.unchanged++;
        return false;
      }
      if (before) counts.updated++;
      else counts.inserted++;
      return true;
    });
    await putApplications(
      client,
      put.map((r) => r.application),
    );
  }

  /**
   * The parties' clients: each must be held, named as the register names it; a bibliographic XML
   * document's party the register lacks becomes a client of its name and country.
   */
  private async partyClients(client: pg.PoolClient, records: readonly ImportedCase[]) {
    const parties = records.flatMap((r) => r.parties.map((p) => ({ p, r })));
    const held = new Map(
      (
        await clientsNamed(
          client,
          parties.map(({ p }) => p.clientId),
        )
      ).map((c) => [c.clientId, c]),
    );
    const made = new Map<number, Client>();
    for (const { p, r } of parties) {
      const known = held.get(p.clientId) ?? made.get(p.clientId);
      const which = `${r.loaded.kind} ${r.loaded.caseNumber}: party ${p.role} ${p.clientId}`;
      if (!known) {
        if (r.whole) throw new Error(`${which}: no such client in the register or earlier in the file`);
        made.set(p.clientId, clientFromParty(p));
        continue;
      }
      if (known.name !== p.name)
        throw new Error(`${which}: ClientName must be the client's name, ${JSON.stringify(known.name)}`);
      if (countryOf(known) !== (p.countryCode ?? null))
        throw new Error(`${which}: CountryCode must be the client's country, ${countryOf(known) ?? 'none'}`);
    }
    await insertClients(client, [...made.values()], new Date());
  }

  private async writeCases(client: pg.PoolClient, records: CaseRecords, counts: WriteCounts) {
    const imported = records.map((r) => r.case);
    const keys = imported.map((r) => r.loaded);
    await this.partyClients(client, imported);
    const held = new Map((await casesNamed(client, keys)).map((c) => [caseKey(c), c]));
    const kept = await casesKept(client, keys);
    const holders = await documentHolders(
      client,
      imported.flatMap((r) => r.loaded.documents.map((d) => d.documentIdentifier)),
    );
    const fresh: LoadedCase[] = [];
    const changed: LoadedCase[] = [];
    const now = new Date();
    for (const r of imported) {
      const key = caseKey(r.loaded);
      for (const d of r.loaded.documents) {
        const holder = holders.get(d.documentIdentifier);
        if (holder && holder !== key)
          throw new Error(
            `${r.loaded.kind} ${r.loaded.caseNumber}: document ${d.documentIdentifier} is held by ${holder.replace(':', ' ')}`,
          );
      }
      const before = held.get(key);
      const stored = kept.get(key);
      const storedFileLines = before ? await storedFiles(this.store, before, stored) : [];
      await this.storeFiles(r, storedFileLines);
      if (!before) {
        fresh.push(r.loaded);
        continue;
      }
      const line = caseLine(before, stored!, storedFileLines);
      if (caseContent(line.tree, r.whole ? line.register : undefined) === r.content) {
        counts.unchanged++;
        continue;
      }
      const fileTime = r.loaded.updatedAt.getTime();
      changed.push({
        ...r.loaded,
        version: before.version + 1,
        updatedAt: fileTime > before.updatedAt.getTime() ? r.loaded.updatedAt : now,
        ...(r.whole
          ? {}
          : {
              // A published document only: the register keeps what the document does not say.
              markNature: stored!.markNature,
              markType: stored!.markType,
              documents: r.loaded.documents.map((d) => ({
                ...d,
                storedSize: stored!.stored.get(d.documentIdentifier) ?? null,
              })),
            }),
      });
    }
    await copyCases(client, fresh, now);
    await replaceCases(client, changed);
    counts.inserted += fresh.length;
    counts.updated += changed.length;
  }

  /** Writes the record's document files the store lacks; a stored document must have the file's bytes. */
  private async storeFiles(r: ImportedCase, stored: readonly DocumentFileLine[]) {
    const held = new Map(stored.map((f) => [f.ObjectIdentifier, f]));
    for (const f of r.files) {
      const before = held.get(f.ObjectIdentifier);
      if (before) {
        if (before.sha256 !== f.sha256)
          throw new Error(
            `${r.loaded.kind} ${r.loaded.caseNumber}: document ${f.ObjectIdentifier} differs from the register's; a document's bytes never change`,
          );
        continue;
      }
      await this.store.put(f.ObjectIdentifier, createReadStream(path.join(this.folder, f.file)));
    }
  }

  private async writeCorrespondence(
    client: pg.PoolClient,
    records: CorrespondenceRecords,
    counts: WriteCounts,
  ) {
    const all = records.map((r) => r.correspondence);
    const cases = await heldCases(client, all);
    const holders = await correspondenceHolders(
      client,
      all.flatMap((c) => c.tasks.map((t) => t.taskId)),
      all.flatMap((c) => c.discussions.map((d) => d.discussionId)),
    );
    const documents = await documentHolders(
      client,
      all.flatMap((c) => [...c.tasks, ...c.discussions].flatMap((x) => x.documents)),
    );
    const held = new Map((await correspondenceNamed(client, all)).map((c) => [caseKey(c), c]));
    const put: CorrespondenceRecord[] = [];
    for (const c of all) {
      const key = caseKey(c);
      const which = `correspondence of ${c.kind} ${c.caseNumber}`;
      if (!cases.has(key)) throw new Error(`${which}: no such case in the register or earlier in the file`);
      for (const [id, holder] of [
        ...c.tasks.map((t) => [`task:${t.taskId}`, holders.get(`task:${t.taskId}`)] as const),
        ...c.discussions.map(
          (d) => [`discussion:${d.discussionId}`, holders.get(`discussion:${d.discussionId}`)] as const,
        ),
      ])
        if (holder && holder !== key)
          throw new Error(`${which}: ${id.replace(':', ' ')} belongs to ${holder.replace(':', ' ')}`);
      for (const id of [...c.tasks, ...c.discussions].flatMap((x) => x.documents))
        if (documents.get(id) !== key)
          throw new Error(`${which}: document ${id} is not one of the case's documents`);
      const before = held.get(key);
      if (before && canonicalJson(correspondenceLine(before)) === canonicalJson(correspondenceLine(c))) {
        counts.unchanged++;
        continue;
      }
      if (before) counts.updated++;
      else counts.inserted++;
      put.push(c);
    }
    await putCorrespondence(client, put);
  }
}

/** A client made from a bibliographic document's party: its name, and its country as an address's. */
function clientFromParty(p: CaseParty): Client {
  return {
    clientId: p.clientId,
    name: p.name,
    clientType: p.role === 'Inventor' ? 'Person' : 'Organisation',
    nzbn: null,
    addresses: p.countryCode ? { physical: { countryCode: p.countryCode } } : {},
  };
}

type Of<K extends IponzRecord['kind']> = readonly Extract<IponzRecord, { kind: K }>[];
type ClientRecords = Of<'client'>;
type ApplicationRecords = Of<'internationalApplication'>;
type CaseRecords = Of<'case'>;
type CorrespondenceRecords = Of<'correspondence'>;
