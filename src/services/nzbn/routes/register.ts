/**
 * POST /entities: registers a sole trader, partnership or trust (the types that opt in), allocating a
 * new business number. Needs a three-legged token; the signed-in user is granted business authority
 * over the new entity in the same transaction. Answers 201 with the entity, its ETag and Location.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { typed } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { newEntity, registrableType, registrationIdentifiers } from '../domain/registration.ts';
import { Entity, Strict } from '../domain/schema.ts';
import * as Input from '../schemas/inputs.ts';
import { responses } from '../schemas/operations.ts';
import { registerEntity } from '../store/register.ts';
import { nzbnOperation } from './operation.ts';
import { baseUrl, type NzbnContext, viewEtag } from './support.ts';

const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Optional(Type.Array(item, { maxItems: 20 }));

export const RegistrationInput = Type.Object(
  {
    entityTypeCode: Type.String({ maxLength: 40, description: 'Sole_Trader, Partnership or Trading_Trust' }),
    entityName: Type.String({ minLength: 1, maxLength: 200 }),
    addresses: List(Input.AddressInput),
    phoneNumbers: List(Input.PhoneInput),
    emailAddresses: List(Input.EmailInput),
    websites: List(Input.WebsiteInput),
    tradingNames: List(Input.TradingNameInput),
    industryClassifications: List(Input.ClassificationInput),
    gstNumbers: List(Input.GstInput),
    tradingAreas: List(Input.TradingAreaInput),
    paymentBankAccounts: List(Input.BankAccountInput),
    businessEthnicityIdentifiers: List(Input.EthnicityInput),
    roles: List(Input.RoleInput),
    privacySettings: Type.Optional(Input.PrivacyInput),
  },
  { ...Strict, examples: [{ entityTypeCode: 'Sole_Trader', entityName: 'Sandbox Example Trader' }] },
);

export async function registerRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).post(
    '/entities',
    nzbnOperation({
      config: { threeLegged: true },
      schema: {
        summary: 'Register a sole trader, partnership or trust (three-legged token)',
        body: RegistrationInput,
        response: responses({ 201: Entity }, [400, 401, 403]),
      },
    }),
    async (request, reply) => {
      registrableType(request.body.entityTypeCode);
      const now = context.clock.now();
      const { stored } = await registerEntity(
        context.database.pool,
        now,
        registrationIdentifiers(request.body),
        (nzbn, newId) => newEntity(request.body, nzbn, formatNzDateTime(now.getTime()), newId),
        async (entity) => {
          await context.identity.grantAuthority('entity', entity.nzbn, { userId: request.caller!.userId! });
        },
      );
      setValidators(reply, { etag: viewEtag(stored, true), lastModified: stored.lastUpdated });
      return reply
        .code(201)
        .header('Location', `${baseUrl(context)}/entities/${stored.nzbn}`)
        .type('application/json; charset=utf-8')
        .send(stored.document);
    },
  );
}
