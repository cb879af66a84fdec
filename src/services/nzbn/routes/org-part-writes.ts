/**
 * Organisation parts, writes (three-legged token and business authority over the parent entity):
 * number allocation, create (the fee for a part beyond the entity's second is charged through
 * `context.fees` in the same transaction: in production refused, and nothing written, without an approved
 * direct debit authority), and replace (honours If-Match). Each records an ORGANISATIONPART change event,
 * marked private unless the part is public.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { conditionalWrite, typed } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { buildPart, partIdentifiers } from '../domain/organisation-part-build.ts';
import { Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import {
  baseUrl,
  entityNotFound,
  type NzbnContext,
  nzbnParam,
  partNotFound,
  requireAuthority,
} from '../operations/support.ts';
import * as Input from '../schemas/inputs.ts';
import { NzbnParams, responses } from '../schemas/operations.ts';
import { nextItemId, recordChange } from '../store/changes.ts';
import {
  allocateOpn,
  findPart,
  insertPart,
  isAllocatedTo,
  replacePart,
  withEntityLocked,
} from '../store/org-parts.ts';
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
  const pool = context.database.pool;
  const api = typed(app);
  const event = (part: OrganisationPart, entityTypeCode: string, now: Date) => ({
    nzbn: part.parentNzbn,
    entityName: part.parentNzbnName,
    entityTypeCode,
    changeEventType: 'ORGANISATIONPART',
    changeDate: now,
    newValue: part,
    isPrivate: part.privacy !== 'public',
  });

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
    async (request) => {
      const nzbn = nzbnParam(request.params.nzbn);
      await requireAuthority(context, request.caller, nzbn);
      const now = context.clock.now();
      const opn = await withEntityLocked(pool, nzbn, (client) => allocateOpn(client, nzbn, now));
      if (!opn) throw entityNotFound(nzbn);
      return { opn, nzbn, allocatedDate: formatNzDateTime(now.getTime()) };
    },
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
      const nzbn = nzbnParam(request.params.nzbn);
      await requireAuthority(context, request.caller, nzbn);
      const now = context.clock.now();
      const created = await withEntityLocked(pool, nzbn, async (client, parent) => {
        const given = request.body.opn;
        if (given !== undefined) {
          nzbnParam(given, 'opn');
          if (!(await isAllocatedTo(client, given, nzbn))) {
            throw badRequest(
              'opn',
              'was not allocated to this entity, or is in use (GET …/organisation-parts/allocation)',
            );
          }
        }
        await checkParentGln(client, request.body.parentGln, nzbn);
        const opn = given ?? (await allocateOpn(client, nzbn, now));
        const ids: string[] = [];
        for (let i = partIdentifiers(request.body); i > 0; i--) ids.push(await nextItemId(client));
        const part = buildPart(request.body, {
          opn,
          parent,
          now: formatNzDateTime(now.getTime()),
          newId: () => ids.shift()!,
        });
        const { etag, fee } = await insertPart(client, part, now);
        if (fee) {
          await context.fees.charge(client, {
            operation: 'createOrganisationPart',
            feeCode: fee,
            caller: request.caller,
            requestId: request.id,
            object: { kind: 'organisation-part', id: opn },
          });
        }
        await recordChange(client, event(part, parent.entityTypeCode, now));
        return { part, etag };
      });
      if (!created) throw entityNotFound(nzbn);
      const body = JSON.stringify(created.part);
      setValidators(reply, { etag: `"${created.etag}"`, lastModified: now });
      return reply
        .code(201)
        .header('Location', `${baseUrl(context)}/entities/${nzbn}/organisation-parts/${created.part.opn}`)
        .type('application/json; charset=utf-8')
        .send(body);
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
      const nzbn = nzbnParam(request.params.nzbn);
      const opn = nzbnParam(request.params.opn, 'opn');
      await requireAuthority(context, request.caller, nzbn);
      const now = context.clock.now();
      const updated = await withEntityLocked(pool, nzbn, async (client, parent) => {
        const found = await findPart(client, opn, true);
        if (!found || found.part.parentNzbn !== nzbn) throw partNotFound(opn);
        conditionalWrite(request, { etag: `"${found.etag}"`, lastModified: found.lastUpdated });
        if (request.body.opn !== undefined && request.body.opn !== opn)
          throw badRequest('opn', 'cannot change');
        await checkParentGln(client, request.body.parentGln, nzbn, opn);
        const ids: string[] = [];
        for (let i = partIdentifiers(request.body); i > 0; i--) ids.push(await nextItemId(client));
        const part = buildPart(request.body, {
          opn,
          parent,
          now: formatNzDateTime(now.getTime()),
          newId: () => ids.shift()!,
          existing: found.part,
        });
        const saved = await replacePart(client, part, found.version, now);
        await recordChange(client, event(part, parent.entityTypeCode, now));
        return saved;
      });
      if (!updated) throw entityNotFound(nzbn);
      setValidators(reply, { etag: `"${updated.etag}"`, lastModified: now });
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(updated.part));
    },
  );
}

/** A part hangs under its entity (the default) or under another part of the same entity. */
async function checkParentGln(
  client: Parameters<typeof findPart>[0],
  parentGln: string | undefined,
  nzbn: string,
  self?: string,
): Promise<void> {
  if (parentGln === undefined || parentGln === nzbn) return;
  const parent = parentGln === self ? undefined : await findPart(client, parentGln);
  if (!parent || parent.part.parentNzbn !== nzbn) {
    throw badRequest('parentGln', 'must be the entity itself or another organisation part of the entity');
  }
}
