/**
 * Reads of one entity: the whole entity, each of its parts and `discoverable`, each with ETag,
 * Last-Modified and conditional requests (304). Private items are left out unless the caller is a
 * signed-in user with business authority over the entity. The stored document is sent as stored when the
 * caller may see all of it or nothing in it is private; otherwise the public view is made from it.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { conditionalRead, typed } from '../../../platform/http/operation.ts';
import { ADDRESS_TYPES, isAddressType, isCompanyType } from '../domain/codes.ts';
import { partVisibleTo } from '../domain/organisation-part.ts';
import {
  Addresses,
  BusinessEthnicityIdentifier,
  CompanyDetails,
  EmailAddress,
  Entity,
  GstNumber,
  IndustryClassification,
  NonCompanyDetails,
  PaymentBankAccount,
  PhoneNumber,
  PrivacySettings,
  Role,
  TradingArea,
  TradingName,
  Website,
} from '../domain/schema.ts';
import {
  actsFor,
  baseUrl,
  entitiesCallerActsFor,
  entityView,
  latestOf,
  link,
  loadCachedEntity,
  loadEntity,
  type NzbnContext,
} from '../operations/support.ts';
import {
  ConditionalHeaders,
  Discoverable,
  NonCompanyNzbnParams,
  NotModified,
  NzbnParams,
  responses,
} from '../schemas/operations.ts';
import { partsOf } from '../store/org-parts.ts';
import { nzbnOperation } from './operation.ts';

type Part = keyof Entity;

/** Sub-resources: path segment, entity key, schema, and whether POST adds to it (updates.ts). */
export const ENTITY_PARTS: readonly { path: string; key: Part; schema: TSchema }[] = [
  { path: 'addresses', key: 'addresses', schema: Addresses },
  { path: 'roles', key: 'roles', schema: Type.Array(Role) },
  { path: 'trading-names', key: 'tradingNames', schema: Type.Array(TradingName) },
  { path: 'phone-numbers', key: 'phoneNumbers', schema: Type.Array(PhoneNumber) },
  { path: 'email-addresses', key: 'emailAddresses', schema: Type.Array(EmailAddress) },
  { path: 'websites', key: 'websites', schema: Type.Array(Website) },
  {
    path: 'industry-classifications',
    key: 'industryClassifications',
    schema: Type.Array(IndustryClassification),
  },
  { path: 'company-details', key: 'company-details', schema: CompanyDetails },
  { path: 'non-company-details', key: 'non-company-details', schema: NonCompanyDetails },
  { path: 'privacy-settings', key: 'privacySettings', schema: PrivacySettings },
  {
    path: 'business-ethnicity-identifiers',
    key: 'businessEthnicityIdentifiers',
    schema: Type.Array(BusinessEthnicityIdentifier),
  },
  { path: 'payment-bank-accounts', key: 'paymentBankAccounts', schema: Type.Array(PaymentBankAccount) },
  { path: 'gst-numbers', key: 'gstNumbers', schema: Type.Array(GstNumber) },
  { path: 'trading-areas', key: 'tradingAreas', schema: Type.Array(TradingArea) },
];

const AddressQuery = Type.Object({
  'address-type': Type.Optional(Type.String({ description: ADDRESS_TYPES.join(', ') })),
});

export async function readRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.get(
    '/entities/:nzbn',
    nzbnOperation(
      {
        schema: {
          summary: 'Get an entity',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Entity, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      // The ETags and both views' bytes are made once per stored version (support.ts viewEtag and
      // entityView give the same).
      const entry = await loadCachedEntity(context, request.params.nzbn);
      const stored = entry.stored;
      const authorised = stored.hidesItems ? await actsFor(context, request.caller, stored.nzbn) : true;
      const etag = entry.viewEtag(authorised);
      if (conditionalRead(request, reply, { etag, lastModified: stored.lastUpdated })) return reply;
      return reply.type('application/json; charset=utf-8').send(entry.body(authorised));
    },
  );

  const partSchema = (part: (typeof ENTITY_PARTS)[number]) => ({
    summary: `Get an entity's ${part.path.replaceAll('-', ' ')}`,
    params: part.path === 'non-company-details' ? NonCompanyNzbnParams : NzbnParams,
    headers: ConditionalHeaders,
    response: responses({ 200: part.schema, 304: NotModified }, [400, 404, 412]),
  });
  /** The part as the caller may see it; addresses of one type when `address-type` is given. */
  const answerPart = async (
    request: FastifyRequest,
    reply: FastifyReply,
    nzbn: string,
    part: (typeof ENTITY_PARTS)[number],
    addressType?: string,
  ) => {
    const stored = await loadEntity(context, nzbn);
    const authorised = await actsFor(context, request.caller, stored.nzbn);
    const entity = entityView(stored, authorised);
    let value: unknown = entity[part.key];
    if (part.key === 'company-details' && !isCompanyType(entity.entityTypeCode)) {
      throw badRequest(
        'nzbn',
        `the entity is a ${entity.entityTypeDescription}, not a company: it has no company details`,
      );
    }
    if (part.key === 'non-company-details' && isCompanyType(entity.entityTypeCode)) {
      throw badRequest('nzbn', 'the entity is a company: see company-details');
    }
    if (part.key === 'addresses') value = filterAddresses(entity, addressType);
    return sendPart(request, reply, value, stored.lastUpdated);
  };
  for (const part of ENTITY_PARTS) {
    const url = `/entities/:nzbn/${part.path}`;
    if (part.path === 'addresses') {
      api.get(
        url,
        nzbnOperation({ schema: { ...partSchema(part), querystring: AddressQuery } }, 'read'),
        (request, reply) =>
          answerPart(request, reply, request.params.nzbn, part, request.query['address-type']),
      );
    } else {
      api.get(url, nzbnOperation({ schema: partSchema(part) }, 'read'), (request, reply) =>
        answerPart(request, reply, request.params.nzbn, part),
      );
    }
  }

  api.get(
    '/entities/:nzbn/discoverable',
    nzbnOperation(
      {
        schema: {
          summary: 'Which parts of an entity exist, as links',
          params: NzbnParams,
          headers: ConditionalHeaders,
          response: responses({ 200: Discoverable, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const stored = await loadEntity(context, request.params.nzbn);
      const authorised = await actsFor(context, request.caller, stored.nzbn);
      const entity = entityView(stored, authorised);
      const mine = await entitiesCallerActsFor(context, request.caller);
      const parts = (await partsOf(context.database.pool, stored.nzbn)).filter((p) =>
        partVisibleTo(p.part, mine),
      );
      const base = `${baseUrl(context)}/entities/${entity.nzbn}`;
      const links = [link('self', base)];
      for (const part of ENTITY_PARTS) {
        if (present(entity[part.key])) links.push(link(part.path, `${base}/${part.path}`));
      }
      if (parts.length > 0) links.push(link('organisation-parts', `${base}/organisation-parts`));
      links.push(link('history', `${base}/history`));
      const body = JSON.stringify({
        nzbn: entity.nzbn,
        entityName: entity.entityName,
        entityTypeCode: entity.entityTypeCode,
        entityStatusCode: entity.entityStatusCode,
        links,
      });
      // The ETag is of this caller's view; Last-Modified the latest change of what it is made from.
      const lastModified = latestOf(stored.lastUpdated, parts);
      if (conditionalRead(request, reply, { etag: strongEtag(body), lastModified })) return reply;
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}

function present(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && 'addressList' in value)
    return (value as { addressList: unknown[] }).addressList.length > 0;
  return true;
}

function filterAddresses(entity: Entity, addressType: string | undefined): Entity['addresses'] {
  if (addressType === undefined || addressType === '') return entity.addresses;
  const wanted = addressType.toUpperCase();
  if (!isAddressType(wanted)) throw badRequest('address-type', `must be one of ${ADDRESS_TYPES.join(', ')}`);
  return {
    ...entity.addresses,
    addressList: entity.addresses.addressList.filter((a) => a.addressType === wanted),
  };
}

/** A part with an ETag of its own (its bytes) and the entity's Last-Modified. */
export function sendPart(request: FastifyRequest, reply: FastifyReply, value: unknown, lastModified: Date) {
  const body = JSON.stringify(value);
  if (conditionalRead(request, reply, { etag: strongEtag(body), lastModified })) return reply;
  return reply.type('application/json; charset=utf-8').send(body);
}
