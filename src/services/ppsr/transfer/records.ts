/**
 * The register's records as a transfer file holds them (docs/formats/ppsr.md): one NDJSON line each,
 * told apart by `record` — `customerOrganisation`, `securedPartyGroup` and `financingStatement` (with
 * every version). The parts are the API's own schemas (schemas.ts) and are checked with the API's own
 * rules (domain/): what the API refuses, an import refuses, naming the field.
 */
import { type Static, Type } from '@sinclair/typebox';
import { parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { formatNzDateTime, isNzDateTimeString, parseNzDateTime } from '../../../platform/nz-time.ts';
import { type RecordProblem, ruleProblems, schemaProblems } from '../../../platform/transfer/check.ts';
import { accepted, type Checked, refused } from '../../../platform/transfer/register.ts';
import { checkCollaterals, type Collateral as DomainCollateral } from '../domain/collateral.ts';
import { checkDebtors, checkSecuredParties, type Debtor as DomainDebtor, EMAIL } from '../domain/parties.ts';
import { REGISTRATION_NUMBER } from '../domain/registration-number.ts';
import { Collateral, Debtor, SecuredParty } from '../schemas.ts';
import type { Change } from '../store/statements.ts';
import type {
  GroupRecordRow,
  OrganisationRecordRow,
  StatementRecordRow,
  VersionRecordRow,
} from '../store/transfer.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GROUP_ID = /^SPG[0-9]{8}$/;
const CHANGES = ['Registered', 'Amended', 'Renewed', 'Discharged'] as const;

const PinVerifierRecord = Type.Object(
  {
    verifier: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The verifier, 64 hexadecimal digits' }),
    keyIds: Type.Union([Type.String(), Type.Null()], { description: 'The server keys it is made with' }),
  },
  { additionalProperties: false },
);

export const OrganisationRecord = Type.Object(
  {
    record: Type.Literal('customerOrganisation'),
    organisationId: Type.String(),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    version: Type.Integer({ minimum: 1 }),
    updatedDate: Type.String(),
  },
  { additionalProperties: false },
);

export const GroupRecord = Type.Object(
  {
    record: Type.Literal('securedPartyGroup'),
    securedPartyGroupId: Type.String(),
    organisationId: Type.String(),
    name: Type.String(),
    email: Type.String(),
    securedParties: Type.Array(SecuredParty),
    version: Type.Integer({ minimum: 1 }),
    createdDate: Type.String(),
    updatedDate: Type.String(),
  },
  { additionalProperties: false },
);

export const VersionRecord = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    change: Type.Union(CHANGES.map((change) => Type.Literal(change))),
    changedDate: Type.String(),
    expiryDate: Type.String(),
    debtors: Type.Array(Debtor),
    securedParties: Type.Array(SecuredParty),
    collaterals: Type.Array(Collateral),
  },
  { additionalProperties: false },
);

export const StatementRecord = Type.Object(
  {
    record: Type.Literal('financingStatement'),
    registrationNumber: Type.String(),
    organisationId: Type.Optional(Type.String()),
    securedPartyGroupId: Type.Optional(Type.String()),
    registrationDate: Type.String(),
    expiryDate: Type.String(),
    dischargeDate: Type.Optional(Type.String()),
    versions: Type.Array(VersionRecord, { minItems: 1 }),
    pinVerifiers: Type.Optional(
      Type.Object(
        { financingStatementPin: PinVerifierRecord, debtorPin: PinVerifierRecord },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

type StatementLine = Static<typeof StatementRecord>;

/** A checked line: what the store writes. A statement without verifiers gets new PINs when it is new. */
export type PpsrRecord =
  | { kind: 'organisation'; row: OrganisationRecordRow }
  | { kind: 'group'; row: GroupRecordRow }
  | { kind: 'statement'; row: StatementRecordRow; withVerifiers: boolean };

const KINDS = {
  customerOrganisation: OrganisationRecord,
  securedPartyGroup: GroupRecord,
  financingStatement: StatementRecord,
} as const;

/** What the rules compare against: the New Zealand date and year of the import. */
export interface Today {
  date: string;
  year: number;
}

/** One line's record, checked with the API's rules. */
export function checkRecord(value: unknown, today: Today): Checked<PpsrRecord> {
  const kind = (value as { record?: unknown } | null)?.record;
  if (typeof kind !== 'string' || !(kind in KINDS)) {
    return refused([{ field: 'record', rule: `must be one of ${Object.keys(KINDS).join(', ')}` }]);
  }
  const schema = KINDS[kind as keyof typeof KINDS];
  const problems = schemaProblems(schema, value);
  if (problems.length > 0) return refused(problems);
  let record: PpsrRecord | undefined;
  const ruled = ruleProblems(() => {
    if (kind === 'customerOrganisation') record = organisationOf(value as Static<typeof OrganisationRecord>);
    else if (kind === 'securedPartyGroup') record = groupOf(value as Static<typeof GroupRecord>);
    else record = statementOf(value as StatementLine, today);
  });
  return ruled.length > 0 || !record ? refused(ruled as RecordProblem[]) : accepted(record);
}

function instant(text: string, field: string): Date {
  if (!isNzDateTimeString(text)) {
    throw new RuleError(field, 'must be a New Zealand date-time, e.g. 2024-03-01T09:30:00.000+1300');
  }
  return new Date(parseNzDateTime(text)!);
}

function date(text: string, field: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || !parseDate(text))
    throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  return text;
}

function required(text: string, field: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new RuleError(field, 'is required');
  if (trimmed.length > max) throw new RuleError(field, `must be at most ${max} characters`);
  return trimmed;
}

function organisationId(value: string, field = 'organisationId'): string {
  if (!UUID.test(value)) throw new RuleError(field, 'must be a UUID in lower case');
  return value;
}

function organisationOf(line: Static<typeof OrganisationRecord>): PpsrRecord {
  if (line.email !== null && !EMAIL.test(line.email))
    throw new RuleError('email', 'must be an email address');
  return {
    kind: 'organisation',
    row: {
      organisationId: organisationId(line.organisationId),
      name: required(line.name, 'name', 200),
      email: line.email,
      version: line.version,
      updatedAt: instant(line.updatedDate, 'updatedDate'),
    },
  };
}

function groupOf(line: Static<typeof GroupRecord>): PpsrRecord {
  if (!GROUP_ID.test(line.securedPartyGroupId))
    throw new RuleError('securedPartyGroupId', 'must be SPG and 8 digits');
  if (!EMAIL.test(line.email)) throw new RuleError('email', 'must be an email address');
  const createdAt = instant(line.createdDate, 'createdDate');
  const updatedAt = instant(line.updatedDate, 'updatedDate');
  if (updatedAt < createdAt) throw new RuleError('updatedDate', 'must not be before createdDate');
  return {
    kind: 'group',
    row: {
      securedPartyGroupId: line.securedPartyGroupId,
      organisationId: organisationId(line.organisationId),
      name: required(line.name, 'name', 200),
      email: line.email,
      securedParties: checkSecuredParties(line.securedParties),
      version: line.version,
      createdAt,
      updatedAt,
    },
  };
}

function versionOf(line: StatementLine['versions'][number], i: number, today: Today): VersionRecordRow {
  const field = `versions.${i}`;
  if (line.version !== i + 1)
    throw new RuleError(`${field}.version`, `must be ${i + 1}: versions are numbered from 1 in order`);
  if ((i === 0) !== (line.change === 'Registered')) {
    throw new RuleError(
      `${field}.change`,
      i === 0 ? 'must be Registered for version 1' : 'must not be Registered after version 1',
    );
  }
  const within = <T>(check: () => T): T => {
    try {
      return check();
    } catch (error) {
      throw error instanceof RuleError ? error.within(`${field}.`) : error;
    }
  };
  return {
    version: line.version,
    change: line.change as Change,
    changedAt: instant(line.changedDate, `${field}.changedDate`),
    expiryDate: date(line.expiryDate, `${field}.expiryDate`),
    document: {
      debtors: within(() => checkDebtors(line.debtors as DomainDebtor[], today.date)),
      securedParties: within(() => checkSecuredParties(line.securedParties)),
      collaterals: within(() => checkCollaterals(line.collaterals as DomainCollateral[], today.year)),
    },
  };
}

function statementOf(line: StatementLine, today: Today): PpsrRecord {
  if (!REGISTRATION_NUMBER.test(line.registrationNumber)) {
    throw new RuleError('registrationNumber', 'must be 16 upper-case letters and digits');
  }
  if (line.securedPartyGroupId !== undefined && !GROUP_ID.test(line.securedPartyGroupId)) {
    throw new RuleError('securedPartyGroupId', 'must be SPG and 8 digits');
  }
  const registeredAt = instant(line.registrationDate, 'registrationDate');
  const expiryDate = date(line.expiryDate, 'expiryDate');
  const versions = line.versions.map((version, i) => versionOf(version, i, today));
  for (const [i, version] of versions.entries()) {
    if (i > 0 && version.changedAt < versions[i - 1]!.changedAt) {
      throw new RuleError(`versions.${i}.changedDate`, 'must not be before the previous version’s');
    }
    if (version.change === 'Discharged' && i !== versions.length - 1) {
      throw new RuleError(`versions.${i}.change`, 'Discharged must be the last version');
    }
  }
  const first = versions[0]!;
  const last = versions.at(-1)!;
  if (first.changedAt.getTime() !== registeredAt.getTime()) {
    throw new RuleError('registrationDate', 'must be version 1’s changedDate');
  }
  if (expiryDate !== last.expiryDate)
    throw new RuleError('expiryDate', 'must be the last version’s expiryDate');
  let dischargedAt: Date | null = null;
  if (last.change === 'Discharged') {
    if (line.dischargeDate === undefined) throw new RuleError('dischargeDate', 'is required once discharged');
    dischargedAt = instant(line.dischargeDate, 'dischargeDate');
    if (dischargedAt.getTime() !== last.changedAt.getTime()) {
      throw new RuleError('dischargeDate', 'must be the Discharged version’s changedDate');
    }
  } else if (line.dischargeDate !== undefined) {
    throw new RuleError('dischargeDate', 'must be left out unless the last version is Discharged');
  }
  const verifiers = line.pinVerifiers;
  return {
    kind: 'statement',
    withVerifiers: verifiers !== undefined,
    row: {
      registrationNumber: line.registrationNumber,
      organisationId: line.organisationId === undefined ? null : organisationId(line.organisationId),
      securedPartyGroupId: line.securedPartyGroupId ?? null,
      registeredAt,
      expiryDate,
      dischargedAt,
      pinHash: Buffer.from(verifiers?.financingStatementPin.verifier ?? '', 'hex'),
      pinKeyIds: verifiers?.financingStatementPin.keyIds ?? null,
      debtorPinHash: Buffer.from(verifiers?.debtorPin.verifier ?? '', 'hex'),
      debtorPinKeyIds: verifiers?.debtorPin.keyIds ?? null,
      versions,
    },
  };
}

/** The export's lines, in the order of the fields above. */
export function organisationLine(row: OrganisationRecordRow): Static<typeof OrganisationRecord> {
  return {
    record: 'customerOrganisation',
    organisationId: row.organisationId,
    name: row.name,
    email: row.email,
    version: row.version,
    updatedDate: formatNzDateTime(row.updatedAt.getTime()),
  };
}

export function groupLine(row: GroupRecordRow): Static<typeof GroupRecord> {
  return {
    record: 'securedPartyGroup',
    securedPartyGroupId: row.securedPartyGroupId,
    organisationId: row.organisationId,
    name: row.name,
    email: row.email,
    securedParties: row.securedParties,
    version: row.version,
    createdDate: formatNzDateTime(row.createdAt.getTime()),
    updatedDate: formatNzDateTime(row.updatedAt.getTime()),
  };
}

export function statementLine(row: StatementRecordRow, includeSecrets: boolean): StatementLine {
  return {
    record: 'financingStatement',
    registrationNumber: row.registrationNumber,
    ...(row.organisationId ? { organisationId: row.organisationId } : {}),
    ...(row.securedPartyGroupId ? { securedPartyGroupId: row.securedPartyGroupId } : {}),
    registrationDate: formatNzDateTime(row.registeredAt.getTime()),
    expiryDate: row.expiryDate,
    ...(row.dischargedAt ? { dischargeDate: formatNzDateTime(row.dischargedAt.getTime()) } : {}),
    versions: row.versions.map((v) => ({
      version: v.version,
      change: v.change,
      changedDate: formatNzDateTime(v.changedAt.getTime()),
      expiryDate: v.expiryDate,
      debtors: v.document.debtors,
      securedParties: v.document.securedParties,
      collaterals: v.document.collaterals,
    })),
    ...(includeSecrets
      ? {
          pinVerifiers: {
            financingStatementPin: { verifier: row.pinHash.toString('hex'), keyIds: row.pinKeyIds },
            debtorPin: { verifier: row.debtorPinHash.toString('hex'), keyIds: row.debtorPinKeyIds },
          },
        }
      : {}),
  };
}
