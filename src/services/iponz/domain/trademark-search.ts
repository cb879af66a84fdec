/**
 * The trade mark search (`POST /trademarksearch`): its criteria checked, and its answer's trade marks.
 * Published: `ClientRef` echoed unchanged; `Title`; `FilingDateRange` and `RegisterDateRange`
 * (`FromDate`, `ToDate`); status, nature, type, owner or agent client id; at most 2,000 marks matching
 * all the criteria given; an empty `ListTradeMarksResponseData` when none. Ours: at least one
 * criterion besides `ClientRef`; a range's `FromDate` not after its `ToDate`; either end may be left
 * out; `MoreResultsAvailable` tells that more than the 2,000 answered matched; marks by number.
 * The XSD has already checked shapes (dates, enumerations, lengths) for SOAP; the JSON form is
 * checked by its schema and the same rules here.
 */
import { RuleError } from '../../../platform/errors.ts';
import { expiryDateOf } from './renewals.ts';
import { parseTitleQuery, type TitleQuery } from './title-query.ts';

export const SEARCH_CAP = 2000;

export interface DateRangeCriterion {
  from?: string;
  to?: string;
}

export interface TradeMarkCriteria {
  clientRef?: string;
  titleText?: string;
  title?: TitleQuery;
  filing?: DateRangeCriterion;
  registered?: DateRangeCriterion;
  statuses?: string[];
  nature?: string;
  type?: string;
  ownerClientId?: number;
  agentClientId?: number;
}

/** The criteria as the request names them (SOAP's TradeMarkSearchCriteria; the JSON body alike). */
export interface CriteriaInput {
  ClientRef?: string;
  Title?: string;
  FilingDateRange?: { FromDate?: string; ToDate?: string } | string;
  RegisterDateRange?: { FromDate?: string; ToDate?: string } | string;
  StatusList?: { StatusID?: string[] } | string[] | string;
  MarkNature?: string;
  MarkType?: string;
  OwnerClientID?: string;
  AgentClientID?: string;
}

function range(input: CriteriaInput['FilingDateRange'], field: string): DateRangeCriterion | undefined {
  if (input === undefined || typeof input === 'string') return undefined;
  const from = input.FromDate;
  const to = input.ToDate;
  if (from && to && from > to) throw new RuleError(`${field}.FromDate`, `must not be after ToDate (${to})`);
  return from || to ? { ...(from ? { from } : {}), ...(to ? { to } : {}) } : undefined;
}

/** The criteria checked; RuleError naming the element and the rule. */
export function parseCriteria(input: CriteriaInput): TradeMarkCriteria {
  const criteria: TradeMarkCriteria = {};
  if (input.ClientRef !== undefined) criteria.clientRef = input.ClientRef;
  if (input.Title !== undefined && input.Title.trim() !== '') {
    criteria.titleText = input.Title;
    criteria.title = parseTitleQuery(input.Title);
  }
  const filing = range(input.FilingDateRange, 'FilingDateRange');
  if (filing) criteria.filing = filing;
  const registered = range(input.RegisterDateRange, 'RegisterDateRange');
  if (registered) criteria.registered = registered;
  const statuses = Array.isArray(input.StatusList)
    ? input.StatusList
    : typeof input.StatusList === 'object'
      ? (input.StatusList.StatusID ?? [])
      : [];
  if (statuses.length) criteria.statuses = [...new Set(statuses)];
  if (input.MarkNature) criteria.nature = input.MarkNature;
  if (input.MarkType) criteria.type = input.MarkType;
  if (input.OwnerClientID) criteria.ownerClientId = Number(input.OwnerClientID);
  if (input.AgentClientID) criteria.agentClientId = Number(input.AgentClientID);
  const { clientRef: _, titleText: __, ...given } = criteria;
  if (Object.keys(given).length === 0)
    throw new RuleError(
      'TradeMarkSearchCriteria',
      'needs at least one criterion: Title, a date range, StatusList, MarkNature, MarkType, OwnerClientID or AgentClientID',
    );
  return criteria;
}

/** One mark as the search answers it (the XSD's order; the JSON answer uses the same names). */
export interface TradeMarkHit {
  caseNumber: number;
  title: string;
  status: string;
  statusDate: string;
  applicationDate: string;
  termDate: string;
  registrationDate: string | null;
  lastRenewalDueDate: string | null;
  markImageName: string | null;
  markNature: string;
  markType: string;
  classes: number[];
  documents: string[];
}

export function hitTree(hit: TradeMarkHit) {
  const expiry = expiryDateOf({
    kind: 'trademark',
    status: hit.status,
    filingDate: hit.termDate,
    registrationDate: hit.registrationDate ?? undefined,
    lastRenewalDueDate: hit.lastRenewalDueDate ?? undefined,
    classes: Math.max(1, hit.classes.length),
  });
  return {
    ApplicationNumber: String(hit.caseNumber),
    MarkTitle: hit.title,
    GoodsAndServices: { ClassNumber: hit.classes },
    MarkImageName: hit.markImageName ?? undefined,
    MarkCurrentStatusCode: hit.status,
    FilingDate: hit.applicationDate,
    MarkCurrentStatusDate: hit.statusDate,
    RegistrationDate: hit.registrationDate ?? undefined,
    ExpiryDate: expiry ?? undefined,
    MarkNature: hit.markNature,
    MarkType: hit.markType,
    Documents: { ObjectIdentifier: hit.documents },
  };
}
