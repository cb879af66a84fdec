/**
 * GET /entities/{nzbn}/history (every kind) and /history/{kind} (one list). Private addresses and
 * trading names are left out as in the entity itself.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { type EntityHistory, entityHistory, type HistoryKind } from '../domain/history.ts';
import { Address, TradingArea, TradingName } from '../domain/schema.ts';
import { readAnswer } from '../operations/entities.ts';
import { actsFor, loadEntity, type NzbnContext } from '../operations/support.ts';
import {
  EntityNameHistoryItem,
  EntityStatusHistoryItem,
  HibernationHistoryItem,
  NotModified,
  NzbnParams,
  responses,
} from '../schemas/operations.ts';
import { historyItems, parseEntity } from '../store/entities.ts';
import { nzbnOperation, sendRead } from './operation.ts';

const KINDS: readonly { kind: HistoryKind; key: keyof EntityHistory; item: TSchema }[] = [
  { kind: 'addresses', key: 'addresses', item: Address },
  { kind: 'entity-names', key: 'entityNames', item: EntityNameHistoryItem },
  { kind: 'trading-names', key: 'tradingNames', item: TradingName },
  { kind: 'trading-areas', key: 'tradingAreas', item: TradingArea },
  { kind: 'entity-statuses', key: 'entityStatuses', item: EntityStatusHistoryItem },
  { kind: 'hibernation-statuses', key: 'hibernationStatuses', item: HibernationHistoryItem },
];

const WholeHistory = Type.Object(Object.fromEntries(KINDS.map(({ key, item }) => [key, Type.Array(item)])), {
  additionalProperties: false,
});

export async function historyRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const load = async (nzbn: string, authorisedFor: Parameters<typeof actsFor>[1], kind?: HistoryKind) => {
    const stored = await loadEntity(context, nzbn);
    const authorised = await actsFor(context, authorisedFor, stored.nzbn);
    const records = await historyItems(context.database.pool, stored.nzbn, kind);
    return { stored, history: entityHistory(parseEntity(stored), records, authorised) };
  };

  const api = typed(app);
  api.get(
    '/entities/:nzbn/history',
    nzbnOperation(
      {
        schema: {
          summary: "An entity's history: every kind",
          params: NzbnParams,
          response: responses({ 200: WholeHistory, 304: NotModified }),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const { stored, history } = await load(request.params.nzbn, request.caller);
      return sendRead(request, reply, readAnswer(history, stored.lastUpdated));
    },
  );

  for (const { kind, key, item } of KINDS) {
    api.get(
      `/entities/:nzbn/history/${kind}`,
      nzbnOperation(
        {
          schema: {
            summary: `An entity's history: ${kind.replace('-', ' ')}`,
            params: NzbnParams,
            response: responses({ 200: Type.Array(item), 304: NotModified }),
          },
        },
        'read',
      ),
      async (request, reply) => {
        const { stored, history } = await load(request.params.nzbn, request.caller, kind);
        return sendRead(request, reply, readAnswer(history[key], stored.lastUpdated));
      },
    );
  }
}
