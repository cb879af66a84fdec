/**
 * Filing an application (a PCT national phase patent application, a trade mark application; answered
 * by `POST /patent` and `POST /trademark`, SOAP). Its attachments are adopted into the document store,
 * then the filing is one transaction: the fee charged (billing), an application number allocated, the
 * case written (case, status history, parties, goods and services, documents), the filer
 * and the examination simulator's first stage recorded, the acknowledging discussion written, and the
 * answer kept under the TransactionIdentifier. A broken rule is an App Error answer (HTTP 200) and writes
 * nothing. The case is readable through REST at once: the change notice reaches the case caches at commit
 * and the answer waits for it (store/case-cache.ts).
 *
 * Ours: filings need a user registered with the office (`registeredRequestor`, operations/requestor.ts:
 * anyone else is refused before any work); in production the paying organisation's direct debit
 * authority is required too (billing). A repeat with the same requestor and TransactionIdentifier answers the first answer
 * again and charges nothing (repeats at the same moment wait for each other).
 */
import type pg from 'pg';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { RuleError } from '../../../platform/errors.ts';
import { keepNoFailure, requestHash, runOnce, successOnlyStore } from '../../../platform/http/idempotency.ts';
import { documentStoreFor } from '../documents/location.ts';
import {
  checkTradeMarkApplication,
  type FeeLine,
  patentFees,
  tradeMarkFees,
} from '../domain/applications.ts';
import { filedDiscussion } from '../domain/correspondence.ts';
import { type FiledKind, filedState } from '../domain/examination.ts';
import { type FiledDocument, insertApplication } from '../store/applications.ts';
import { type CaseCache, caseKey } from '../store/case-cache.ts';
import { insertDiscussion } from '../store/correspondence.ts';
import { type FilingArrival, filingTable, type KeptFiling } from '../store/kept-requests.ts';
import { type Attachment, adoptAttachments, discardDocuments } from './attachments.ts';
import {
  type Application,
  type ChargedLine,
  type CreatedCase,
  createCase,
  type Filing,
} from './filed-case.ts';

export type { Application, ChargedLine, CreatedCase };

import type { Requestor } from './requestor.ts';
import { type CaseCacheOption, caseWritten } from './support.ts';

/** The operation names fee records carry. */
const OPERATION: Record<FiledKind, string> = {
  patent: 'filePatentApplication',
  trademark: 'fileTradeMarkApplication',
};

export interface FilingRequest {
  /** Who files and pays (a subscription, a user registered with the office). */
  caller: Caller;
  /** The caller's registration (`registeredRequestor`): their discussions' recipient. */
  requestor: Requestor;
  application: Application;
  /** The documents sent with it, staged: adopted under new document identifiers. */
  attachments: readonly Attachment[];
  /** The request's id, recorded with the fees (and the key when no TransactionIdentifier is given). */
  requestId: string;
  /** The answer's content for the case created, kept under the TransactionIdentifier. */
  describe(created: CreatedCase): Record<string, unknown>;
}

export interface FilingResult {
  /** The answer's content (kept per TransactionIdentifier: a repeat answers it again). */
  answer: Record<string, unknown>;
  kind: FiledKind;
  caseNumber: number;
  /** False when the answer is a repeat's. */
  created: boolean;
}

export interface FilingOptions extends CaseCacheOption {
  /** Where the documents go; the environment's folder by default. */
  documents?: DocumentStore | undefined;
}

/**
 * Files an application: its attachments adopted, then one transaction; RuleError (nothing written, the
 * adopted documents deleted) when a rule is broken. A repeat records no documents.
 */
export async function fileApplication(
  context: ServiceContext,
  request: FilingRequest,
  options: FilingOptions = {},
): Promise<FilingResult> {
  const documents = options.documents ?? documentStoreFor(context.database);
  let adopted: FiledDocument[] = [];
  try {
    adopted = await adoptAttachments(documents, request.attachments, nzDate(context.clock.now().getTime()));
    const filing = { ...request.application, documents: adopted } as Filing;
    const result = await fileOnce(context, request, filing, options.cases);
    if (!result.created) await discardDocuments(documents, adopted);
    return result;
  } catch (error) {
    await discardDocuments(documents, adopted);
    throw error;
  }
}

/** The filing in one transaction, once per TransactionIdentifier; its documents adopted already. */
async function fileOnce(
  context: ServiceContext,
  { caller, requestor, requestId, describe }: FilingRequest,
  filing: Filing,
  cases: CaseCache | undefined,
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
  await caseWritten(cases, filing.kind, done.outcome.caseNumber, echoed);
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
    echoed = cases?.echo(caseKey(filing.kind, created.record.caseNumber));
    return { answer, kind: filing.kind, caseNumber: created.record.caseNumber };
  }
}
