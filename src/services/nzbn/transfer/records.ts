/**
 * The register's transfer record (docs/formats/nzbn.md): one line per entity — the entity whole, as
 * `GET /entities/{nzbn}` answers it to a caller with authority (private items, roles, every part of the
 * published shape), its earlier names, the ended periods its history operations list, and its
 * organisation parts as the organisation part operations show them. Checked with the API's own schemas
 * (domain/schema.ts, domain/organisation-part.ts) and the register's number rules.
 */
import { type Static, Type } from '@sinclair/typebox';
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { formatNzDateTime, isNzDateTimeString, parseNzDateTime } from '../../../platform/nz-time.ts';
import { ruleProblems, schemaProblems } from '../../../platform/transfer/check.ts';
import { accepted, type Checked, refused } from '../../../platform/transfer/register.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { Entity } from '../domain/schema.ts';
import type { EntityTransferRow, HistoryRow } from '../store/transfer.ts';

/** The history operations' item kinds (`nzbn_entity_history.kind`). */
export const HISTORY_KINDS = [
  'addresses',
  'entity-names',
  'trading-names',
  'trading-areas',
  'entity-statuses',
  'hibernation-statuses',
] as const;

export const HistoryRecord = Type.Object(
  {
    kind: Type.Union(HISTORY_KINDS.map((kind) => Type.Literal(kind))),
    item: Type.Record(Type.String(), Type.Unknown()),
    startDate: Type.Union([Type.String(), Type.Null()]),
    endDate: Type.String(),
  },
  { additionalProperties: false },
);

export const EntityRecord = Type.Object(
  {
    entity: Entity,
    previousNames: Type.Array(Type.String()),
    history: Type.Array(HistoryRecord),
    organisationParts: Type.Array(OrganisationPart),
  },
  { additionalProperties: false },
);

export type EntityLine = Static<typeof EntityRecord>;

/** A checked line: the entity and what goes with it, history dates as instants. */
export interface NzbnRecord {
  entity: Static<typeof Entity>;
  previousNames: string[];
  history: HistoryRow[];
  parts: Static<typeof OrganisationPart>[];
}

function gln(value: string, field: string): void {
  const problem = glnProblem(value);
  if (problem) throw new RuleError(field, `is not a business number: ${problem.message}`);
}

function instant(text: string, field: string): Date {
  if (!isNzDateTimeString(text)) {
    throw new RuleError(field, 'must be a New Zealand date-time, e.g. 2024-03-01T09:30:00.000+1300');
  }
  return new Date(parseNzDateTime(text)!);
}

export function checkEntityRecord(value: unknown): Checked<NzbnRecord> {
  const problems = schemaProblems(EntityRecord, value);
  if (problems.length > 0) return refused(problems);
  const line = value as EntityLine;
  let record: NzbnRecord | undefined;
  const ruled = ruleProblems(() => {
    gln(line.entity.nzbn, 'entity.nzbn');
    instant(line.entity.registrationDate, 'entity.registrationDate');
    instant(line.entity.lastUpdatedDate, 'entity.lastUpdatedDate');
    const history = line.history.map((h, i) => {
      const startDate = h.startDate === null ? null : instant(h.startDate, `history.${i}.startDate`);
      const endDate = instant(h.endDate, `history.${i}.endDate`);
      if (startDate && endDate < startDate)
        throw new RuleError(`history.${i}.endDate`, 'must not be before startDate');
      return { kind: h.kind, item: JSON.stringify(h.item), startDate, endDate };
    });
    for (const [i, part] of line.organisationParts.entries()) {
      gln(part.opn, `organisationParts.${i}.opn`);
      if (part.parentNzbn !== line.entity.nzbn) {
        throw new RuleError(`organisationParts.${i}.parentNzbn`, 'must be the entity’s nzbn');
      }
    }
    record = {
      entity: line.entity,
      previousNames: line.previousNames,
      history,
      parts: line.organisationParts,
    };
  });
  return ruled.length > 0 || !record ? refused(ruled) : accepted(record);
}

/** The export's line, the stored documents' text kept byte for byte. */
export function entityLine(row: EntityTransferRow): string {
  const history = row.history.map(
    (h) =>
      `{"kind":${JSON.stringify(h.kind)},"item":${h.item},"startDate":${
        h.startDate ? JSON.stringify(formatNzDateTime(h.startDate.getTime())) : 'null'
      },"endDate":${JSON.stringify(formatNzDateTime(h.endDate.getTime()))}}`,
  );
  return `{"entity":${row.stored.document},"previousNames":${JSON.stringify(row.stored.previousNames)},"history":[${history.join(
    ',',
  )}],"organisationParts":[${row.parts.map((p) => p.document).join(',')}]}`;
}
