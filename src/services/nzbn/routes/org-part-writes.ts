/**
 * Organisation parts, writes (three-legged token and business authority over the parent entity):
 * number allocation, create (a fee beyond the entity's second part) and replace (honours If-Match). The
 * operations are operations/organisation-parts.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import { allocatePartNumber, createPart, replaceOrganisationPart } from '../operations/organisation-parts.ts';
import type { NzbnContext } from '../operations/support.ts';
import * as Input from '../schemas/inputs.ts';
import { NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { PartParams } from './org-parts.ts';
import { UPDATE_ERRORS } from './update-support.ts';

const config = { threeLegged: true };
const Text = (maxLength: number) => Type.String({ maxLength });

export const PartInput = Type.Object(
  {
    opn: Type.Optional(Type.String({ pattern: '^[0-9]{13}$' })),
    parentGln: Type.Optional(Type.String({ pattern: '^[0-9]{13}$' })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    purposes: Type.Optional(Type.Array(Text(100), { maxItems: 20 })),
    function: Type.Optional(Type.Union([Text(100), Type.Null()])),
    organisationPartStatus: Type.Optional(Text(20)),
    addresses: Type.Optional(Type.Array(Input.AddressInput, { maxItems: 20 })),
    phoneNumbers: Type.Optional(Type.Array(Input.PhoneInput, { maxItems: 20 })),
    emailAddresses: Type.Optional(Type.Array(Input.EmailInput, { maxItems: 20 })),
    gstNumber: Type.Optional(Type.Union([Text(20), Type.Null()])),
    paymentBankAccountNumber: Type.Optional(Type.Union([Text(25), Type.Null()])),
    customData: Type.Optional(
      Type.Union([
        Type.Record(Type.String({ maxLength: 100 }), Text(500), { maxProperties: 50 }),
        Type.Null(),
      ]),
    ),
    privacy: Type.Optional(Text(20)),
    nzbnList: Type.Optional(Type.Array(Type.String({ maxLength: 20 }), { maxItems: 100 })),
  },
  { ...Strict, examples: [{ name: 'Sandbox Example Branch', function: 'Retail', privacy: 'public' }] },
);

const Allocation = Type.Object({ opn: Nzbn, nzbn: Nzbn, allocatedDate: NzDateTime }, Strict);

export async function partWriteRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/entities/:nzbn/organisation-parts/allocation',
    nzbnOperation({
      config,
      schema: {
        summary: 'Allocate a new organisation part number for the entity',
        params: NzbnParams,
        response: responses({ 200: Allocation }, [400, 401, 403, 404]),
      },
    }),
    async (request) => allocatePartNumber(context, { caller: request.caller, nzbn: request.params.nzbn }),
  );

  api.post(
    '/entities/:nzbn/organisation-parts',
    nzbnOperation({
      config,
      schema: {
        summary: 'Create an organisation part (a fee applies beyond the second part of an entity)',
        params: NzbnParams,
        body: PartInput,
        response: responses({ 201: OrganisationPart }, UPDATE_ERRORS),
      },
    }),
    async (request, reply) => {
      const created = await createPart(context, {
        caller: request.caller,
        requestId: request.id,
        nzbn: request.params.nzbn,
        part: request.body,
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
