/**
 * The applications as SOAP operations: `POST /patent` (FilePatentApplication, a PCT national phase) and
 * `POST /trademark` (FileTradeMarkApplication), on the framework in soap/ (WSDLs and XSDs in wsdl/). The
 * request tree is mapped to the domain's input here; the filing itself (its attachments adopted, one
 * transaction) is operations/filing.ts; attachments are streamed to the document store by the framework
 * and staged until the operation adopts them.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { documentStoreFor } from '../documents/location.ts';
import type { Applicant, PatentApplicationInput, TradeMarkApplicationInput } from '../domain/applications.ts';
import type { Attachment } from '../operations/attachments.ts';
import { type Application, type CreatedCase, fileApplication } from '../operations/filing.ts';
import { registeredRequestor } from '../operations/requestor.ts';
import { type SoapInput, soapEndpoint } from '../soap/endpoint.ts';
import type { Tree } from '../soap/validator.ts';
import { type XmlTree, xmlElement } from '../soap/writer.ts';
import type { CaseCache } from '../store/case-cache.ts';
import {
  ATTACHMENTS_MAX_BYTES,
  binaryOf,
  booleanOf,
  documentsTree,
  errorFields,
  NS,
  REFUSAL_FAULTS,
  textOf,
  treeOf,
  treesOf,
} from './soap-answers.ts';

/** The applicant: `ClientIdentifier` or `ApplicantDetails`, exactly one. */
function applicantOf(body: Tree): Applicant {
  const applicant = treeOf(body, 'Applicant') ?? {};
  const clientId = textOf(applicant, 'ClientIdentifier');
  const details = treeOf(applicant, 'ApplicantDetails');
  if ((clientId === undefined) === (details === undefined))
    throw new RuleError('Applicant', 'must hold either ClientIdentifier or ApplicantDetails');
  if (clientId !== undefined) return { clientId: Number(clientId) };
  const address = treeOf(details!, 'Address') ?? {};
  return {
    details: {
      name: textOf(details!, 'Name') ?? '',
      clientType: textOf(details!, 'ClientType') as 'Organisation' | 'Person',
      line1: textOf(address, 'AddressLine1') ?? '',
      line2: textOf(address, 'AddressLine2'),
      line3: textOf(address, 'AddressLine3'),
      city: textOf(address, 'City') ?? '',
      postcode: textOf(address, 'Postcode'),
      countryCode: textOf(address, 'CountryCode') ?? '',
    },
  };
}

const optionalNumber = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text);

function attachmentOf(body: Tree, field: string): Attachment | undefined {
  const element = treeOf(body, field);
  const staged = element && binaryOf(element, 'ObjectData');
  if (!element || !staged) return undefined;
  return {
    field,
    name: textOf(element, 'ObjectName') ?? field,
    format: (textOf(element, 'ObjectFormat') ?? 'pdf') as Attachment['format'],
    staged,
  };
}

const party = (p: { clientId: number; name: string } | undefined): XmlTree | undefined =>
  p && { ClientIdentifier: p.clientId, ClientName: p.name };

const feesTree = (created: CreatedCase): XmlTree => ({
  Fee: created.fees.map((f) => ({
    FeeCode: f.feeCode,
    Quantity: f.quantity,
    AmountCents: f.amountCents,
    GstCents: f.gstCents,
  })),
});

/** A patent application's request tree as the domain's input, with its attachments. */
function patentApplicationOf(body: Tree): { application: Application; attachments: Attachment[] } {
  const attachments = [attachmentOf(body, 'AmendedSpecification'), attachmentOf(body, 'Translation')].filter(
    (a): a is Attachment => a !== undefined,
  );
  const patent: PatentApplicationInput = {
    transactionIdentifier: textOf(body, 'TransactionIdentifier'),
    transactionCode: textOf(body, 'TransactionCode') ?? '',
    reference: textOf(body, 'PatentApplicationReference') ?? '',
    applicationContact: textOf(body, 'ApplicationContact') ?? '',
    applicant: applicantOf(body),
    agentClientId: optionalNumber(textOf(body, 'AgentClientIdentifier')),
    internationalApplicationNumber: textOf(body, 'InternationalApplicationNumber') ?? '',
    examinationRequested: booleanOf(textOf(body, 'ExaminationRequested')),
    title: textOf(body, 'PatentTitle'),
    attachments: attachments.map((a) => ({
      role: a.field === 'Translation' ? 'translation' : 'amended-specification',
      name: a.name,
    })),
  };
  return { application: { kind: 'patent', input: patent }, attachments };
}

/** A filed patent's answer fields. */
function patentAnswer(created: CreatedCase, body: Tree): XmlTree {
  const r = created.record;
  return {
    PatentNumber: r.caseNumber,
    PatentCurrentStatusCode: r.status,
    ApplicationDate: r.applicationDate,
    InternationalApplicationNumber: r.internationalApplicationNumber ?? undefined,
    InternationalPublicationNumber: r.internationalPublicationNumber ?? undefined,
    CompleteFiledDate: r.termDate,
    PriorityCountryCode: r.priorityCountryCode ?? undefined,
    PatentTitle: r.title,
    ExaminationRequested: booleanOf(textOf(body, 'ExaminationRequested')),
    Applicant: party(created.applicant),
    Agent: party(created.agent),
    Fees: feesTree(created),
    Documents: documentsTree(r.documents),
  };
}

/** A trade mark application's request tree as the domain's input, with its attachment. */
function tradeMarkApplicationOf(body: Tree): { application: Application; attachments: Attachment[] } {
  const representation = attachmentOf(body, 'MarkRepresentation');
  const tradeMark: TradeMarkApplicationInput = {
    transactionIdentifier: textOf(body, 'TransactionIdentifier'),
    transactionCode: textOf(body, 'TransactionCode') ?? '',
    reference: textOf(body, 'ApplicationReference') ?? '',
    applicationContact: textOf(body, 'ApplicationContact') ?? '',
    applicant: applicantOf(body),
    agentClientId: optionalNumber(textOf(body, 'AgentClientIdentifier')),
    registrationOfficeCode: textOf(body, 'RegistrationOfficeCode') ?? '',
    intendedUseCode: textOf(body, 'IntendedUseCode') ?? '',
    markTitle: textOf(body, 'MarkTitle') ?? '',
    classes: treesOf(treeOf(body, 'GoodsAndServices') ?? {}, 'ClassDescription').map((c) => ({
      classNumber: Number(textOf(c, 'ClassNumber')),
      description: textOf(c, 'Description') ?? '',
    })),
  };
  return {
    application: { kind: 'trademark', input: tradeMark },
    attachments: representation ? [representation] : [],
  };
}

/** A filed trade mark's answer fields. */
function tradeMarkAnswer(created: CreatedCase): XmlTree {
  const r = created.record;
  return {
    ApplicationNumber: r.caseNumber,
    RegistrationOfficeCode: 'NZ',
    ApplicationDate: r.applicationDate,
    MarkCurrentStatusCode: r.status,
    MarkTitle: r.title,
    MarkImageName: r.markImageName ?? undefined,
    Owner: party(created.applicant),
    Agent: party(created.agent),
    GoodsAndServices: {
      ClassDescription: r.goodsAndServices.map((g) => ({
        ClassNumber: g.classNumber,
        Description: g.description,
      })),
    },
    Fees: feesTree(created),
    Documents: documentsTree(r.documents),
  };
}

export async function filingRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const documents = documentStoreFor(context.database);

  /** Files one application; the answer's echo fields first, then what was created or the error. */
  const file = async (
    input: SoapInput,
    answerElement: string,
    echo: XmlTree,
    build: () => { application: Application; attachments: Attachment[] },
    describe: (created: CreatedCase) => XmlTree,
  ): Promise<{ xml: string }> => {
    const caller = input.request.caller!;
    const requestor = await registeredRequestor(context, caller);
    try {
      const { application, attachments } = build();
      const result = await fileApplication(
        context,
        {
          caller,
          requestor,
          application,
          attachments,
          requestId: input.request.id,
          describe: (created) => ({ ...echo, ...describe(created) }),
        },
        { cases, documents },
      );
      return { xml: xmlElement(answerElement, NS, result.answer as XmlTree) };
    } catch (error) {
      return { xml: xmlElement(answerElement, NS, { ...echo, ...errorFields(error, input.request) }) };
    }
  };

  await soapEndpoint(app, {
    path: '/patent',
    absoluteUrl: context.absoluteUrl,
    summary: 'File a PCT national phase patent application (registered users; fee)',
    wsdl: 'patent.wsdl',
    xsds: ['patent-application.xsd'],
    namespace: NS,
    faults: REFUSAL_FAULTS,
    documents,
    operations: [
      {
        name: 'FilePatentApplication',
        soapAction: 'FilePatentApplication',
        request: 'FilePatentApplication',
        maxBytes: ATTACHMENTS_MAX_BYTES,
        handle: (input) => {
          const body = input.body;
          const echo: XmlTree = {
            TransactionIdentifier: textOf(body, 'TransactionIdentifier'),
            TransactionCode: textOf(body, 'TransactionCode') ?? '',
            PatentApplicationReference: textOf(body, 'PatentApplicationReference') ?? '',
          };
          return file(
            input,
            'FilePatentApplicationResponse',
            echo,
            () => patentApplicationOf(body),
            (created) => patentAnswer(created, body),
          );
        },
      },
    ],
  });

  await soapEndpoint(app, {
    path: '/trademark',
    absoluteUrl: context.absoluteUrl,
    summary: 'File a trade mark application (registered users; fee per class)',
    wsdl: 'trademark.wsdl',
    xsds: ['trademark-application.xsd'],
    namespace: NS,
    faults: REFUSAL_FAULTS,
    documents,
    operations: [
      {
        name: 'FileTradeMarkApplication',
        soapAction: 'FileTradeMarkApplication',
        request: 'FileTradeMarkApplication',
        maxBytes: ATTACHMENTS_MAX_BYTES,
        handle: (input) => {
          const body = input.body;
          const echo: XmlTree = {
            TransactionIdentifier: textOf(body, 'TransactionIdentifier'),
            TransactionCode: textOf(body, 'TransactionCode') ?? '',
            ApplicationReference: textOf(body, 'ApplicationReference') ?? '',
          };
          return file(
            input,
            'FileTradeMarkApplicationResponse',
            echo,
            () => tradeMarkApplicationOf(body),
            tradeMarkAnswer,
          );
        },
      },
    ],
  });
}
