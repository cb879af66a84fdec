/**
 * POST /entities/{nzbn}/{list}: adds to a Primary Business Data list (three-legged token and business
 * authority), as the published definition shapes each operation: an address alone (201 with the
 * address); every other list an array of items (200 with the list as it then stands; payment bank
 * accounts 204). The operation is operations/entity-lists.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { addListItems, ENTITY_LISTS, type ListPart } from '../operations/entity-lists.ts';
import type { NzbnContext } from '../operations/support.ts';
import { HOLDS_AGAINST_ENTITY, NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { type OperationCode, published } from './published.ts';
import { UPDATE_ERRORS, withValidators } from './update-support.ts';

/** The published code of each list's POST. */
const CODES: Readonly<Record<string, OperationCode>> = {
  addresses: 'NZBN_024_1',
  'phone-numbers': 'NZBN_024_9',
  'email-addresses': 'NZBN_024_10',
  websites: 'NZBN_024_8',
  'trading-names': 'NZBN_024_7',
  'industry-classifications': 'NZBN_024_6',
  'gst-numbers': 'NZBN_024_11',
  'trading-areas': 'NZBN_024_12',
  'payment-bank-accounts': 'NZBN_024_4',
  'business-ethnicity-identifiers': 'NZBN_024_13',
};

/** The body: the item alone, or an array of them (the input's own example, as a list of one). */
function bodyOf(list: ListPart) {
  if (list.answer === 'item') return list.input;
  const examples = (list.input as { examples?: unknown[] }).examples;
  return Type.Array(list.input, {
    minItems: 1,
    maxItems: 20,
    ...(examples ? { examples: examples.map((example) => [example]) } : {}),
  });
}

/** The published answer: 201 with the item, 200 with the list, or 204. */
function answerOf(list: ListPart): Record<number, TSchema> {
  if (list.answer === 'item') return { 201: list.item };
  if (list.answer === 'list') return { 200: Type.Array(list.item) };
  return { 204: Type.Null() };
}

const STATUS = { item: 201, list: 200, none: 204 } as const;

export async function listRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  for (const list of ENTITY_LISTS) {
    typed(app).post(
      `/entities/:nzbn/${list.path}`,
      nzbnOperation(
        {
          config: { threeLegged: true },
          schema: {
            ...published(CODES[list.path]!),
            summary: `Add to an entity's ${list.path.replaceAll('-', ' ')} (three-legged token, business authority)`,
            params: NzbnParams,
            ...HOLDS_AGAINST_ENTITY,
            body: bodyOf(list),
            response: responses(answerOf(list), UPDATE_ERRORS),
          },
        },
        // An addition changes the entity: it honours the entity's If-Match and If-Unmodified-Since.
        {},
      ),
      async (request, reply) => {
        const body: unknown = request.body;
        const updated = await addListItems(context, {
          caller: request.caller,
          nzbn: request.params.nzbn,
          preconditions: preconditionsOf(request),
          list,
          items: Array.isArray(body) ? body : [body],
        });
        withValidators(reply, updated).code(STATUS[list.answer]);
        return list.answer === 'none' ? reply.send() : reply.send(updated.result);
      },
    );
  }
}
