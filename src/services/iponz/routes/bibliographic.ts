/**
 * The bibliographic reads (REST XML; JSON on request): a case by number (plural paths, and the singular
 * forms the data dictionaries print), the lists of cases updated in a date range (new applications
 * included), designs registered in a date range (streamed a batch at a time), and the XSDs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import {
  conditionalRead,
  declareOperation,
  operationContext,
  typed,
} from '../../../platform/http/operation.ts';
import {
  LIST_ELEMENT,
  listJson,
  listXml,
  RECORD_ELEMENT,
  recordJson,
  recordXml,
  SCHEMA_FILE,
} from '../domain/bibliographic.ts';
import { parseListRange } from '../domain/date-range.ts';
import { CASE_NUMBER_PARAMETERS, parseCaseNumber } from '../domain/identifiers.ts';
import { documentEtag } from '../domain/renewal-etags.ts';
import type { CaseKind } from '../domain/renewals.ts';
import { listJsonSchema, recordJsonSchema } from '../schemas/bibliographic.ts';
import { CASE_EXAMPLE, RANGE_EXAMPLE, xmlResponses } from '../schemas/operations.ts';
import type { CaseCache } from '../store/case-cache.ts';
import { streamCases } from '../store/cases.ts';
import { documentOf, readCase } from './case-reader.ts';
import { declareAnyAccept, notFound } from './support.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const FORMATS = ['application/xml', 'application/json'] as const;
const XML_TYPE = 'application/xml; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];

/** Plural paths, and the singular forms the data dictionaries print (trade marks' heading is plural). */
export const CASE_PATHS: Record<CaseKind, readonly string[]> = {
  patent: ['/patents', '/patent'],
  trademark: ['/trademarks'],
  design: ['/designs', '/design'],
};
/** Fastify ends a parameter name at a hyphen: {patent-number} is named patentNumber, and so on. */
export const PARAM_NAME: Record<CaseKind, string> = {
  patent: 'patentNumber',
  trademark: 'trademarkNumber',
  design: 'designNumber',
};
const NAMES: Record<CaseKind, string> = { patent: 'patent', trademark: 'trade mark', design: 'design' };

/**
 * A date parameter: `YYYY-MM-DD` (or empty, which the domain answers "is required"); whether it is a real
 * date, the range's order and length are the domain's rules (domain/date-range.ts).
 */
const dateParameter = (description: string, example?: string) =>
  Type.Optional(
    Type.String({
      pattern: '^([0-9]{4}-[0-9]{2}-[0-9]{2})?$',
      description: `${description} (YYYY-MM-DD)`,
      ...(example ? { examples: [example] } : {}),
    }),
  );
const LIST_DATES = {
  'start-date': dateParameter('First New Zealand date of the range', RANGE_EXAMPLE.start),
  'end-date': dateParameter('Last date of the range, at most 366 days on', RANGE_EXAMPLE.end),
};
const ListQuery = Type.Object(LIST_DATES);
const DesignListQuery = Type.Object({
  ...LIST_DATES,
  'registered-start-date': dateParameter('Designs registered from this date (instead of start-date)'),
  'registered-end-date': dateParameter('Designs registered up to this date'),
});

export const XSD_FILES: readonly string[] = KINDS.map((kind) => SCHEMA_FILE[kind]);

export async function bibliographicRoutes(
  plugin: FastifyInstance,
  context: ServiceContext,
  cases: CaseCache,
): Promise<void> {
  const app = typed(plugin);
  const pool = context.database.pool;
  const xsds = new Map(
    XSD_FILES.map((file) => [file, readFileSync(path.join(here, '..', 'xsd', file), 'utf8')]),
  );

  app.get(
    '/schemas/:schema',
    declareAnyAccept(
      {
        schema: {
          summary:
            'The XML Schemas (XSD) of the bibliographic documents: patent.xsd, trademark.xsd, design.xsd',
          // Any name is a path that may name a schema: one that names none is 404, not a 400.
          params: Type.Object({
            schema: Type.String({ description: `One of ${XSD_FILES.join(', ')}`, examples: [XSD_FILES[0]] }),
          }),
          response: {
            200: { description: 'The XSD', content: { 'application/xml': { schema: { type: 'string' } } } },
            404: xmlResponses('', '', [404])[404],
          },
        },
      },
      { produces: ['application/xml'] },
    ),
    async (request, reply) => {
      const text = xsds.get(request.params.schema);
      if (text === undefined)
        throw notFound(`schema ${request.params.schema}; there are ${XSD_FILES.join(', ')}`);
      return reply.type(XML_TYPE).header('Cache-Control', 'public, max-age=86400').send(text);
    },
  );

  for (const kind of KINDS) {
    const xsd = `schemas/${SCHEMA_FILE[kind]}`;
    const param = PARAM_NAME[kind];
    for (const base of CASE_PATHS[kind]) {
      app.get(
        `${base}/:${param}`,
        declareOperation(
          {
            schema: {
              summary: `Full public register data of one ${NAMES[kind]} (${RECORD_ELEMENT[kind]})`,
              // The number's rule is the domain's (`parseCaseNumber`): its 400 names `patent-number` …
              params: Type.Record(
                Type.Literal(param),
                Type.String({ description: `The ${NAMES[kind]} number`, examples: [CASE_EXAMPLE[kind]] }),
              ),
              response: xmlResponses(
                xsd,
                `The ${RECORD_ELEMENT[kind]} document`,
                [304, 400, 404, 406, 412],
                recordJsonSchema(kind),
              ),
            },
          },
          { produces: FORMATS, conditional: 'read' },
        ),
        async (request, reply) => {
          const format = operationContext(request).mediaType;
          const text = request.params[param] ?? '';
          const number = parseCaseNumber(kind, text, CASE_NUMBER_PARAMETERS[kind]);
          const cached = await readCase(pool, cases, kind, number);
          if (!cached) throw notFound(`${NAMES[kind]} with number ${number}`);
          const record = cached.record;
          const json = format === 'application/json';
          const etag = documentEtag(record, json ? 'json' : 'xml');
          reply.header('Vary', 'Accept');
          if (conditionalRead(request, reply, { etag, lastModified: record.updatedAt })) return reply;
          return json
            ? reply.type(JSON_TYPE).send(documentOf(cached, 'json', () => recordJson(record)))
            : reply.type(XML_TYPE).send(documentOf(cached, 'xml', () => recordXml(record)));
        },
      );
    }

    app.get(
      CASE_PATHS[kind][0]!,
      declareOperation(
        {
          schema: {
            summary:
              kind === 'design'
                ? 'Designs updated (new applications included) or registered in a date range (DesignList)'
                : `${NAMES[kind][0]!.toUpperCase()}${NAMES[kind].slice(1)}s updated in a date range, new applications included (${LIST_ELEMENT[kind]})`,
            querystring: kind === 'design' ? DesignListQuery : ListQuery,
            response: xmlResponses(
              xsd,
              `The ${LIST_ELEMENT[kind]} document, streamed`,
              [400, 406],
              listJsonSchema(kind),
            ),
          },
        },
        // Streamed as it is read: no validators (the list changes with every case in the range).
        { produces: FORMATS },
      ),
      async (request, reply) => {
        const format = operationContext(request).mediaType;
        const range = parseListRange(request.query, kind === 'design');
        const stream = streamCases(pool, kind, {
          by: range.dateType === 'Registered' ? 'registered' : 'updated',
          from: range.startDate,
          to: range.endDate,
        });
        // The first batch is read before the answer starts, so a database that is away is a 503, not a
        // 200 cut short.
        const head = await stream.next();
        async function* cases() {
          if (head.done) return;
          yield head.value;
          yield* stream;
        }
        async function* body(): AsyncGenerator<string> {
          if (format === 'application/json') {
            const json = listJson(kind, range);
            yield json.open;
            let first = true;
            for await (const record of cases()) {
              yield json.item(record, first);
              first = false;
            }
            yield json.close;
          } else {
            const xml = listXml(kind, range);
            yield xml.open;
            for await (const record of cases()) yield xml.item(record);
            yield xml.close;
          }
        }
        reply.header('Vary', 'Accept');
        return reply.type(format === 'application/json' ? JSON_TYPE : XML_TYPE).send(Readable.from(body()));
      },
    );
  }
}
