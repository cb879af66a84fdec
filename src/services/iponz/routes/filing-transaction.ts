/**
 * Applications (SOAP): `POST /patent` (a PCT national phase application) and `POST /trademark` (a trade
 * mark application). Each filing is one transaction: the fee charged (billing), an application number
 * allocated, the case written (case, status history, parties, goods and services, documents), the filer
 * and the examination simulator's first stage recorded, the acknowledging discussion written, and the
 * answer kept under the TransactionIdentifier. A broken rule is an App Error answer (HTTP 200) and writes
 * nothing. The case is readable through REST at once: the change notice reaches the case caches at commit
 * and the answer waits for it (store/case-cache.ts).
 *
 * Ours: filings need a user registered with the office (a three-legged token), in both environments, as
 * renewals do (domain/registration.ts): anyone else is refused before any work (SOAP Fault, HTTP 403,
 * `not-registered-user`); in production the paying organisation's direct debit authority is required
 * too (billing). A repeat with the same requestor and TransactionIdentifier answers the first answer
 * again and charges nothing (repeats at the same moment wait for each other).
 */
import type pg from 'pg';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { APIM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { keepNoFailure, requestHash, runOnce, successOnlyStore } from '../../../platform/http/idempotency.ts';
import {
  type ApplicantDetails,
  checkPatentApplication,
  checkTradeMarkApplication,
  type FeeLine,
  type PatentApplicationInput,
  patentFees,
  type TradeMarkApplicationInput,
  tradeMarkFees,
} from '../domain/applications.ts';
import { filedDiscussion } from '../domain/correspondence.ts';
import { type FiledKind, filedState } from '../domain/examination.ts';
import type { PartyRole } from '../domain/model.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import { IPONZ_ERRORS } from '../errors.ts';
import {
  allocateNumber,
  existingClients,
  type FiledDocument,
  findInternationalApplication,
  insertApplication,
  insertCase,
  lockInternationalApplication,
  type NewCase,
  nationalPhaseEntered,
} from '../store/applications.ts';
import { type CaseCache, caseKey } from '../store/case-cache.ts';
import { insertClients } from '../store/clients.ts';
import { insertDiscussion } from '../store/correspondence.ts';
import { type FilingArrival, filingTable, type KeptFiling } from '../store/kept-requests.ts';

/** The operation names fee records carry. */
const OPERATION: Record<FiledKind, string> = {
  patent: 'filePatentApplication',
  trademark: 'fileTradeMarkApplication',
};

/**
 * A registered user acting (three-legged token), or the refusal. Resolves to their id and (unless
 * `email: false`) their email address, where the discussions of their cases are sent.
 */
export async function registeredRequestor(
  context: ServiceContext,
  caller: Caller | undefined,
  options: { email?: boolean } = {},
): Promise<{ userId: string; email: string | null }> {
  const userId = caller?.userId;
  if (!userId)
    throw new HttpError(
      APIM_ERRORS.threeLeggedTokenRequired,
      'This operation acts for a registered user: it needs a token from the authorization-code grant',
    );
  if (!(await context.identity.mayAct(caller, REGISTERED_USER.kind, REGISTERED_USER.objectId)))
    throw new HttpError(
      IPONZ_ERRORS.notRegisteredUser,
      'Applications and correspondence are for users registered with the office; this user is not registered',
    );
  if (options.email === false) return { userId, email: null };
  // The user's own registration record holds their email (granted idempotently: a user registered
  // through an organisation gets their own record the first time they file).
  const held = await context.identity.grantAuthority(REGISTERED_USER.kind, REGISTERED_USER.objectId, {
    userId,
  });
  return { userId, email: held?.userEmail ?? null };
}

/** An application to file, checked by the domain before or inside the transaction. */
export type Filing =
  | { kind: 'patent'; input: PatentApplicationInput; documents: FiledDocument[] }
  | { kind: 'trademark'; input: TradeMarkApplicationInput; documents: FiledDocument[] };

export interface FilingResult {
  /** The answer's content (kept per TransactionIdentifier: a repeat answers it again). */
  answer: Record<string, unknown>;
  kind: FiledKind;
  caseNumber: number;
  /** False when the answer is a repeat's. */
  created: boolean;
}

export interface FilingDeps {
  context: ServiceContext;
  cases: CaseCache;
}

/** Files an application in one transaction; RuleError (nothing written) when a rule is broken. */
export async function fileApplication(
  { context, cases }: FilingDeps,
  caller: Caller,
  requestor: { userId: string; email: string | null },
  filing: Filing,
  requestId: string,
  describe: (created: CreatedCase) => Record<string, unknown>,
): Promise<FilingResult> {
  if (filing.kind === 'trademark') checkTradeMarkApplication(filing.input);
  const pool = context.database.pool;
  await context.fees.requireAuthority(caller);
  let echoed: Promise<void> | undefined;
  const transactionIdentifier = filing.input.transactionIdentifier?.trim() || undefined;
  // The TransactionIdentifier names the filing: a repeat answers the first answer whatever else its
  // envelope says; only another kind of application under it is refused.
  const arrival: FilingArrival = {
    key: transactionIdentifier,
    requestId: transactionIdentifier ?? requestId,
    operation: OPERATION[filing.kind],
    requestHash: requestHash({
      operation: OPERATION[filing.kind],
      method: 'POST',
      path: `/${filing.kind}`,
      body: null,
    }),
    requestorId: requestor.userId,
    kind: filing.kind,
    at: context.clock.now(),
  };
  const done = await runOnce(successOnlyStore(filingTable(pool)), arrival, {
    failure: keepNoFailure,
    reuse: () => new RuleError('TransactionIdentifier', 'was used for another kind of application'),
    work: (tx) => file(tx),
  });
  if ('repeat' in done) {
    const kept = done.repeat.outcome!;
    return {
      answer: kept.answer as Record<string, unknown>,
      kind: kept.kind,
      caseNumber: kept.caseNumber,
      created: false,
    };
  }
  if (echoed) {
    cases.drop(caseKey(filing.kind, done.outcome.caseNumber));
    await echoed;
  }
  return { ...done.outcome, answer: done.outcome.answer as Record<string, unknown>, created: true };

  async function file(tx: pg.PoolClient): Promise<KeptFiling> {
    const now = context.clock.now();
    const today = nzDate(now.getTime());
    const created = await createCase(tx, filing, today, now);
    const fees: FeeLine[] =
      filing.kind === 'patent'
        ? patentFees(filing.input.examinationRequested)
        : tradeMarkFees(filing.input.classes.length);
    const charged: ChargedLine[] = [];
    for (const line of fees) {
      const quote = context.fees.quote(line.feeCode, 'API', line.quantity);
      const record = await context.fees.charge(tx, {
        operation: OPERATION[filing.kind],
        feeCode: line.feeCode,
        quantity: line.quantity,
        caller,
        requestId,
        billingReference: filing.input.reference.trim().slice(0, 100),
        object: { kind: filing.kind, id: String(created.record.caseNumber) },
      });
      charged.push({
        ...line,
        amountCents: quote.amountCents,
        gstCents: quote.gstCents,
        recordId: record?.id ?? null,
      });
    }
    const examinationRequested = filing.kind === 'patent' ? filing.input.examinationRequested : true;
    const { state } = filedState(filing.kind, examinationRequested, today);
    const clientReference = filing.input.reference.trim();
    await insertApplication(
      tx,
      {
        kind: filing.kind,
        caseNumber: created.record.caseNumber,
        requestorId: requestor.userId,
        requestorEmail: requestor.email,
        subscriptionId: caller.subscriptionId,
        clientReference,
        examinationRequested,
        stage: state.stage,
        nextStepOn: state.nextStepOn,
      },
      now,
    );
    const feeText = charged
      .map(
        (c) => `${c.feeCode} × ${c.quantity} NZ$${((c.amountCents + c.gstCents) / 100).toFixed(2)} incl. GST`,
      )
      .join(', ');
    await insertDiscussion(
      tx,
      {
        kind: filing.kind,
        caseNumber: created.record.caseNumber,
        requestorId: requestor.userId,
        recipientEmail: requestor.email,
        taskId: null,
        ...filedDiscussion(
          {
            kind: filing.kind,
            caseNumber: created.record.caseNumber,
            title: created.record.title,
            clientReference,
          },
          created.record.status,
          feeText,
        ),
        createdOn: today,
      },
      now,
    );
    const answer = describe({ ...created, fees: charged, filedOn: today });
    // Listened for before the commit sends the notice (store/case-cache.ts).
    echoed = cases.echo(caseKey(filing.kind, created.record.caseNumber));
    return { answer, kind: filing.kind, caseNumber: created.record.caseNumber };
  }
}

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
async function createCase(
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

/** A new client of the register from an applicant's New Zealand details. */
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
