import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError, toHttpError } from '../../../platform/http/errors.ts';
import { html, page, type SafeHtml } from '../../../platform/http/html.ts';
import { declareOperation, type TypeBoxProvider, typed } from '../../../platform/http/operation.ts';
import { signedQuery } from '../../../platform/signed-url.ts';
import {
  FUND_NUMBER,
  OFFER_NUMBER,
  parseVersion,
  SCHEME_NUMBER,
  SIGNED_URL_SECONDS,
  versionId,
} from '../domain/records.ts';
import { registerBase } from '../operations/common.ts';
import { downloadPath, signingKey } from '../operations/documents.ts';
import { PageParams, PageQuery } from '../parameters.ts';
import * as documentStore from '../store/documents.ts';
import * as fundStore from '../store/funds.ts';
import * as store from '../store/register.ts';
import * as searchStore from '../store/searches.ts';

const SECURITY_HEADERS = {
  'Cache-Control': 'no-cache',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * A page, declared through the kit: HTML whatever the `Accept` (a page for people, as it always was),
 * hidden from the OpenAPI document. Its path and query are validated against their schemas, and what
 * they refuse is given to the page (`attachValidation`), which answers it as a page (`guarded`), never
 * with the API's JSON error.
 */
const pageRoute = <Schema extends { params?: typeof PageParams; querystring?: typeof PageQuery }>(
  schema: Schema,
) =>
  declareOperation(
    { schema: { hide: true, ...schema }, attachValidation: true },
    { produces: ['text/html'], unacceptable: 'first' },
  );

/** An offer's, scheme's or fund's page: its number and the version shown. */
const recordPageInput = { params: PageParams, querystring: PageQuery };

/** The request of a record's page, typed by the kit from `recordPageInput`. */
type RecordPageRequest = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  typeof recordPageInput,
  TypeBoxProvider
>;

/** A query a page cannot read: the 400 page, naming each parameter and its rule. */
function pageInputRefusal(invalid: Error): RuleError {
  const fields = toHttpError(invalid).fields;
  const first = fields[0] ?? { field: 'query', message: 'is not valid' };
  return RuleError.stated(first.field, fields.map((f) => `${f.field}: ${f.message}`).join('; '));
}

const day = (date: Date | string | null) =>
  date === null ? '—' : typeof date === 'string' ? date : date.toISOString().slice(0, 10);

/**
 * The online register: public, server-rendered pages of offers, schemes and funds (no key), the page
 * each answer's `registerUrl` names, with their versions, participants, documents (signed links) and,
 * for funds, unit price, returns, fees, allocation and holdings.
 */
export function onlineRegisterRoutes(plugin: FastifyInstance, context: ServiceContext): void {
  const app = typed(plugin);
  const pool = context.database.pool;
  const key = signingKey(context);
  const base = registerBase(context);
  const prefix = '/online-register';
  const send = (reply: FastifyReply, title: string, body: SafeHtml, status = 200) =>
    reply
      .code(status)
      .headers(SECURITY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(
        page(
          title,
          html`<p class="muted">Offers register — ${context.environment === 'sandbox' ? 'sandbox (generated test data)' : 'public register'}</p>${body}`,
          {
            nav: html`<nav><a href="${base}/offers">Offers</a><a href="${base}/schemes">Schemes</a></nav>`,
          },
        ),
      );
  /**
   * A page's answer, or the page of its refusal: 404 for a record that is not there (`refusedPath` for
   * a path its schema refused: the page's own 404), 400 for a query it cannot read, naming the parameter.
   */
  const guarded =
    <Request extends FastifyRequest>(
      render: (request: Request, reply: FastifyReply) => Promise<FastifyReply>,
      refusedPath?: (request: Request) => HttpError,
    ) =>
    async (request: Request, reply: FastifyReply) => {
      try {
        const invalid = request.validationError;
        if (invalid) {
          throw invalid.validationContext === 'params' && refusedPath
            ? refusedPath(request)
            : pageInputRefusal(invalid);
        }
        return await render(request, reply);
      } catch (error) {
        if (error instanceof RuleError || (error instanceof HttpError && error.status < 500)) {
          const notFoundPage = !(error instanceof RuleError) && error.status === 404;
          return send(
            reply,
            notFoundPage ? 'Not on the register' : 'Not a valid address',
            html`<div class="card"><h1>${notFoundPage ? 'Not on the register' : 'Not a valid address'}</h1><p>${error.message}</p></div>`,
            notFoundPage ? 404 : 400,
          );
        }
        throw error;
      }
    };
  const link = (recId: string) => {
    const path = downloadPath(context, recId);
    return `${path}?${signedQuery(key, path, 'online-register', context.clock.now().getTime(), SIGNED_URL_SECONDS)}`;
  };
  const documentTable = (rows: documentStore.DocumentRow[]) =>
    rows.length === 0
      ? html`<p class="muted">No documents.</p>`
      : html`<table><thead><tr><th>Document</th><th>Type</th><th>Lodged</th><th>Size</th></tr></thead><tbody>${rows.map(
          (d) =>
            html`<tr><td><a href="${link(d.documentRecId)}">${d.title}</a> <span class="muted">${d.documentRecId}</span></td><td>${d.documentType}</td><td>${day(d.addedAt)}</td><td>${Math.ceil(d.sizeBytes / 1024)} KB</td></tr>`,
        )}</tbody></table>`;
  const participantTable = (rows: store.ParticipantRow[]) =>
    html`<table><thead><tr><th>Role</th><th>Name</th><th>Business number</th></tr></thead><tbody>${rows.map(
      (p) => html`<tr><td>${p.role}</td><td>${p.name}</td><td>${p.nzbn ?? '—'}</td></tr>`,
    )}</tbody></table>`;
  const versionList = (
    number: string,
    path: string,
    versions: { version: number; changedAt: Date; change: string }[],
    shown: number,
  ) =>
    html`<ol reversed class="versions">${versions.map(
      (v) =>
        html`<li>${v.version === shown ? html`<strong>${versionId(number, v.version)}</strong>` : html`<a href="${path}?version=${versionId(number, v.version)}">${versionId(number, v.version)}</a>`} — ${day(v.changedAt)}: ${v.change}</li>`,
    )}</ol>`;
  const fields = (rows: [string, unknown][]) =>
    html`<table class="fields"><tbody>${rows.map(([name, value]) => html`<tr><th scope="row">${name}</th><td>${value}</td></tr>`)}</tbody></table>`;
  const all = { limit: 500, offset: 0 };
  /** A record's page: `notOne` is its 404 for a number that cannot be one of its records. */
  const recordGuarded = (
    notOne: (number: string) => HttpError,
    render: (request: RecordPageRequest, reply: FastifyReply) => Promise<FastifyReply>,
  ) => guarded(render, (request) => notOne(request.params.number));

  const notANumber = (subject: 'offer' | 'scheme') => (number: string) =>
    new HttpError(PLATFORM_ERRORS.notFound, `${number.slice(0, 40)} is not a ${subject} number.`);
  const recordPage = (subject: 'offer' | 'scheme') =>
    recordGuarded(notANumber(subject), async (request, reply) => {
      const number = request.params.number;
      if (!(subject === 'offer' ? OFFER_NUMBER : SCHEME_NUMBER).test(number)) {
        throw notANumber(subject)(number);
      }
      const version = parseVersion(request.query.version, number);
      const row = await store.recordAt(pool, subject, number, version);
      if (!row)
        throw new HttpError(
          PLATFORM_ERRORS.notFound,
          `${version ? versionId(number, version) : number} is not on the register.`,
        );
      const d = row.document as Record<string, unknown>;
      const [versions, participants, documents] = await Promise.all([
        store.versionsOf(pool, subject, number),
        store.participants(pool, subject, number, all),
        documentStore.documents(pool, { kind: subject, number }, all),
      ]);
      const path = `${base}/${subject}/${number}`;
      const company = (c: unknown) => {
        const value = c as { name: string; nzbn: string | null } | null;
        return value ? `${value.name}${value.nzbn ? ` (${value.nzbn})` : ''}` : '—';
      };
      let extra = html``;
      if (subject === 'offer') {
        const funds = await fundStore.fundsOfOffer(pool, number, row.version, all);
        extra = html`<section class="card"><h2>Funds (${funds.total})</h2>${
          funds.total === 0
            ? html`<p class="muted">No funds.</p>`
            : html`<ul>${funds.rows.map(
                (f) =>
                  html`<li><a href="${base}/fund/${f.fundNumber}${version ? `?version=${versionId(number, version)}` : ''}">${String((f.document as { name?: string }).name)}</a> <span class="muted">${f.fundNumber}</span></li>`,
              )}</ul>`
        }</section>`;
      } else {
        const offers = await store.offersOfScheme(pool, number);
        extra = html`<section class="card"><h2>Offers</h2><ul>${offers.map(
          (o) =>
            html`<li><a href="${base}/offer/${o.offerNumber}">${o.name}</a> <span class="muted">${o.offerNumber} · ${o.status}</span></li>`,
        )}</ul></section>`;
      }
      const facts: [string, unknown][] =
        subject === 'offer'
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
      return send(
        reply,
        String(d.name),
        html`<div class="card"><h1>${String(d.name)}</h1>
<p>Version <strong>${versionId(number, row.version)}</strong> of ${day(row.changedAt)}${row.version !== row.currentVersion ? html` — a historic version; <a href="${path}">see the current one</a>` : ''}</p>
${fields(facts)}</div>
${extra}
<section class="card"><h2>Documents (${documents.total})</h2>${documentTable(documents.rows)}</section>
<section class="card"><h2>Participants (${participants.total})</h2>${participantTable(participants.rows)}</section>
<section class="card"><h2>Versions</h2>${versionList(number, path, versions, row.version)}</section>`,
      );
    });

  app.get(`${prefix}/offer/:number`, pageRoute(recordPageInput), recordPage('offer'));
  app.get(`${prefix}/scheme/:number`, pageRoute(recordPageInput), recordPage('scheme'));

  const notAFund = (number: string) =>
    new HttpError(PLATFORM_ERRORS.notFound, `${number.slice(0, 40)} is not on the register.`);
  app.get(
    `${prefix}/fund/:number`,
    pageRoute(recordPageInput),
    recordGuarded(notAFund, async (request, reply) => {
      const number = request.params.number;
      const current = FUND_NUMBER.test(number) ? await fundStore.fundAt(pool, number, undefined) : undefined;
      if (!current) throw notAFund(number);
      const version = parseVersion(request.query.version, current.offerNumber);
      const fund = version ? await fundStore.fundAt(pool, number, version) : current;
      if (!fund)
        throw new HttpError(
          PLATFORM_ERRORS.notFound,
          `${number} did not exist at ${versionId(current.offerNumber, version!)}.`,
        );
      const d = fund.document as Record<string, unknown>;
      const [holdings, documents, versions] = await Promise.all([
        fund.holdingsVersion
          ? fundStore.holdings(pool, number, fund.holdingsVersion, { limit: 50, offset: 0 })
          : Promise.resolve({ total: 0, rows: [] }),
        documentStore.documents(pool, { kind: 'fund', number }, all),
        fundStore.fundVersions(pool, number),
      ]);
      const unitPrice = d.unitPrice as { price: number; currency: string } | undefined;
      const list = <T>(items: unknown, render: (item: T) => SafeHtml) =>
        html`<ul>${((items as T[] | undefined) ?? []).map(render)}</ul>`;
      return send(
        reply,
        String(d.name),
        html`<div class="card"><h1>${String(d.name)}</h1>
<p>Fund version <strong>${versionId(number, fund.version)}</strong> of ${day(fund.changedAt)}, with offer version <a href="${base}/offer/${fund.offerNumber}?version=${versionId(fund.offerNumber, fund.offerVersion)}">${versionId(fund.offerNumber, fund.offerVersion)}</a>${fund.version !== fund.currentVersion ? html` — historic; <a href="${base}/fund/${number}">see the current fund</a>` : ''}</p>
${fields([
  ['Fund number', number],
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
])}</div>
<section class="card"><h2>Full portfolio holdings${fund.holdingsPeriodEnd ? ` for the period ending ${fund.holdingsPeriodEnd}` : ''} (${holdings.total})</h2>${
          holdings.total === 0
            ? html`<p class="muted">None filed.</p>`
            : html`<table><thead><tr><th>Asset</th><th>Type</th><th>ISIN</th><th>Value</th><th>% of fund</th></tr></thead><tbody>${holdings.rows.map(
                (h) =>
                  html`<tr><td>${h.assetName}</td><td>${h.assetType}</td><td>${h.isin ?? '—'}</td><td>${h.value} ${h.currency}</td><td>${h.percentageOfFund}</td></tr>`,
              )}</tbody></table>${holdings.total > 50 ? html`<p class="muted">The first 50 of ${holdings.total}.</p>` : ''}`
        }</section>
<section class="card"><h2>Documents</h2>${documentTable(documents.rows)}</section>
<section class="card"><h2>Versions</h2><ol reversed>${versions.map(
          (v) =>
            html`<li>${versionId(number, v.version)} — ${day(v.changedAt)}: ${v.change} (offer version ${versionId(fund.offerNumber, v.offerVersion)})</li>`,
        )}</ol></section>`,
      );
    }),
  );

  const listPage = (subject: 'offer' | 'scheme') =>
    guarded(async (_request, reply) => {
      const found = await searchStore.search(pool, subject, {}, { limit: 200, offset: 0 });
      return send(
        reply,
        subject === 'offer' ? 'Offers' : 'Schemes',
        html`<div class="card"><h1>${subject === 'offer' ? 'Offers' : 'Schemes'} (${found.total})</h1><table><thead><tr><th>Number</th><th>Name</th><th>Status</th><th>Type</th></tr></thead><tbody>${found.rows.map(
          (r) =>
            html`<tr><td><a href="${base}/${subject}/${r.number}">${r.number}</a></td><td>${r.name}</td><td>${r.status}</td><td>${r.kind}</td></tr>`,
        )}</tbody></table>${found.total > 200 ? html`<p class="muted">The first 200.</p>` : ''}</div>`,
      );
    });
  // The lists and the funds' address take no input: a query parameter is ignored.
  app.get(`${prefix}/offers`, pageRoute({}), listPage('offer'));
  app.get(`${prefix}/schemes`, pageRoute({}), listPage('scheme'));
  app.get(
    `${prefix}/funds`,
    pageRoute({}),
    guarded(async (_request, reply) => reply.redirect(`${base}/offers`, 302)),
  );
}
