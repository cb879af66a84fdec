/**
 * The business number register's import of whole entities (the line of records.ts): each chunk's
 * entities compared with what the register holds, new ones inserted, changed ones made their next
 * version, change events only with `--emit-changes`, and every entity cache told at commit.
 */
import type pg from 'pg';
import { sameJson } from '../../../platform/transfer/canonical.ts';
import type { ImportSession, RecordImporter, WriteCounts } from '../../../platform/transfer/register.ts';
import { hidesItems } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import type { ChangeEvent } from '../store/changes.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { toEntityRow } from '../store/rows.ts';
import {
  type EntityTransferRow,
  entitiesNamed,
  forgetCachedEntities,
  insertEntities,
  recordChanges,
  replaceEntity,
} from '../store/transfer.ts';
import { checkEntityRecord, type NzbnRecord } from './records.ts';

/** The change event each top-level part of an entity records when it changes. */
const EVENT_OF: Readonly<Partial<Record<keyof Entity, string>>> = {
  entityName: 'ENTITY_NAME',
  entityStatusCode: 'ENTITY_STATUS',
  addresses: 'ADDRESS',
  tradingNames: 'TRADINGNAME',
  phoneNumbers: 'PHONENUMBER',
  emailAddresses: 'EMAILADDRESS',
  websites: 'WEBSITE',
  industryClassifications: 'INDUSTRYCLASSIFICATION',
  gstNumbers: 'GSTNUMBER',
  tradingAreas: 'TRADINGAREA',
  privacySettings: 'PRIVACYSETTINGS',
  australianBusinessNumber: 'AUSTRALIANBUSINESSNUMBER',
  hibernationStatusCode: 'HIBERNATIONSTATUS',
  roles: 'ROLES_OTHER',
  businessEthnicityIdentifiers: 'BUSINESSETHNICITYIDENTIFIER',
  paymentBankAccounts: 'PAYMENTBANKACCOUNT',
};
const PUBLIC_EVENTS = new Set(['ENTITY_NAME', 'ENTITY_STATUS']);

/** The events a changed entity records (`--emit-changes`). */
export function changeEvents(before: Entity | undefined, after: Entity, now: Date): ChangeEvent[] {
  const base = {
    nzbn: after.nzbn,
    entityName: after.entityName,
    entityTypeCode: after.entityTypeCode,
    changeDate: now,
  };
  if (!before) return [{ ...base, changeEventType: 'NEW', newValue: after, isPrivate: hidesItems(after) }];
  return Object.entries(EVENT_OF).flatMap(([key, type]) => {
    const field = key as keyof Entity;
    if (sameJson(before[field], after[field])) return [];
    return [
      {
        ...base,
        changeEventType: type!,
        newValue: after[field],
        isPrivate: !PUBLIC_EVENTS.has(type!) && hidesItems(after),
      },
    ];
  });
}

export class NzbnImporter implements RecordImporter<NzbnRecord> {
  constructor(
    private readonly session: ImportSession,
    private readonly documents: DocumentSource,
  ) {}

  check(value: unknown) {
    return checkEntityRecord(value);
  }

  async write(client: pg.PoolClient, records: readonly NzbnRecord[]): Promise<WriteCounts> {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    // The same entity twice in a chunk: the first is written before the second is compared.
    let start = 0;
    while (start < records.length) {
      const seen = new Set<string>();
      let end = start;
      while (end < records.length && !seen.has(records[end]!.entity.nzbn))
        seen.add(records[end++]!.entity.nzbn);
      await this.writeDistinct(client, records.slice(start, end), counts);
      start = end;
    }
    await forgetCachedEntities(client);
    return counts;
  }

  private async writeDistinct(client: pg.PoolClient, records: readonly NzbnRecord[], counts: WriteCounts) {
    const now = new Date();
    const held = new Map(
      (
        await entitiesNamed(
          client,
          this.documents,
          records.map((r) => r.entity.nzbn),
        )
      ).map((row) => [row.stored.nzbn, row]),
    );
    const fresh: Parameters<typeof insertEntities>[1][number][] = [];
    const events: ChangeEvent[] = [];
    for (const record of records) {
      const before = held.get(record.entity.nzbn);
      const document = JSON.stringify(record.entity);
      if (!before) {
        fresh.push({
          row: toEntityRow(record.entity, { origin: 'registered', previousNames: record.previousNames }),
          history: record.history,
          parts: record.parts,
        });
        if (this.session.emitChanges) events.push(...changeEvents(undefined, record.entity, now));
        continue;
      }
      if (unchanged(before, record, document)) {
        counts.unchanged++;
        continue;
      }
      const changedDocument = document !== before.stored.document;
      const row = toEntityRow(record.entity, {
        origin: before.origin,
        seedIndex: before.seedIndex,
        previousNames: record.previousNames,
        version: before.stored.version + (changedDocument ? 1 : 0),
      });
      await replaceEntity(client, before, row, record.history, record.parts, now);
      if (this.session.emitChanges) {
        events.push(...changeEvents(JSON.parse(before.stored.document) as Entity, record.entity, now));
      }
      counts.updated++;
    }
    await insertEntities(client, fresh);
    counts.inserted += fresh.length;
    if (events.length > 0) await recordChanges(client, events);
  }
}

function unchanged(before: EntityTransferRow, record: NzbnRecord, document: string): boolean {
  if (document !== before.stored.document) return false;
  if (!sameJson(before.stored.previousNames, record.previousNames)) return false;
  const history = new Set(before.history.map((h) => `${h.kind}\u0000${h.item}`));
  if (!record.history.every((h) => history.has(`${h.kind}\u0000${h.item}`))) return false;
  const parts = new Map(
    before.parts.map((p) => [(JSON.parse(p.document) as { opn: string }).opn, p.document]),
  );
  return record.parts.every((part) => parts.get(part.opn) === JSON.stringify(part));
}
