/**
 * Organisation parts, writes (three-legged token and business authority over the parent entity), at
 * their published paths and in their published shapes: the allocation summary (GET
 * organisation-parts-allocation), create (POST, the published OrganisationPartRequest; a fee beyond the
 * entity's second part) and replace (PUT, honours If-Match). The operations are
 * operations/organisation-parts.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { GlnAllocationSummary, OrganisationPart } from '../domain/organisation-part.ts';
import { MAX_CUSTOM_DATA, MAX_PART_ITEMS, MAX_SHARED_WITH } from '../domain/organisation-part-items.ts';
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
    purchaserDetails: Type.Optional(
      Type.Union([Type.Record(Type.String({ maxLength: 60 }), Type.Unknown()), Type.Null()], {
        description: 'Who pays for a part beyond the free ones; the fee is charged to the caller’s account',
      }),
    ),
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
        summary: 'Create an organisation part (a fee applies beyond the second part of an entity)',
        params: NzbnParams,
        body: PartRequest,
        response: responses({ 201: OrganisationPart }, UPDATE_ERRORS),
      },
    }),
    async (request, reply) => {
      if (request.body.termsAndConditionsAccepted === false) {
        throw badRequest('termsAndConditionsAccepted', 'the terms and conditions must be accepted');
      }
      const created = await createPart(context, {
        caller: request.caller,
        requestId: request.id,
        nzbn: request.params.nzbn,
        part: request.body.organisationPart,
      });
      setValidators(reply, created.validators);
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
