/**
 * `POST /trademarksearch`: the trade mark search, SOAP 1.1 (WSDL `GET /trademarksearch?wsdl`), and the
 * same search as REST JSON (ours, `Content-Type: application/json`, the criteria under the same names).
 * A criterion that breaks a rule (a title query that does not parse, a range backwards, none given) is
 * answered — as the register publishes — with HTTP 200, `appErrorEncountered` true and `ErrorMessage`;
 * our own failure with `faultErrorEncountered` true. In JSON they are 400 problem+json naming the field,
 * and 500.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { clientWentAway } from '../../../platform/http/client-gone.ts';
import { TRADE_MARK_STATUSES } from '../domain/renewals.ts';
import type { CriteriaInput } from '../domain/trademark-search.ts';
import { searchTradeMarks } from '../operations/trademark-search.ts';
import { jsonForm, soapEndpoint } from '../soap/endpoint.ts';
import type { Tree } from '../soap/validator.ts';
import { xmlElement } from '../soap/writer.ts';

export const SERVICES_NS = 'http://www.iponz.govt.nz/services';
export const LIST_NS = 'http://www.iponz.govt.nz/XMLSchema/trademarks/listv1';

const Range = Type.Object(
  {
    FromDate: Type.Optional(Type.String({ format: 'date' })),
    ToDate: Type.Optional(Type.String({ format: 'date' })),
  },
  { additionalProperties: false },
);
export const SearchJsonBody = Type.Object(
  {
    ClientRef: Type.Optional(Type.String({ maxLength: 255 })),
    Title: Type.Optional(Type.String({ maxLength: 255 })),
    FilingDateRange: Type.Optional(Range),
    RegisterDateRange: Type.Optional(Range),
    StatusList: Type.Optional(Type.Array(Type.String({ enum: [...TRADE_MARK_STATUSES] }), { maxItems: 12 })),
    MarkNature: Type.Optional(Type.String({ enum: ['Trade Mark', 'Collective Mark', 'Certification Mark'] })),
    MarkType: Type.Optional(Type.String({ enum: ['Word', 'Image', 'Combined', 'Colour', 'Shape', 'Sound'] })),
    OwnerClientID: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{5,8}$' })),
    AgentClientID: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{5,8}$' })),
  },
  {
    additionalProperties: false,
    description: 'The criteria, named as in the WSDL’s TradeMarkSearchCriteria',
  },
);
const JsonHit = Type.Object({
  ApplicationNumber: Type.String(),
  MarkTitle: Type.String(),
  GoodsAndServices: Type.Object({ ClassNumber: Type.Array(Type.Integer()) }),
  MarkImageName: Type.Optional(Type.String()),
  MarkCurrentStatusCode: Type.String(),
  FilingDate: Type.String(),
  MarkCurrentStatusDate: Type.String(),
  RegistrationDate: Type.Optional(Type.String()),
  ExpiryDate: Type.Optional(Type.String()),
  MarkNature: Type.String(),
  MarkType: Type.String(),
  Documents: Type.Object({ ObjectIdentifier: Type.Array(Type.String()) }),
});
export const SearchJsonAnswer = Type.Object({
  ClientRef: Type.Optional(Type.String()),
  ResultCount: Type.Integer(),
  MoreResultsAvailable: Type.Boolean(),
  TradeMarks: Type.Array(JsonHit),
});

const criteriaOf = (body: Tree): CriteriaInput => {
  const details = (
    ((body.ListTradeMarks as Tree).ListTradeMarksBody as Tree).ListTradeMarksContentDetails as Tree
  ).TradeMarkSearchCriteria as Tree;
  return details as unknown as CriteriaInput;
};

export async function soapSearchRoutes(app: FastifyInstance, context: ServiceContext): Promise<void> {
  await soapEndpoint(app, {
    path: '/trademarksearch',
    absoluteUrl: context.absoluteUrl,
    summary: 'Trade mark search',
    wsdl: 'trademarksearch.wsdl',
    xsds: ['trademark-search.xsd', 'trademark-list-v1.xsd'],
    namespace: SERVICES_NS,
    operations: [
      {
        name: 'ListTrademarks',
        soapAction: 'ListTrademarks',
        request: 'ListTrademarks',
        async handle({ body, request }) {
          const input = criteriaOf(body);
          const clientRef = input.ClientRef;
          const answer = (tree: Record<string, unknown>) => ({
            xml: xmlElement('ListTrademarksResponse', SERVICES_NS, {
              ClientRef: clientRef,
              ...tree,
            } as never),
          });
          try {
            const { tradeMarks, more } = await searchTradeMarks(context, input);
            return answer({
              appErrorEncountered: false,
              faultErrorEncountered: false,
              ResultCount: tradeMarks.length,
              MoreResultsAvailable: more,
              ListTradeMarksResponseData: { '@_xmlns': LIST_NS, TradeMark: tradeMarks },
            });
          } catch (error) {
            if (error instanceof RuleError)
              return answer({
                appErrorEncountered: true,
                faultErrorEncountered: false,
                ErrorMessage: `${error.field}: ${error.rule}`,
              });
            if (clientWentAway(request, error)) throw error;
            request.log.error({ err: error }, 'trade mark search failed');
            return answer({
              appErrorEncountered: false,
              faultErrorEncountered: true,
              ErrorMessage: 'The search failed; it is logged. Try again later.',
            });
          }
        },
      },
    ],
    jsonSchema: {
      body: SearchJsonBody,
      response: { 200: SearchJsonAnswer, 400: 'A criterion breaks a rule; errors[] names it (problem+json)' },
    },
    json: jsonForm({
      // Fastify hands an absent body over as null: no criteria, which parseCriteria names.
      validate: (body) => jsonCheck(body ?? {}),
      async handle(_request: FastifyRequest, reply: FastifyReply, body: CriteriaInput) {
        const found = await searchTradeMarks(context, body).catch((error) => {
          // No criterion at all: the JSON body is what is wrong.
          if (error instanceof RuleError && error.field === 'TradeMarkSearchCriteria')
            throw new RuleError('body', error.rule);
          throw error;
        });
        return reply.type('application/json; charset=utf-8').send({
          ...(body.ClientRef !== undefined ? { ClientRef: body.ClientRef } : {}),
          ResultCount: found.tradeMarks.length,
          MoreResultsAvailable: found.more,
          TradeMarks: found.tradeMarks,
        });
      },
    }),
  });
}

/** The JSON form's declared body validator: the shape of SearchJsonBody, a RuleError naming the field. */
function jsonCheck(body: unknown): CriteriaInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RuleError('body', 'must be a JSON object of search criteria');
  const record = body as Record<string, unknown>;
  const allowed = Object.keys(SearchJsonBody.properties);
  for (const key of Object.keys(record))
    if (!allowed.includes(key)) throw new RuleError(key, 'is not a known field');
  const text = (key: string, max: number, pattern?: RegExp, values?: readonly string[]) => {
    const value = record[key];
    if (value === undefined) return;
    if (typeof value !== 'string') throw new RuleError(key, 'must be a string');
    if ([...value].length > max) throw new RuleError(key, `must be at most ${max} characters`);
    if (pattern && !pattern.test(value)) throw new RuleError(key, `must match ${pattern.source}`);
    if (values && !values.includes(value)) throw new RuleError(key, `must be one of ${values.join(', ')}`);
  };
  text('ClientRef', 255);
  text('Title', 255);
  const props = SearchJsonBody.properties;
  text('MarkNature', 40, undefined, props.MarkNature.enum as string[]);
  text('MarkType', 40, undefined, props.MarkType.enum as string[]);
  text('OwnerClientID', 9, /^[1-9][0-9]{5,8}$/);
  text('AgentClientID', 9, /^[1-9][0-9]{5,8}$/);
  for (const key of ['FilingDateRange', 'RegisterDateRange']) {
    const value = record[key];
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new RuleError(key, 'must be an object with FromDate and/or ToDate');
    for (const [inner, date] of Object.entries(value)) {
      if (inner !== 'FromDate' && inner !== 'ToDate')
        throw new RuleError(`${key}.${inner}`, 'is not a known field');
      if (typeof date !== 'string' || !isDate(date))
        throw new RuleError(`${key}.${inner}`, 'must be a date (YYYY-MM-DD)');
    }
  }
  const statuses = record.StatusList;
  if (statuses !== undefined) {
    if (!Array.isArray(statuses) || statuses.length > 12)
      throw new RuleError('StatusList', 'must be a list of at most 12 statuses');
    for (const status of statuses)
      if (typeof status !== 'string' || !(TRADE_MARK_STATUSES as readonly string[]).includes(status))
        throw new RuleError('StatusList', `must hold statuses from ${TRADE_MARK_STATUSES.join(', ')}`);
  }
  return record as CriteriaInput;
}
