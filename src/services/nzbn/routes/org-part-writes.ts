/**
 * Organisation parts, writes (three-legged token and business authority over the parent entity), at
 * their published paths and in their published shapes: the allocation summary (GET
 * organisation-parts-allocation), create (POST, the published OrganisationPartRequest; beyond the
 * entity's second part a purchase, operations/org-part-purchases.ts) and replace (PUT, honours If-Match). The operations are
 * operations/organisation-parts.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { callerRequestId } from '../../../platform/http/request-id.ts';
import { GlnAllocationSummary, OrganisationPart } from '../domain/organisation-part.ts';
import { MAX_CUSTOM_DATA, MAX_PART_ITEMS, MAX_SHARED_WITH } from '../domain/organisation-part-items.ts';
import { PurchaserDetailsInput } from '../domain/organisation-part-purchase.ts';
import { Strict } from '../domain/schema.ts';
import { createPart, partAllocation, replaceOrganisationPart } from '../operations/organisation-parts.ts';
import type { NzbnContext } from '../operations/support.ts';
import { NotModified, NzbnParams, READ_ERRORS, responses } from '../schemas/operations.ts';
import {
  PartAddressInput,
  PartEmailInput,
  PartMetadataInput,
  PartPhoneInput,
  PartPurposeInput,
} from '../schemas/org-part-items.ts';
import { nzbnOperation, sendRead } from './operation.ts';
import { PartParams } from './org-parts.ts';
import { published } from './published.ts';
import { UPDATE_ERRORS } from './update-support.ts';

const config = { threeLegged: true };
const Text = (maxLength: number) => Type.String({ maxLength });
const OptionalText = (maxLength: number) => Type.Optional(Type.Union([Text(maxLength), Type.Null()]));
const List = <T extends TSchema>(item: T) => Type.Optional(Type.Array(item, { maxItems: MAX_PART_ITEMS }));
const Part = 'published values, any case';

/** The published OrganisationPart as a request: the register sets identifiers, dates and the parent. */
export const PartInput = Type.Object(
  {
    opn: OptionalText(20),
    parentGln: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{13}$' }), Type.Null()])),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    purposes: List(PartPurposeInput),
    function: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 40,
          description: `FUNCTION, PHYSICAL_LOCATION or DIGITAL_LOCATION (${Part})`,
        }),
        Type.Null(),
      ]),
    ),
    organisationPartStatus: Type.Optional(Type.Union([Text(20), Type.Null()])),
    addresses: List(PartAddressInput),
    phoneNumbers: List(PartPhoneInput),
    emailAddresses: List(PartEmailInput),
    gstNumber: OptionalText(20),
    paymentBankAccountNumber: OptionalText(25),
    'custom-data': Type.Optional(Type.Array(PartMetadataInput, { maxItems: MAX_CUSTOM_DATA })),
    privacy: Type.Optional(Type.Union([Text(20), Type.Null()])),
    'nzbn-list': Type.Optional(
      Type.Array(
        Type.Union([
          Type.Object({ nzbn: Type.String({ maxLength: 20 }) }, Strict),
          Type.String({ maxLength: 20 }),
        ]),
        { maxItems: MAX_SHARED_WITH },
      ),
    ),
  },
  {
    ...Strict,
    examples: [{ name: 'Sandbox Example Branch', function: 'PHYSICAL_LOCATION', privacy: 'PUBLIC' }],
  },
);

/** The published OrganisationPartRequest: the part, the acceptance of the terms and who pays. */
export const PartRequest = Type.Object(
  {
    termsAndConditionsAccepted: Type.Optional(Type.Boolean()),
    organisationPart: PartInput,
    purchaserDetails: Type.Optional(Type.Union([PurchaserDetailsInput, Type.Null()])),
  },
  {
    ...Strict,
    examples: [
      {
        termsAndConditionsAccepted: true,
        organisationPart: {
          name: 'Sandbox Example Branch',
          function: 'PHYSICAL_LOCATION',
          privacy: 'PUBLIC',
        },
        purchaserDetails: {
          purchaserName: 'Sandbox Example Buyer',
          purchaserEmailAddress: 'buyer@example.test',
          purchaserPhoneNumber: '+64 4 499 1234',
          purchaseRedirectUrl: 'https://example.test/parts/bought',
        },
      },
    ],
  },
);

export async function partWriteRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/entities/:nzbn/organisation-parts-allocation',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('OP023'),
          summary: 'The organisation part numbers the entity holds, and how many more are free',
          params: NzbnParams,
          response: responses({ 200: GlnAllocationSummary, 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const summary = await partAllocation(context, { caller: request.caller, nzbn: request.params.nzbn });
      return sendRead(request, reply, summary);
    },
  );

  api.post(
    '/entities/:nzbn/organisation-parts',
    nzbnOperation({
      config,
      schema: {
        ...published('OP005'),
        summary: 'Create an organisation part (beyond the second part of an entity, a purchase)',
        description:
          'A part beyond the second of an entity is a purchase: `purchaserDetails` is required, the fee is charged to the paying organisation, and the answer links the purchase (`Link: <…/entities/organisation-parts-purchase/{id}>; rel="related"`); a declined purchase is 402, nothing made or charged, with the same link. A request sent again with the same `api-business-govt-nz-Request-Id` answers the first answer: nothing is made or charged twice.',
        params: NzbnParams,
        body: PartRequest,
        response: responses({ 201: OrganisationPart }, [...UPDATE_ERRORS, 402]),
      },
    }),
    async (request, reply) => {
      const { body } = request;
      if (body.termsAndConditionsAccepted === false) {
        throw badRequest('termsAndConditionsAccepted', 'the terms and conditions must be accepted');
      }
      const created = await createPart(context, {
        caller: request.caller,
        requestId: request.id,
        idempotencyKey: callerRequestId(request),
        nzbn: request.params.nzbn,
        part: body.organisationPart,
        purchaserDetails: body.purchaserDetails ?? undefined,
        request: body,
      });
      setValidators(reply, created.validators);
      if (created.purchase) reply.header('Link', `<${created.purchase}>; rel="related"`);
      return reply
        .code(201)
        .header('Location', created.location)
        .type('application/json; charset=utf-8')
        .send(created.body);
    },
  );

  api.put(
    '/entities/:nzbn/organisation-parts/:opn',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('OP006'),
          summary: 'Replace an organisation part',
          params: PartParams,
          body: PartInput,
          response: responses({ 200: OrganisationPart }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const replaced = await replaceOrganisationPart(context, {
        caller: request.caller,
        nzbn: request.params.nzbn,
        opn: request.params.opn,
        part: request.body,
        preconditions: preconditionsOf(request),
      });
      setValidators(reply, replaced.validators);
      return reply.type('application/json; charset=utf-8').send(replaced.body);
    },
  );
}
