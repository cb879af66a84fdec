/**
 * Access to organisation parts that are not public (operations/org-part-access.ts): the published
 * request (OP025), and the owner's side, which the published definition does not have: the requests for
 * an entity's parts and the decision on one. Those two are ours, marked so in the OpenAPI document (no
 * operation code, `x-ours: true`, the tag "Ours: not in the published definition") and listed in
 * routes/published.ts `UNPUBLISHED_PATHS`. All three need a three-legged token.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { conditionalRead, preconditionsOf, typed } from '../../../platform/http/operation.ts';
import {
  OPNAccessRequest,
  OpnAccessDecision,
  OpnAccessRequestItem,
  OpnAccessResponse,
} from '../domain/organisation-part-access.ts';
import { decidePartAccess, partAccessRequests, requestPartAccess } from '../operations/org-part-access.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  envelope,
  NotModified,
  NzbnParams,
  PagingQuery,
  READ_ERRORS,
  responses,
} from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { PartParams } from './org-parts.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';
import { UPDATE_ERRORS } from './update-support.ts';

const config = { threeLegged: true };

/** How an operation of ours says so in the OpenAPI document. */
export const OURS = {
  tags: ['Ours: not in the published definition'],
  'x-ours': true,
} as const;

/** What the OpenAPI document's description says of the operations of ours. */
export const OURS_DESCRIPTION = [
  '### Ours: not in the published definition',
  'The published definition lets an entity ask to see an organisation part that is not public (`POST /entities/organisation-parts/action-request-access`) but has no operation for the part’s owner to answer. Two operations of ours do, tagged “Ours: not in the published definition” and marked `x-ours: true` (a client of the public API never calls them): `GET /entities/{nzbn}/organisation-parts-access-requests` lists the requests for the entity’s parts, `PUT /entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}` with `{"requestStatus": "APPROVED" | "DECLINED"}` decides one. Both need a three-legged token of a user with business authority over the entity. Once approved, the requesting entity’s holders of authority see the part (its reads, the GLN lookup, the search) until the owner declines it.',
].join('\n');

const RequestsQuery = Type.Object({
  opn: Type.Optional(Type.String({ maxLength: 20, description: 'Only the requests for this part' })),
  'request-status': Type.Optional(
    Type.String({ maxLength: 20, description: 'PENDING, APPROVED or DECLINED (any case)' }),
  ),
  ...PagingQuery,
});

// The examples: the operator's test case, its private part and the seed's request that waits for it.
const OwnerParams = Type.Object({
  nzbn: Type.String({ ...NzbnParams.properties.nzbn, examples: ['9429000003025'] }),
});

const DecisionParams = Type.Object({
  ...OwnerParams.properties,
  opn: Type.String({ ...PartParams.properties.opn, examples: ['9429800000057'] }),
  requestingNzbn: Type.String({
    description: 'The entity that asked for access',
    examples: ['9429000001007'],
  }),
});

export async function partAccessRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.post(
    '/entities/organisation-parts/action-request-access',
    nzbnOperation({
      config,
      schema: {
        ...published('OP025'),
        summary:
          'Ask, for an entity the signed-in user acts for, to see an organisation part that is not public',
        body: OPNAccessRequest,
        response: responses({ 201: OpnAccessResponse }, [400, 401, 403, 404]),
      },
    }),
    async (request, reply) => {
      const answer = await requestPartAccess(context, { caller: request.caller, ...request.body });
      return reply.code(201).send(answer);
    },
  );

  api.get(
    '/entities/:nzbn/organisation-parts-access-requests',
    nzbnOperation(
      {
        config,
        schema: {
          ...OURS,
          summary: "Ours: the requests for access to the entity's organisation parts, a page at a time",
          params: OwnerParams,
          querystring: RequestsQuery,
          response: responses({ 200: envelope(OpnAccessRequestItem), 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const { nzbn } = request.params;
      const page = pageOf(request.query);
      const found = await partAccessRequests(context, {
        caller: request.caller,
        nzbn,
        opn: request.query.opn,
        requestStatus: request.query['request-status'],
        page,
      });
      if (conditionalRead(request, reply, found.validators)) return reply;
      const listing = {
        path: `/entities/${nzbn}/organisation-parts-access-requests`,
        query: request.query,
        carried: ['opn', 'request-status'],
      };
      return pagedEnvelope(context, listing, page, found, { sortBy: 'requestDate', sortOrder: 'ASC' });
    },
  );

  api.put(
    '/entities/:nzbn/organisation-parts/:opn/access-requests/:requestingNzbn',
    nzbnOperation(
      {
        config,
        schema: {
          ...OURS,
          summary: 'Ours: approve or decline a request for access to one of the entity’s organisation parts',
          params: DecisionParams,
          body: OpnAccessDecision,
          response: responses({ 200: OpnAccessRequestItem }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const decided = await decidePartAccess(context, {
        caller: request.caller,
        ...request.params,
        requestStatus: request.body.requestStatus,
        preconditions: preconditionsOf(request),
      });
      setValidators(reply, decided.validators);
      return reply.type('application/json; charset=utf-8').send(decided.body);
    },
  );
}
