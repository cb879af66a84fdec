/**
 * `rsg import ppsr` and `rsg export ppsr` (docs/formats/ppsr.md): customer organisations, secured party
 * groups and financing statements with every version, through the platform's transfer framework.
 *
 * Idempotent by identifier: a record as the register holds it changes nothing. A statement whose file
 * history extends the register's gets the further versions as the file has them; one whose current
 * content differs otherwise gets one new version (Amended, Renewed or Discharged) made at the import.
 * PIN verifiers travel only with `--include-secrets`; a new statement imported without them gets new
 * PINs, written to the PIN report (`--pin-report FILE`, else beside the first file) for the operator.
 * No verification statements are queued and no fees charged: an import is a load, not a registration.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import type pg from 'pg';
import { loadConfig } from '../../../config.ts';
import { nzDate } from '../../../platform/calendar.ts';
import type { ServerKeys } from '../../../platform/server-keys.ts';
import { loadServerKeys } from '../../../platform/server-keys.ts';
import { sameJson } from '../../../platform/transfer/canonical.ts';
import type {
  ImportSession,
  RecordImporter,
  TransferRegister,
  WriteCounts,
} from '../../../platform/transfer/register.ts';
import { pinVerifier } from '../domain/pin-verifiers.ts';
import { pinFrom } from '../domain/registration-number.ts';
import type { Change } from '../store/statements.ts';
import {
  appendVersions,
  existingGroups,
  groupsAfter,
  insertStatements,
  organisationsAfter,
  putGroup,
  putOrganisation,
  type StatementRecordRow,
  statementsAfter,
  statementsNamed,
  type VersionRecordRow,
} from '../store/transfer.ts';
import { checkRecord, groupLine, organisationLine, type PpsrRecord, statementLine } from './records.ts';

const PAGE = 1000;

/** The server keys from the configuration, as the running service has them. */
const configuredKeys = (): ServerKeys => {
  const config = loadConfig();
  return loadServerKeys(config.variables, config.dataDir).keys;
};

/** The register's transfer; `keys` gives the server keys new PINs' verifiers are made with. */
export function ppsrTransfer(keys: () => ServerKeys = configuredKeys): TransferRegister {
  return {
    name: 'ppsr',
    records: 'customer organisations, secured party groups, financing statements with versions',
    importOptions: { 'pin-report': { type: 'string', usage: '[--pin-report FILE]' } },
    exportOptions: { 'include-secrets': { type: 'boolean', usage: '[--include-secrets]' } },
    importer: (session) => new PpsrImporter(session, keys),
    async exportAll({ database, options, output }) {
      let count = 0;
      const pages = async <R>(
        read: (after: string) => Promise<R[]>,
        key: (row: R) => string,
        line: (row: R) => unknown,
      ) => {
        let after = '';
        for (;;) {
          const rows = await read(after);
          for (const row of rows) await output.write(line(row));
          count += rows.length;
          if (rows.length < PAGE) return;
          after = key(rows.at(-1)!);
        }
      };
      const pool = database.pool;
      await pages(
        (after) => organisationsAfter(pool, after, PAGE),
        (r) => r.organisationId,
        organisationLine,
      );
      await pages(
        (after) => groupsAfter(pool, after, PAGE),
        (r) => r.securedPartyGroupId,
        groupLine,
      );
      const secrets = options['include-secrets'] === true;
      await pages(
        (after) => statementsAfter(pool, after, PAGE),
        (r) => r.registrationNumber,
        (row) => statementLine(row, secrets),
      );
      return count;
    },
  };
}

/** The PIN report: `registrationNumber,financingStatementPin,debtorPin`, made only when a PIN is issued. */
class PinReport {
  private fd: number | undefined;
  private commits = 0;
  issued = 0;
  constructor(readonly file: string) {}

  add(registrationNumber: string, pin: string, debtorPin: string) {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, 'a', 0o600);
      writeSync(this.fd, 'registrationNumber,financingStatementPin,debtorPin\n');
    }
    writeSync(this.fd, `${registrationNumber},${pin},${debtorPin}\n`);
    this.issued++;
  }
  /** Made durable before what it reports commits. */
  beforeCommit() {
    if (this.fd !== undefined) fsyncSync(this.fd);
    this.commits++;
  }
  finish(committed: boolean): string[] {
    if (this.fd === undefined) return [];
    closeSync(this.fd);
    if (!committed && this.commits === 0) {
      unlinkSync(this.file);
      return [];
    }
    return [
      `new PINs for ${this.issued.toLocaleString('en-NZ')} financing statements written to ${this.file} (the only copy: hand them over, then delete it)`,
    ];
  }
}

class PpsrImporter implements RecordImporter<PpsrRecord> {
  private readonly today = (() => {
    const now = Date.now();
    return { date: nzDate(now), year: Number(nzDate(now).slice(0, 4)) };
  })();
  private readonly report: PinReport;
  private serverKeys: ServerKeys | undefined;

  constructor(
    session: ImportSession,
    private readonly keys: () => ServerKeys,
  ) {
    const named = session.options['pin-report'];
    this.report = new PinReport(typeof named === 'string' ? named : `${session.files[0]}.pins.csv`);
  }

  check(value: unknown) {
    return checkRecord(value, this.today);
  }

  async write(client: pg.PoolClient, records: readonly PpsrRecord[]): Promise<WriteCounts> {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    let statements: StatementRecordRow[] = [];
    let withVerifiers = new Set<string>();
    const flush = async () => {
      if (statements.length > 0) await this.writeStatements(client, statements, withVerifiers, counts);
      statements = [];
      withVerifiers = new Set();
    };
    for (const record of records) {
      if (record.kind === 'statement') {
        // The same statement twice in a chunk: the first is written before the second is compared.
        if (statements.some((s) => s.registrationNumber === record.row.registrationNumber)) await flush();
        statements.push(record.row);
        if (record.withVerifiers) withVerifiers.add(record.row.registrationNumber);
        continue;
      }
      await flush();
      const outcome =
        record.kind === 'organisation'
          ? await putOrganisation(client, record.row)
          : await putGroup(client, record.row);
      counts[outcome]++;
    }
    await flush();
    return counts;
  }

  private async writeStatements(
    client: pg.PoolClient,
    rows: readonly StatementRecordRow[],
    withVerifiers: ReadonlySet<string>,
    counts: WriteCounts,
  ) {
    const groups = [...new Set(rows.flatMap((r) => (r.securedPartyGroupId ? [r.securedPartyGroupId] : [])))];
    if (groups.length > 0) {
      const known = await existingGroups(client, groups);
      const missing = groups.find((id) => !known.has(id));
      if (missing)
        throw new Error(
          `securedPartyGroupId ${missing}: no such secured party group in the file before it or in the register`,
        );
    }
    const stored = new Map(
      (
        await statementsNamed(
          client,
          rows.map((r) => r.registrationNumber),
        )
      ).map((s) => [s.registrationNumber, s]),
    );
    const fresh: StatementRecordRow[] = [];
    for (const row of rows) {
      const current = stored.get(row.registrationNumber);
      if (!current) {
        fresh.push(withVerifiers.has(row.registrationNumber) ? row : this.withNewPins(row));
        continue;
      }
      const next = nextState(current, row, withVerifiers.has(row.registrationNumber));
      if (!next) {
        counts.unchanged++;
        continue;
      }
      await appendVersions(client, next.statement, next.added);
      counts.updated++;
    }
    await insertStatements(client, fresh);
    counts.inserted += fresh.length;
  }

  private withNewPins(row: StatementRecordRow): StatementRecordRow {
    this.serverKeys ??= this.keys();
    const pin = pinFrom(randomBytes(8));
    const debtorPin = pinFrom(randomBytes(8));
    const verifier = pinVerifier(this.serverKeys, pin);
    const debtorVerifier = pinVerifier(this.serverKeys, debtorPin);
    this.report.add(row.registrationNumber, pin, debtorPin);
    return {
      ...row,
      pinHash: verifier.hash,
      pinKeyIds: verifier.keyIds,
      debtorPinHash: debtorVerifier.hash,
      debtorPinKeyIds: debtorVerifier.keyIds,
    };
  }

  async beforeCommit() {
    this.report.beforeCommit();
  }

  async finish(committed: boolean) {
    return this.report.finish(committed);
  }
}

const sameVersion = (a: VersionRecordRow, b: VersionRecordRow) =>
  a.version === b.version &&
  a.change === b.change &&
  a.changedAt.getTime() === b.changedAt.getTime() &&
  a.expiryDate === b.expiryDate &&
  sameJson(a.document, b.document);

/**
 * What an import makes of a statement the register holds: nothing (undefined) when the file says what
 * it holds; else the statement as it will stand and the versions it gains.
 */
export function nextState(
  stored: StatementRecordRow,
  file: StatementRecordRow,
  withVerifiers: boolean,
): { statement: StatementRecordRow; added: VersionRecordRow[] } | undefined {
  const storedLast = stored.versions.at(-1)!;
  const fileLast = file.versions.at(-1)!;
  const sameCurrent =
    sameJson(storedLast.document, fileLast.document) &&
    stored.expiryDate === file.expiryDate &&
    (stored.dischargedAt === null) === (file.dischargedAt === null);
  const sameVerifiers =
    !withVerifiers ||
    (stored.pinHash.equals(file.pinHash) &&
      stored.pinKeyIds === file.pinKeyIds &&
      stored.debtorPinHash.equals(file.debtorPinHash) &&
      stored.debtorPinKeyIds === file.debtorPinKeyIds);
  const sameAttributes =
    stored.organisationId === file.organisationId && stored.securedPartyGroupId === file.securedPartyGroupId;
  if (sameCurrent && sameVerifiers && sameAttributes) return undefined;

  let added: VersionRecordRow[] = [];
  let dischargedAt = stored.dischargedAt;
  if (!sameCurrent) {
    const n = stored.versions.length;
    const extends_ =
      file.versions.length > n &&
      stored.versions.every((version, i) => sameVersion(version, file.versions[i]!));
    if (extends_) {
      added = file.versions.slice(n);
      dischargedAt = file.dischargedAt;
    } else {
      // Never before the version it follows.
      const at = new Date(Math.max(Date.now(), storedLast.changedAt.getTime() + 1));
      const change = changeBetween(stored, file);
      added = [
        { version: n + 1, change, changedAt: at, expiryDate: file.expiryDate, document: fileLast.document },
      ];
      dischargedAt = file.dischargedAt === null ? null : (stored.dischargedAt ?? at);
    }
  }
  const statement: StatementRecordRow = {
    ...stored,
    organisationId: file.organisationId,
    securedPartyGroupId: file.securedPartyGroupId,
    expiryDate: file.expiryDate,
    dischargedAt,
    ...(withVerifiers
      ? {
          pinHash: file.pinHash,
          pinKeyIds: file.pinKeyIds,
          debtorPinHash: file.debtorPinHash,
          debtorPinKeyIds: file.debtorPinKeyIds,
        }
      : {}),
  };
  return { statement, added };
}

function changeBetween(stored: StatementRecordRow, file: StatementRecordRow): Exclude<Change, 'Registered'> {
  if (file.dischargedAt !== null && stored.dischargedAt === null) return 'Discharged';
  const sameDocument = sameJson(stored.versions.at(-1)!.document, file.versions.at(-1)!.document);
  return sameDocument && file.expiryDate !== stored.expiryDate ? 'Renewed' : 'Amended';
}
