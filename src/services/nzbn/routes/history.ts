/**
 * GET /entities/{nzbn}/history (every kind) and /history/{kind} (one list). The operations are
 * operations/history.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import type { HistoryKind } from '../domain/history.ts';
import { Address, TradingArea, TradingName } from '../domain/schema.ts';
import { HISTORY_KEYS, readHistory, readHistoryList } from '../operations/history.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  EntityNameHistoryItem,
  EntityStatusHistoryItem,
  HibernationHistoryItem,
  NotModified,
  NzbnParams,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation, sendRead } from './operation.ts';

/** The schema of each kind's items. */
const KINDS: readonly { kind: HistoryKind; item: TSchema }[] = [
  { kind: 'addresses', item: Address },
  { kind: 'entity-names', item: EntityNameHistoryItem },
  { kind: 'trading-names', item: TradingName },
  { kind: 'trading-areas', item: TradingArea },
  { kind: 'entity-statuses', item: EntityStatusHistoryItem },
  { kind: 'hibernation-statuses', item: HibernationHistoryItem },
];

const WholeHistory = Type.Object(
  Object.fromEntries(KINDS.map(({ kind, item }) => [HISTORY_KEYS[kind], Type.Array(item)])),
  { additionalProperties: false },
);

export async function historyRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
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
      const history = await readHistory(context, { caller: request.caller, nzbn: request.params.nzbn });
      return sendRead(request, reply, history);
    },
  );

  for (const { kind, item } of KINDS) {
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
        const input = { caller: request.caller, nzbn: request.params.nzbn, kind };
        return sendRead(request, reply, await readHistoryList(context, input));
      },
    );
  }
}
