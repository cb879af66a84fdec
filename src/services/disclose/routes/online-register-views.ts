/**
 * The online register's pages as HTML, one view per page: an offer's or scheme's, a fund's, the lists
 * of offers and schemes, and a refusal. Views take what the operations read
 * (operations/online-register.ts) and the pages' base path; every value is escaped by `html`.
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { html, page, type SafeHtml } from '../../../platform/http/html.ts';
import { versionId } from '../domain/records.ts';
import type { Subject } from '../operations/common.ts';
import {
  type FundPage,
  LIST_LIMIT,
  PAGE_HOLDINGS,
  type PageDocument,
  type RecordPage,
} from '../operations/online-register.ts';
import type { FundRow } from '../store/funds.ts';
import type { ParticipantRow } from '../store/register.ts';
import type { SummaryRow } from '../store/searches.ts';

/** A page's title and the content of its main part. */
export interface PageView {
  title: string;
  body: SafeHtml;
}

/** The whole page: the register's banner, the navigation to the lists, and the view. */
export function registerPage(
  environment: ServiceContext['environment'],
  base: string,
  view: PageView,
): string {
  return page(
    view.title,
    html`<p class="muted">Offers register — ${environment === 'sandbox' ? 'sandbox (generated test data)' : 'public register'}</p>${view.body}`,
    { nav: html`<nav><a href="${base}/offers">Offers</a><a href="${base}/schemes">Schemes</a></nav>` },
  );
}

/** The page of a refusal: a record that is not there (404) or an address the page cannot read (400). */
export function refusalView(notFound: boolean, message: string): PageView {
  const title = notFound ? 'Not on the register' : 'Not a valid address';
  return { title, body: html`<div class="card"><h1>${title}</h1><p>${message}</p></div>` };
}

const day = (date: Date | string | null) =>
  date === null ? '—' : typeof date === 'string' ? date : date.toISOString().slice(0, 10);

function documentTable(rows: PageDocument[]): SafeHtml {
  return rows.length === 0
    ? html`<p class="muted">No documents.</p>`
    : html`<table><thead><tr><th>Document</th><th>Type</th><th>Lodged</th><th>Size</th></tr></thead><tbody>${rows.map(
        (d) =>
          html`<tr><td><a href="${d.href}">${d.title}</a> <span class="muted">${d.documentRecId}</span></td><td>${d.documentType}</td><td>${day(d.addedAt)}</td><td>${Math.ceil(d.sizeBytes / 1024)} KB</td></tr>`,
      )}</tbody></table>`;
}

const participantTable = (rows: ParticipantRow[]) =>
  html`<table><thead><tr><th>Role</th><th>Name</th><th>Business number</th></tr></thead><tbody>${rows.map(
    (p) => html`<tr><td>${p.role}</td><td>${p.name}</td><td>${p.nzbn ?? '—'}</td></tr>`,
  )}</tbody></table>`;

/** A record's versions, newest first: the one shown in bold, the others linked. */
const versionList = (number: string, path: string, versions: RecordPage['versions'], shown: number) =>
  html`<ol reversed class="versions">${versions.map(
    (v) =>
      html`<li>${v.version === shown ? html`<strong>${versionId(number, v.version)}</strong>` : html`<a href="${path}?version=${versionId(number, v.version)}">${versionId(number, v.version)}</a>`} — ${day(v.changedAt)}: ${v.change}</li>`,
  )}</ol>`;

const fields = (rows: [string, unknown][]) =>
  html`<table class="fields"><tbody>${rows.map(([name, value]) => html`<tr><th scope="row">${name}</th><td>${value}</td></tr>`)}</tbody></table>`;

const company = (c: unknown) => {
  const value = c as { name: string; nzbn: string | null } | null;
  return value ? `${value.name}${value.nzbn ? ` (${value.nzbn})` : ''}` : '—';
};

/** An offer's or scheme's facts, from its document at the version shown. */
function recordFacts(subject: Subject, number: string, d: Record<string, unknown>): [string, unknown][] {
  return subject === 'offer'
    ? [
        ['Offer number', number],
        ['Status', d.status],
        ['Product type', d.productType],
        ['Offeror', company(d.issuer)],
        ['Scheme', d.schemeNumber ?? '—'],
        ['Open date', d.openDate ?? '—'],
        ['Close date', d.closeDate ?? '—'],
      ]
    : [
        ['Scheme number', number],
        ['Status', d.status],
        ['Scheme type', d.schemeType],
        ['Manager', company(d.manager)],
        ['Supervisor', company(d.supervisor)],
      ];
}

/** An offer's funds, each linked at the offer version asked for. */
function fundsSection(base: string, shown: RecordPage, funds: { total: number; rows: FundRow[] }): SafeHtml {
  const { number, version } = shown;
  return html`<section class="card"><h2>Funds (${funds.total})</h2>${
    funds.total === 0
      ? html`<p class="muted">No funds.</p>`
      : html`<ul>${funds.rows.map(
          (f) =>
            html`<li><a href="${base}/fund/${f.fundNumber}${version ? `?version=${versionId(number, version)}` : ''}">${String((f.document as { name?: string }).name)}</a> <span class="muted">${f.fundNumber}</span></li>`,
        )}</ul>`
  }</section>`;
}

/** A scheme's offers. */
const offersSection = (base: string, offers: NonNullable<RecordPage['offers']>) =>
  html`<section class="card"><h2>Offers</h2><ul>${offers.map(
    (o) =>
      html`<li><a href="${base}/offer/${o.offerNumber}">${o.name}</a> <span class="muted">${o.offerNumber} · ${o.status}</span></li>`,
  )}</ul></section>`;

/** An offer's or scheme's page. */
export function recordView(base: string, shown: RecordPage): PageView {
  const { subject, number, row, documents, participants } = shown;
  const d = row.document as Record<string, unknown>;
  const path = `${base}/${subject}/${number}`;
  const extra = shown.funds
    ? fundsSection(base, shown, shown.funds)
    : offersSection(base, shown.offers ?? []);
  return {
    title: String(d.name),
    body: html`<div class="card"><h1>${String(d.name)}</h1>
<p>Version <strong>${versionId(number, row.version)}</strong> of ${day(row.changedAt)}${row.version !== row.currentVersion ? html` — a historic version; <a href="${path}">see the current one</a>` : ''}</p>
${fields(recordFacts(subject, number, d))}</div>
${extra}
<section class="card"><h2>Documents (${documents.total})</h2>${documentTable(documents.rows)}</section>
<section class="card"><h2>Participants (${participants.total})</h2>${participantTable(participants.rows)}</section>
<section class="card"><h2>Versions</h2>${versionList(number, path, shown.versions, row.version)}</section>`,
  };
}

const list = <T>(items: unknown, render: (item: T) => SafeHtml) =>
  html`<ul>${((items as T[] | undefined) ?? []).map(render)}</ul>`;

/** A fund's facts: its type, unit price, returns, fees and asset allocation. */
function fundFacts(base: string, fund: FundRow, d: Record<string, unknown>): [string, unknown][] {
  const unitPrice = d.unitPrice as { price: number; currency: string } | undefined;
  return [
    ['Fund number', fund.fundNumber],
    ['Offer', html`<a href="${base}/offer/${fund.offerNumber}">${fund.offerNumber}</a>`],
    ['Fund type', d.fundType],
    ['Unit price', unitPrice ? `${unitPrice.price} ${unitPrice.currency}` : '—'],
    [
      'Returns',
      list<{ period: string; percentage: number }>(
        d.returns,
        (r) => html`<li>${r.period}: ${r.percentage}%</li>`,
      ),
    ],
    [
      'Fees',
      list<{ feeType: string; percentage: number }>(
        d.fees,
        (f) => html`<li>${f.feeType}: ${f.percentage}%</li>`,
      ),
    ],
    [
      'Asset allocation',
      list<{ assetType: string; actualPercentage: number; targetPercentage: number }>(
        d.assetAllocation,
        (a) => html`<li>${a.assetType}: ${a.actualPercentage}% (target ${a.targetPercentage}%)</li>`,
      ),
    ],
  ];
}

/** The fund's full portfolio holdings: the first PAGE_HOLDINGS of them. */
function holdingsSection(fund: FundRow, holdings: FundPage['holdings']): SafeHtml {
  return html`<section class="card"><h2>Full portfolio holdings${fund.holdingsPeriodEnd ? ` for the period ending ${fund.holdingsPeriodEnd}` : ''} (${holdings.total})</h2>${
    holdings.total === 0
      ? html`<p class="muted">None filed.</p>`
      : html`<table><thead><tr><th>Asset</th><th>Type</th><th>ISIN</th><th>Value</th><th>% of fund</th></tr></thead><tbody>${holdings.rows.map(
          (h) =>
            html`<tr><td>${h.assetName}</td><td>${h.assetType}</td><td>${h.isin ?? '—'}</td><td>${h.value} ${h.currency}</td><td>${h.percentageOfFund}</td></tr>`,
        )}</tbody></table>${holdings.total > PAGE_HOLDINGS ? html`<p class="muted">The first ${PAGE_HOLDINGS} of ${holdings.total}.</p>` : ''}`
  }</section>`;
}

/** A fund's page. */
export function fundView(base: string, shown: FundPage): PageView {
  const { fund, documents, versions } = shown;
  const number = fund.fundNumber;
  const d = fund.document as Record<string, unknown>;
  return {
    title: String(d.name),
    body: html`<div class="card"><h1>${String(d.name)}</h1>
<p>Fund version <strong>${versionId(number, fund.version)}</strong> of ${day(fund.changedAt)}, with offer version <a href="${base}/offer/${fund.offerNumber}?version=${versionId(fund.offerNumber, fund.offerVersion)}">${versionId(fund.offerNumber, fund.offerVersion)}</a>${fund.version !== fund.currentVersion ? html` — historic; <a href="${base}/fund/${number}">see the current fund</a>` : ''}</p>
${fields(fundFacts(base, fund, d))}</div>
${holdingsSection(fund, shown.holdings)}
<section class="card"><h2>Documents</h2>${documentTable(documents.rows)}</section>
<section class="card"><h2>Versions</h2><ol reversed>${versions.map(
      (v) =>
        html`<li>${versionId(number, v.version)} — ${day(v.changedAt)}: ${v.change} (offer version ${versionId(fund.offerNumber, v.offerVersion)})</li>`,
    )}</ol></section>`,
  };
}

/** The list of offers or schemes: the first LIST_LIMIT. */
export function listView(
  base: string,
  subject: Subject,
  found: { total: number; rows: SummaryRow[] },
): PageView {
  const title = subject === 'offer' ? 'Offers' : 'Schemes';
  return {
    title,
    body: html`<div class="card"><h1>${title} (${found.total})</h1><table><thead><tr><th>Number</th><th>Name</th><th>Status</th><th>Type</th></tr></thead><tbody>${found.rows.map(
      (r) =>
        html`<tr><td><a href="${base}/${subject}/${r.number}">${r.number}</a></td><td>${r.name}</td><td>${r.status}</td><td>${r.kind}</td></tr>`,
    )}</tbody></table>${found.total > LIST_LIMIT ? html`<p class="muted">The first ${LIST_LIMIT}.</p>` : ''}</div>`,
  };
}
