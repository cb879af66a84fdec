import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import {
  conditionalRead,
  declareOperation,
  operationContext,
  typed,
} from '../../../platform/http/operation.ts';
import {
  areaListing,
  type Geography,
  isUserDefined,
  resolveAreaDefinition,
  USER_DEFINED,
} from '../domain/areas.ts';
import { marketRentGeography } from '../domain/geography.ts';
import { parseStatisticsQuery } from '../domain/params.ts';
import { csvTable } from '../domain/render.ts';
import { reserveWorkingMemory } from '../domain/report.ts';
import { acquireReportThread } from '../domain/report-thread.ts';
import { deriveSipKey, sipRowUniforms } from '../domain/siphash.ts';
import { warmUpOnce, warmUpThread } from '../domain/warm-up.ts';
import {
  AreaDefinitionList,
  AreaDefinitionParams,
  AreaListing,
  responses,
  StatisticsQuery,
  StatisticsResponse,
} from '../schemas.ts';
import { StatisticsStore } from '../store/statistics.ts';

const FORMATS = ['application/json', 'text/csv'] as const;
const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/**
 * When the fixed listings (the area definitions, from the 2019 geographies shipped with the code) last
 * changed, as far as a client can know: they change only with the code, so no earlier than this process
 * started. Conservative: across a restart or between processes a client's `If-Modified-Since` gets the
 * listing again rather than a 304 for a listing that may have changed.
 */
const LISTINGS_MODIFIED = new Date(Math.floor(Date.now() / 1000) * 1000);

export const marketRentRoutes: FastifyPluginAsync<ServiceContext> = async (plugin, context) => {
  const app = typed(plugin);
  const geography = marketRentGeography();
  const store = new StatisticsStore(context.database.pool, geography, {
    answerCacheBytes: (context.settings.answerCacheMegabytes ?? 128) * 1024 * 1024,
  });
  // The process's report thread (shared by the environments), for national answers on two cores. It
  // starts (and warms its code up) beside this thread's start, not before it: answers are made on one
  // thread until it is ready.
  if (context.settings.reportThread !== 0) {
    const handle = acquireReportThread(
      { warn: (details, message) => app.log.warn(details, message) },
      { warmUp: context.settings.warmUp === 1 },
    );
    void handle.thread.then((thread) => {
      store.useReportThread(thread);
      if (thread !== null && context.settings.warmUp === 1) {
        warmUpThread(thread, geography, context.clock.now(), {
          done: (ms) => app.log.debug({ ms: Math.round(ms) }, 'rental statistics: two threads warmed up'),
          failed: (err) =>
            app.log.warn(
              { err },
              'rental statistics: warming two threads up failed (only speed is at stake)',
            ),
        });
      }
    });
    app.addHook('onClose', async () => handle.release());
  }
  // Before the server takes requests: the first real query then runs compiled code (domain/warm-up.ts).
  if (context.settings.warmUp === 1) {
    warmUpOnce(
      geography,
      context.clock.now(),
      {
        done: (ms) => app.log.debug({ ms: Math.round(ms) }, 'rental statistics: code warmed up'),
        failed: (err) =>
          app.log.warn({ err }, 'rental statistics: warming up failed (only speed is at stake)'),
      },
      () => store.warmUpDecoding(),
    );
    // The working memory of a national answer over the latest period, made ready before the server
    // takes requests (done beside the first query instead, it slowed that query down).
    await store.latestPeriodEntries(context.clock.now()).then(
      (entries) => reserveWorkingMemory(entries),
      (err: unknown) =>
        app.log.debug({ err }, 'rental statistics: working memory not reserved (only speed is at stake)'),
    );
  }
  // Random rounding is keyed per environment; the SipHash key comes from the server secret's HMAC.
  const sipKey = deriveSipKey(context.keyedUniform, `market-rent|${context.environment}`);
  // The rows of an area share their key's prefix: its SipHash blocks are hashed once per area.
  const rowUniforms = sipRowUniforms(sipKey);

  app.get(
    '/statistics',
    declareOperation(
      {
        schema: {
          summary: 'Rental bond statistics by area, dwelling type and number of bedrooms',
          querystring: StatisticsQuery,
          response: responses(StatisticsResponse),
        },
      },
      // A computed answer: no validators (its rounding is keyed, its data moves with every import).
      { produces: FORMATS },
    ),
    async (request, reply) => {
      const now = context.clock.now();
      // A broken rule is a RuleError: the error handler answers it as a 400 naming the parameter.
      const query = parseStatisticsQuery(request.query, { geography, now });
      const csv = operationContext(request).mediaType === 'text/csv';
      const answer = await store.answer(query, now, rowUniforms, csv ? 'csv' : 'json');
      // A computed answer's bytes are the encoder's buffer, lent until the response is done with them.
      reply.raw.once('close', answer.release);
      return reply.type(csv ? CSV_TYPE : JSON_TYPE).send(answer.bytes);
    },
  );

  app.get(
    '/area-definitions',
    declareOperation(
      { schema: { summary: 'The area definitions', response: responses(AreaDefinitionList) } },
      { produces: FORMATS, conditional: 'read' },
    ),
    async (request, reply) => {
      const items = [
        ...geography.definitions.map((d) => ({
          code: d.code,
          label: d.name,
          description: d.description,
          areaCount: d.areas.length,
        })),
        {
          code: USER_DEFINED,
          label: USER_DEFINED,
          description:
            'Areas defined in the request by user-defined-area-mappings, as groups of SA2 2019 (SAU2019) areas',
          areaCount: null,
        },
      ];
      const columns = ['code', 'label', 'description', 'areaCount'] as const;
      return sendStatic(request, reply, { items }, () => csvTable(columns, items));
    },
  );

  const listing = async (
    request: FastifyRequest<{ Params: { areaDefinition: string } }>,
    reply: FastifyReply,
  ) => {
    const definition = findDefinition(geography, request.params.areaDefinition);
    const body = areaListing(definition);
    return sendStatic(request, reply, body, () => csvTable(['label', 'code'] as const, body.items));
  };
  const listingSchema = declareOperation(
    {
      schema: {
        summary: 'Areas of one definition: label and code',
        params: AreaDefinitionParams,
        response: responses(AreaListing),
      },
    },
    { produces: FORMATS, conditional: 'read' },
  );
  // Fastify ends a parameter name at a hyphen, so the published {area-definition} is named areaDefinition.
  app.get('/area-definitions/:areaDefinition', listingSchema, listing);
  app.get('/area-definition/:areaDefinition/area-labels', listingSchema, listing);
};

/** A fixed representation with an ETag, as JSON or CSV. */
function sendStatic(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  csv: () => string,
): FastifyReply {
  const asCsv = operationContext(request).mediaType === 'text/csv';
  const text = asCsv ? csv() : JSON.stringify(body);
  if (conditionalRead(request, reply, { etag: strongEtag(text), lastModified: LISTINGS_MODIFIED }))
    return reply;
  return reply.type(asCsv ? CSV_TYPE : JSON_TYPE).send(text);
}

function findDefinition(geography: Geography, name: string) {
  try {
    if (isUserDefined(name)) {
      throw RuleError.stated(
        'area-definition',
        'user-defined areas are given in each request; they have no fixed list',
      );
    }
    return resolveAreaDefinition(geography, name, 'area-definition');
  } catch (error) {
    // An area definition the path names but the service does not have: the item is not there.
    if (!(error instanceof RuleError)) throw error;
    throw new HttpError(PLATFORM_ERRORS.notFound, error.message, [
      { field: error.field, message: error.rule },
    ]);
  }
}
