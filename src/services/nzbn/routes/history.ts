/**
 * GET /entities/{nzbn}/history (links to each kind) and /history/{kind} (one kind), as published:
 * addresses take the required `address-type` and answer the published Addresses; hibernation statuses
 * answer 201, as the published definition states. The operations are operations/history.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import type { HistoryKind } from '../domain/history.ts';
import { Addresses, Link, TradingArea, TradingName } from '../domain/schema.ts';
import { readHistory, readHistoryList } from '../operations/history.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  AddressTypeQuery,
  EntityNameHistoryItem,
  EntityStatusHistoryItem,
  HibernationHistoryItem,
  NotModified,
  NzbnParams,
  READ_ERRORS,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation, sendRead } from './operation.ts';
import { type OperationCode, published } from './published.ts';

/** Each kind: its published code, its answer and the status the definition gives it. */
const KINDS: readonly { kind: HistoryKind; code: OperationCode; answer: TSchema; status: 200 | 201 }[] = [
  { kind: 'addresses', code: 'NZBN_004_15', answer: Addresses, status: 200 },
  { kind: 'entity-names', code: 'NZBN_004_16', answer: Type.Array(EntityNameHistoryItem), status: 200 },
  { kind: 'trading-names', code: 'NZBN_004_17', answer: Type.Array(TradingName), status: 200 },
  { kind: 'trading-areas', code: 'NZBN_004_18', answer: Type.Array(TradingArea), status: 200 },
  { kind: 'entity-statuses', code: 'NZBN_004_19', answer: Type.Array(EntityStatusHistoryItem), status: 200 },
  // 201 for a read: the published definition's status for this operation, kept as it is.
  { kind: 'hibernation-statuses', code: 'NZBN_014', answer: Type.Array(HibernationHistoryItem), status: 201 },
];

export async function historyRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.get(
    '/entities/:nzbn/history',
    nzbnOperation(
      {
        schema: {
          ...published('NZBN_004_14'),
          summary: "An entity's history: a link to each kind",
          params: NzbnParams,
          response: responses({ 200: Type.Array(Link), 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const history = await readHistory(context, { caller: request.caller, nzbn: request.params.nzbn });
      return sendRead(request, reply, history);
    },
  );

  for (const { kind, code, answer, status } of KINDS) {
    const schema = {
      ...published(code),
      summary: `An entity's history: ${kind.replace('-', ' ')}`,
      params: NzbnParams,
      response: responses({ [status]: answer, 304: NotModified }, READ_ERRORS),
    };
    if (kind === 'addresses') {
      api.get(
        `/entities/:nzbn/history/${kind}`,
        nzbnOperation({ schema: { ...schema, querystring: AddressTypeQuery } }, 'read'),
        async (request, reply) => {
          const { caller, params, query } = request;
          const input = { caller, nzbn: params.nzbn, kind, addressType: query['address-type'] };
          return sendRead(request, reply, await readHistoryList(context, input));
        },
      );
      continue;
    }
    api.get(`/entities/:nzbn/history/${kind}`, nzbnOperation({ schema }, 'read'), async (request, reply) => {
      const input = { caller: request.caller, nzbn: request.params.nzbn, kind };
      const answer = await readHistoryList(context, input);
      if (status !== 200) reply.code(status);
      return sendRead(request, reply, answer);
    });
  }
}
