import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import {
  conditionalRead,
  declareOperation,
  operationContext,
  typed,
} from '../../../platform/http/operation.ts';
import { nameOperations } from '../../../platform/http/operation-ids.ts';
import { csvTable } from '../domain/render.ts';
import { type FixedListing, listAreaDefinitions, listAreas } from '../operations/areas.ts';
import { openMarketRent } from '../operations/context.ts';
import { answerStatistics } from '../operations/statistics.ts';
import {
  AreaDefinitionList,
  AreaDefinitionParams,
  AreaListing,
  responses,
  StatisticsQuery,
  StatisticsResponse,
} from '../schemas.ts';
import { MARKET_RENT_OPERATION_IDS } from './operation-ids.ts';

const FORMATS = ['application/json', 'text/csv'] as const;
const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/** The three operations over HTTP: each reads its declared input, calls its operation (operations/) and answers. */
export const marketRentRoutes: FastifyPluginAsync<ServiceContext> = async (plugin, context) => {
  nameOperations(plugin, MARKET_RENT_OPERATION_IDS);
  const app = typed(plugin);
  const marketRent = await openMarketRent(context, app.log);
  app.addHook('onClose', async () => marketRent.close());

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
      const csv = operationContext(request).mediaType === 'text/csv';
      // A broken rule is a RuleError: the error handler answers it as a 400 naming the parameter.
      const answer = await answerStatistics(marketRent, {
        query: request.query,
        format: csv ? 'csv' : 'json',
      });
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
    async (request, reply) => sendListing(request, reply, listAreaDefinitions(marketRent)),
  );

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
  const listing = async (
    request: FastifyRequest<{ Params: { areaDefinition: string } }>,
    reply: FastifyReply,
  ) => sendListing(request, reply, listAreas(marketRent, { areaDefinition: request.params.areaDefinition }));
  // Fastify ends a parameter name at a hyphen, so the published {area-definition} is named areaDefinition.
  app.get('/area-definitions/:areaDefinition', listingSchema, listing);
  app.get('/area-definition/:areaDefinition/area-labels', listingSchema, listing);
};

/** A fixed listing with an ETag and Last-Modified, as JSON or CSV; 304 when the client's copy is current. */
function sendListing<Item extends Record<string, string | number | null>>(
  request: FastifyRequest,
  reply: FastifyReply,
  listing: FixedListing<Item, { items: Item[] }>,
): FastifyReply {
  const asCsv = operationContext(request).mediaType === 'text/csv';
  const text = asCsv ? csvTable(listing.columns, listing.body.items) : JSON.stringify(listing.body);
  if (conditionalRead(request, reply, { etag: strongEtag(text), lastModified: listing.lastModified }))
    return reply;
  return reply.type(asCsv ? CSV_TYPE : JSON_TYPE).send(text);
}
