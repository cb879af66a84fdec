/**
 * Two published reads about organisation parts: the entity a GLN belongs to, with the parts it
 * identifies (OP002, operations/org-part-gln.ts), and a purchase of a part read by its purchaser (OP024,
 * operations/org-part-purchases.ts); both with ETag, Last-Modified and conditional requests (304).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { OrganisationPartPurchase } from '../domain/organisation-part-purchase.ts';
import { Strict } from '../domain/schema.ts';
import { entityByGln } from '../operations/org-part-gln.ts';
import { organisationPartPurchase } from '../operations/org-part-purchases.ts';
import type { NzbnContext } from '../operations/support.ts';
import { Discoverable, NotModified, READ_ERRORS, responses } from '../schemas/operations.ts';
import { nzbnOperation, sendRead } from './operation.ts';
import { published } from './published.ts';

/** The published GlobalLocationNumber: the published Entity's fields, with the parts themselves. */
export const GlobalLocationNumber = Type.Object(
  {
    ...Type.Omit(Discoverable, [
      'non-company-details',
      'hibernationStatusCode',
      'hibernationStatusDescription',
      'organisationParts',
    ]).properties,
    organisationParts: Type.Array(OrganisationPart),
  },
  Strict,
);

const GlnParams = Type.Object({
  gln: Type.String({
    description:
      "A GS1 Global Location Number: an entity's business number or an organisation part's number (13 digits, the last a GS1 check digit)",
    // The fixed test case with organisation parts: its public part.
    examples: ['9429800000019'],
  }),
});

const PurchaseParams = Type.Object({
  transaction_id: Type.String({
    maxLength: 100,
    description:
      'The purchase id (purchaseId, a UUID): linked (Link, rel="related") from the answer of the POST that made it',
  }),
});

export async function partLookupRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/entities/organisation-parts/gln/:gln',
    nzbnOperation(
      {
        schema: {
          ...published('OP002'),
          summary: 'The entity a GLN belongs to, with the organisation parts it identifies',
          params: GlnParams,
          response: responses({ 200: GlobalLocationNumber, 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) =>
      sendRead(
        request,
        reply,
        await entityByGln(context, { caller: request.caller, gln: request.params.gln }),
      ),
  );

  api.get(
    '/entities/organisation-parts-purchase/:transaction_id',
    nzbnOperation(
      {
        schema: {
          ...published('OP024'),
          summary: 'A purchase of an organisation part (its purchaser only)',
          params: PurchaseParams,
          response: responses({ 200: OrganisationPartPurchase, 304: NotModified }, READ_ERRORS),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const transactionId = request.params.transaction_id;
      const purchase = await organisationPartPurchase(context, { caller: request.caller, transactionId });
      return sendRead(request, reply, purchase);
    },
  );
}
