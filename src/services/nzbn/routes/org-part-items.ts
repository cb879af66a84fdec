/**
 * The items of an organisation part at their published paths (three-legged token and business
 * authority over the parent entity): POST …/organisation-parts/{opn}/<list> adds one (201 with it), PUT
 * …/<list>/{uid} changes it (200 with it), DELETE …/<list>/{uid} removes it (204), for the addresses
 * (no PUT is published), custom-data, email-addresses, phone-numbers and purpose; POST
 * …/action-append-nzbns (201) and …/action-delete-nzbns (200) change the part's share list, answering
 * the published ShareNzbns. Every one is a change of the part: it honours If-Match and
 * If-Unmodified-Since against the part (GET …/organisation-parts/{opn}) and answers with the part's new
 * ETag and Last-Modified. The operations are operations/org-part-items.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import {
  OrganisationPartAddress,
  OrganisationPartEmail,
  OrganisationPartMetadata,
  OrganisationPartPurpose,
} from '../domain/organisation-part.ts';
import { PhoneNumber } from '../domain/schema.ts';
import {
  addPartItem,
  PART_ITEM_LISTS,
  type PartItemList,
  removePartItem,
  replacePartItem,
  sharePartWith,
  stopSharingPart,
} from '../operations/org-part-items.ts';
import type { NzbnContext } from '../operations/support.ts';
import { HOLDS_AGAINST_PART, responses } from '../schemas/operations.ts';
import {
  PartAddressInput,
  PartEmailInput,
  PartMetadataInput,
  PartPhoneInput,
  PartPurposeInput,
  ShareNzbns,
  ShareNzbnsInput,
} from '../schemas/org-part-items.ts';
import { nzbnOperation } from './operation.ts';
import { PartParams } from './org-parts.ts';
import { type OperationCode, published } from './published.ts';
import { UPDATE_ERRORS } from './update-support.ts';

/** A list's routes: its published codes, what is sent and answered, and its example item. */
interface ItemRoutes {
  list: PartItemList;
  codes: { post: OperationCode; put?: OperationCode; delete: OperationCode };
  input: TSchema;
  item: TSchema;
  /** An item of the fixed test case's public part `9429800000019` (sandbox/fixture-parts.ts). */
  example: string;
}

const ROUTES: readonly ItemRoutes[] = [
  {
    list: PART_ITEM_LISTS.addresses,
    codes: { post: 'OP007', delete: 'OP008' },
    input: PartAddressInput,
    item: OrganisationPartAddress,
    example: '9000000101',
  },
  {
    list: PART_ITEM_LISTS['phone-numbers'],
    codes: { post: 'OP009', put: 'OP010', delete: 'OP011' },
    input: PartPhoneInput,
    item: PhoneNumber,
    example: '9000000102',
  },
  {
    list: PART_ITEM_LISTS['email-addresses'],
    codes: { post: 'OP012', put: 'OP013', delete: 'OP014' },
    input: PartEmailInput,
    item: OrganisationPartEmail,
    example: '9000000103',
  },
  {
    list: PART_ITEM_LISTS['custom-data'],
    codes: { post: 'OP015', put: 'OP016', delete: 'OP017' },
    input: PartMetadataInput,
    item: OrganisationPartMetadata,
    example: '9000000104',
  },
  {
    list: PART_ITEM_LISTS.purpose,
    codes: { post: 'OP020', put: 'OP021', delete: 'OP022' },
    input: PartPurposeInput,
    item: OrganisationPartPurpose,
    example: '9000000110',
  },
];

const config = { threeLegged: true };
const PART = '/entities/:nzbn/organisation-parts/:opn';
const json = 'application/json; charset=utf-8';

const itemParams = (route: ItemRoutes) =>
  Type.Object({
    ...PartParams.properties,
    uid: Type.String({
      maxLength: 20,
      description: `The uniqueIdentifier of the part's ${route.list.what}`,
      examples: [route.example],
    }),
  });

export async function partItemRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  for (const route of ROUTES) {
    const { list, codes } = route;
    const things = list.path.replaceAll('-', ' ');
    const ItemParams = itemParams(route);

    api.post(
      `${PART}/${list.path}`,
      nzbnOperation(
        {
          config,
          schema: {
            ...published(codes.post),
            summary: `Add to an organisation part's ${things}`,
            params: PartParams,
            ...HOLDS_AGAINST_PART,
            body: route.input,
            response: responses({ 201: route.item }, UPDATE_ERRORS),
          },
        },
        // An addition changes the part: it honours the part's If-Match and If-Unmodified-Since.
        {},
      ),
      async (request, reply) => {
        const added = await addPartItem(context, {
          ...request.params,
          caller: request.caller,
          preconditions: preconditionsOf(request),
          list,
          item: request.body,
        });
        setValidators(reply, added.validators);
        return reply.code(201).type(json).send(added.body);
      },
    );

    const put = codes.put;
    if (put) {
      api.put(
        `${PART}/${list.path}/:uid`,
        nzbnOperation(
          {
            config,
            schema: {
              ...published(put),
              summary: `Change one of an organisation part's ${things}`,
              params: ItemParams,
              ...HOLDS_AGAINST_PART,
              body: route.input,
              response: responses({ 200: route.item }, UPDATE_ERRORS),
            },
          },
          {},
        ),
        async (request, reply) => {
          const changed = await replacePartItem(context, {
            ...request.params,
            caller: request.caller,
            preconditions: preconditionsOf(request),
            list,
            item: request.body,
          });
          setValidators(reply, changed.validators);
          return reply.type(json).send(changed.body);
        },
      );
    }

    api.delete(
      `${PART}/${list.path}/:uid`,
      nzbnOperation(
        {
          config,
          schema: {
            ...published(codes.delete),
            summary: `Remove one of an organisation part's ${things}`,
            params: ItemParams,
            ...HOLDS_AGAINST_PART,
            response: responses({ 204: Type.Null() }, UPDATE_ERRORS),
          },
        },
        {},
      ),
      async (request, reply) => {
        const removed = await removePartItem(context, {
          ...request.params,
          caller: request.caller,
          preconditions: preconditionsOf(request),
          list,
        });
        setValidators(reply, removed.validators);
        return reply.code(204).send();
      },
    );
  }
  await shareRoutes(app, context);
}

/** The part's share list: POST …/action-append-nzbns (201) and …/action-delete-nzbns (200). */
async function shareRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  const actions = [
    { path: 'action-append-nzbns', code: 'OP018', status: 201, change: sharePartWith, summary: 'Share' },
    {
      path: 'action-delete-nzbns',
      code: 'OP019',
      status: 200,
      change: stopSharingPart,
      summary: 'Stop sharing',
    },
  ] as const;
  for (const action of actions) {
    api.post(
      `${PART}/${action.path}`,
      nzbnOperation(
        {
          config,
          schema: {
            ...published(action.code),
            summary: `${action.summary} an organisation part with other entities (its nzbn-list)`,
            params: PartParams,
            ...HOLDS_AGAINST_PART,
            body: ShareNzbnsInput,
            response: responses({ [action.status]: ShareNzbns }, UPDATE_ERRORS),
          },
        },
        {},
      ),
      async (request, reply) => {
        const shared = await action.change(context, {
          ...request.params,
          caller: request.caller,
          preconditions: preconditionsOf(request),
          nzbns: request.body.nzbns,
        });
        setValidators(reply, shared.validators);
        return reply.code(action.status).type(json).send(shared.body);
      },
    );
  }
}
