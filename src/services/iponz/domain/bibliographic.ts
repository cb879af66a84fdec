/**
 * The bibliographic documents of patents, trade marks and designs: one element tree per case, rendered
 * as XML (fast-xml-parser's XMLBuilder, which escapes every text) valid against the kind's XSD (xsd/), or
 * as JSON with the same names (the README's mapping: an element is a key, a repeated element an array,
 * every value a string but PublicationDefermentIndicator, a boolean).
 *
 * Published: the element names and order up to the current status (reference/iponz.md).
 * Ours: TransactionDateTime is the case's last change (so an answer's ETag holds until the case changes);
 * the elements after the current status (title, dates, StatusHistory with its status changes and renewals,
 * Parties, Documents, GoodsAndServices);
 * text is stripped of characters XML 1.0 cannot hold (controls, lone surrogates).
 */
import { XMLBuilder } from 'fast-xml-parser';
import { type CaseRecord, expiryOf } from './model.ts';
import type { CaseKind } from './renewals.ts';

export const RECORD_ELEMENT: Record<CaseKind, string> = {
  patent: 'Patent',
  trademark: 'TradeMark',
  design: 'Design',
};
export const LIST_ELEMENT: Record<CaseKind, string> = {
  patent: 'PatentList',
  trademark: 'TradeMarkList',
  design: 'DesignList',
};
/** The XSD of each kind, as served under the service (`schemas/<file>`). */
export const SCHEMA_FILE: Record<CaseKind, string> = {
  patent: 'patent.xsd',
  trademark: 'trademark.xsd',
  design: 'design.xsd',
};

/** Characters XML 1.0 cannot hold: controls but tab, line feed and return; U+FFFE, U+FFFF; lone surrogates. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text XML 1.0 can hold. */
export const xmlText = (text: string): string => text.replace(NOT_XML, '');

type Tree = { [element: string]: string | string[] | boolean | Tree | Tree[] | undefined };

const opt = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined ? undefined : xmlText(value);

function common(record: CaseRecord): Tree {
  return {
    StatusHistory: {
      Status: record.history.map((h) => ({ StatusCode: xmlText(h.status), StatusDate: h.statusDate })),
      // Renewals are events of their own, after the status changes, oldest first (not repeated statuses).
      Renewal: record.renewals.map((r) => ({
        RenewalDate: r.renewalDate,
        RenewedExpiryDate: r.renewedExpiryDate,
        NewExpiryDate: r.newExpiryDate,
      })),
    },
    Parties: {
      Party: record.parties.map((p) => ({
        PartyRole: p.role,
        ClientIdentifier: String(p.clientId),
        ClientName: xmlText(p.name),
        CountryCode: opt(p.countryCode),
      })),
    },
    Documents: {
      Document: record.documents.map((d) => ({
        ObjectIdentifier: d.documentIdentifier,
        ObjectName: xmlText(d.documentName),
        ObjectFormat: d.objectFormat,
        DocumentDate: d.createdOn,
      })),
    },
  };
}

/**
 * A patent's detail (ours, after its expiry): abstract, claims, IPC classifications, priority claims, PCT
 * publication (each absent for a patent without them), and its inventors (the parties of role Inventor).
 */
function patentDetailTree(record: CaseRecord): Tree {
  const detail = record.patentDetail;
  return {
    Abstract: opt(detail?.abstract),
    Claims: detail
      ? {
          ClaimCount: String(detail.claims.count),
          IndependentClaim: detail.claims.independent.map((c) => ({
            ClaimNumber: String(c.number),
            ClaimText: xmlText(c.text),
          })),
        }
      : undefined,
    IpcClassifications: detail ? { IpcClassification: detail.ipcClassifications } : undefined,
    PriorityClaims: detail
      ? {
          PriorityClaim: detail.priorityClaims.map((p) => ({
            PriorityNumber: xmlText(p.number),
            PriorityDate: p.date,
            PriorityCountryCode: p.countryCode,
          })),
        }
      : undefined,
    PctPublication: detail?.pctPublication
      ? { PublicationNumber: detail.pctPublication.number, PublicationDate: detail.pctPublication.date }
      : undefined,
    Inventors: {
      Inventor: record.parties
        .filter((p) => p.role === 'Inventor')
        .map((p) => ({
          ClientIdentifier: String(p.clientId),
          InventorName: xmlText(p.name),
          CountryCode: opt(p.countryCode),
        })),
    },
  };
}

/** The element tree of one case (the content of its record element). */
export function recordTree(record: CaseRecord): Tree {
  const transaction = record.updatedAt.toISOString();
  const number = String(record.caseNumber);
  const expiry = opt(expiryOf(record));
  if (record.kind === 'patent') {
    return {
      TransactionDateTime: transaction,
      PatentNumber: number,
      InternationalApplicationNumber: opt(record.internationalApplicationNumber),
      InternationalPublicationNumber: opt(record.internationalPublicationNumber),
      PatentCurrentStatusCode: record.status,
      PatentCurrentStatusDate: record.statusDate,
      CompleteFiledDate: record.termDate,
      PriorityCountryCode: opt(record.priorityCountryCode),
      PatentTitle: xmlText(record.title),
      ApplicationDate: record.applicationDate,
      GrantDate: opt(record.registrationDate),
      ExpiryDate: expiry,
      ...patentDetailTree(record),
      ...common(record),
    };
  }
  if (record.kind === 'trademark') {
    return {
      TransactionDateTime: transaction,
      RegistrationOfficeCode: 'NZ',
      ApplicationNumber: number,
      InternationalRegistrationNumber: opt(record.internationalRegistrationNumber),
      ApplicationDate: record.applicationDate,
      // A trade mark's registration number is its application number, once registered.
      RegistrationNumber: record.registrationDate ? number : undefined,
      RegistrationDate: opt(record.registrationDate),
      ExpiryDate: expiry,
      MarkCurrentStatusCode: record.status,
      MarkCurrentStatusDate: record.statusDate,
      MarkTitle: xmlText(record.title),
      MarkImageName: opt(record.markImageName),
      GoodsAndServices: {
        ClassDescription: record.goodsAndServices.map((g) => ({
          ClassNumber: String(g.classNumber),
          Description: xmlText(g.description),
        })),
      },
      ...common(record),
    };
  }
  return {
    TransactionDateTime: transaction,
    DesignIdentifier: number,
    ApplicationDate: record.applicationDate,
    RegistrationNumber: record.registrationDate ? number : undefined,
    RegistrationDate: opt(record.registrationDate),
    DesignTitle: xmlText(record.title),
    NoveltyStatement: opt(record.noveltyStatement),
    PublicationDefermentIndicator: false,
    ExpiryDate: expiry,
    DesignCurrentStatusCode: record.status,
    DesignCurrentStatusDate: record.statusDate,
    ...common(record),
  };
}

const builder = new XMLBuilder({
  ignoreAttributes: true,
  processEntities: true,
  suppressBooleanAttributes: false,
});

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** One case as an XML document. */
export const recordXml = (record: CaseRecord): string =>
  XML_DECLARATION + builder.build({ [RECORD_ELEMENT[record.kind]]: recordTree(record) });

/** One case as JSON (the same tree under the record element). */
export const recordJson = (record: CaseRecord): string =>
  JSON.stringify({ [RECORD_ELEMENT[record.kind]]: recordTree(record) });

export interface ListRange {
  dateType: 'Updated' | 'Registered';
  startDate: string;
  endDate: string;
}

/** A list document in pieces, to stream: its opening, each record's element, its closing. */
export function listXml(kind: CaseKind, range: ListRange) {
  const list = LIST_ELEMENT[kind];
  const element = RECORD_ELEMENT[kind];
  return {
    open: `${XML_DECLARATION}<${list}>${builder.build({
      DateRange: { DateType: range.dateType, StartDate: range.startDate, EndDate: range.endDate },
    })}`,
    item: (record: CaseRecord): string => builder.build({ [element]: recordTree(record) }),
    close: `</${list}>`,
  };
}

/** The same list as JSON, in pieces: `{"PatentList":{"DateRange":{…},"Patent":[…]}}`. */
export function listJson(kind: CaseKind, range: ListRange) {
  return {
    open: `{${JSON.stringify(LIST_ELEMENT[kind])}:{"DateRange":${JSON.stringify({
      DateType: range.dateType,
      StartDate: range.startDate,
      EndDate: range.endDate,
    })},${JSON.stringify(RECORD_ELEMENT[kind])}:[`,
    item: (record: CaseRecord, first: boolean): string =>
      (first ? '' : ',') + JSON.stringify(recordTree(record)),
    close: ']}}',
  };
}
