/**
 * The case a filing creates (operations/filing.ts), inside its transaction: what needs the register
 * checked (the international application of a PCT national phase, the clients named), a new client from
 * the applicant's details, the number allocated and the case's rows written.
 */
import type pg from 'pg';
import { RuleError } from '../../../platform/errors.ts';
import {
  type ApplicantDetails,
  checkNewZealandApplicant,
  checkPatentApplication,
  type FeeLine,
  type PatentApplicationInput,
  type TradeMarkApplicationInput,
} from '../domain/applications.ts';
import { filedState } from '../domain/examination.ts';
import type { PartyRole } from '../domain/model.ts';
import {
  allocateNumber,
  clientCountry,
  existingClients,
  type FiledDocument,
  findInternationalApplication,
  insertCase,
  lockInternationalApplication,
  type NewCase,
  nationalPhaseEntered,
} from '../store/applications.ts';
import { insertClients } from '../store/clients.ts';

/** An application to file, checked by the domain before or inside the transaction. */
export type Application =
  | { kind: 'patent'; input: PatentApplicationInput }
  | { kind: 'trademark'; input: TradeMarkApplicationInput };

/** An application with its documents, adopted into the document store. */
export type Filing = Application & { documents: FiledDocument[] };

export interface ChargedLine extends FeeLine {
  amountCents: number;
  gstCents: number;
  recordId: number | null;
}

export interface CreatedCase {
  record: NewCase;
  applicant: { clientId: number; name: string };
  agent: { clientId: number; name: string } | undefined;
  fees: ChargedLine[];
  filedOn: string;
}

/** Checks what needs the register, then writes the case and any new client. */
export async function createCase(
  tx: pg.PoolClient,
  filing: Filing,
  today: string,
  now: Date,
): Promise<Omit<CreatedCase, 'fees' | 'filedOn'>> {
  const { input } = filing;
  let pct: Awaited<ReturnType<typeof findInternationalApplication>>;
  if (filing.kind === 'patent') {
    const number = filing.input.internationalApplicationNumber.trim().toUpperCase();
    await lockInternationalApplication(tx, number);
    pct = await findInternationalApplication(tx, number);
    checkPatentApplication(filing.input, pct, await nationalPhaseEntered(tx, number), today);
  }
  const named = [
    ...('clientId' in input.applicant ? [input.applicant.clientId] : []),
    ...(input.agentClientId !== undefined ? [input.agentClientId] : []),
  ];
  const known = await existingClients(tx, named);
  if ('clientId' in input.applicant && !known.has(input.applicant.clientId))
    throw new RuleError('Applicant.ClientIdentifier', 'names no client of the register');
  if (input.agentClientId !== undefined && !known.has(input.agentClientId))
    throw new RuleError('AgentClientIdentifier', 'names no client of the register');
  if (filing.kind === 'patent' && 'clientId' in input.applicant)
    checkNewZealandApplicant(input.applicant, await clientCountry(tx, input.applicant.clientId));
  const applicant =
    'clientId' in input.applicant
      ? { clientId: input.applicant.clientId, name: known.get(input.applicant.clientId)! }
      : await applicantClient(tx, input.applicant.details, now);
  const agent =
    input.agentClientId === undefined
      ? undefined
      : { clientId: input.agentClientId, name: known.get(input.agentClientId)! };
  const caseNumber = await allocateNumber(tx, filing.kind);
  const parties: NewCase['parties'] = [
    { role: (filing.kind === 'patent' ? 'Applicant' : 'Owner') as PartyRole, clientId: applicant.clientId },
  ];
  if (input.agentClientId !== undefined) parties.push({ role: 'Agent', clientId: input.agentClientId });
  const examinationRequested = filing.kind === 'patent' ? filing.input.examinationRequested : true;
  const { status } = filedState(filing.kind, examinationRequested, today);
  const record: NewCase =
    filing.kind === 'patent'
      ? {
          kind: 'patent',
          caseNumber,
          title: filing.input.title?.trim() || pct!.title,
          status,
          applicationDate: today,
          // A PCT case counts its term from the international filing date.
          termDate: pct!.internationalFilingDate,
          internationalApplicationNumber: pct!.internationalApplicationNumber,
          internationalPublicationNumber: pct!.internationalPublicationNumber,
          priorityCountryCode: pct!.priorityCountryCode,
          markImageName: null,
          parties,
          goodsAndServices: [],
          documents: filing.documents,
        }
      : {
          kind: 'trademark',
          caseNumber,
          title: filing.input.markTitle.trim(),
          status,
          applicationDate: today,
          termDate: today,
          internationalApplicationNumber: null,
          internationalPublicationNumber: null,
          priorityCountryCode: null,
          // The representation of the mark, when one was sent (a jpeg or gif).
          markImageName: filing.documents.find((d) => d.objectFormat !== 'pdf')?.documentName ?? null,
          parties,
          goodsAndServices: [...filing.input.classes]
            .sort((a, b) => a.classNumber - b.classNumber)
            .map((c) => ({ classNumber: c.classNumber, description: c.description.trim() })),
          documents: filing.documents,
        };
  await insertCase(tx, record, now);
  return { record, applicant, agent };
}

/** A new client of the register from an applicant's details (overseas too, but for a PCT national phase). */
async function applicantClient(
  tx: pg.PoolClient,
  d: ApplicantDetails,
  now: Date,
): Promise<{ clientId: number; name: string }> {
  const clientId = await allocateNumber(tx, 'client');
  const address = {
    line1: d.line1.trim(),
    line2: d.line2?.trim() || null,
    line3: d.line3?.trim() || null,
    city: d.city.trim(),
    postcode: d.postcode?.trim().toUpperCase() || null,
    countryCode: d.countryCode,
  };
  await insertClients(
    tx,
    [
      {
        clientId,
        name: d.name.trim(),
        clientType: d.clientType,
        nzbn: null,
        addresses: { physical: address, service: address },
      },
    ],
    now,
  );
  return { clientId, name: d.name.trim() };
}
