/**
 * POST /entities: registers a sole trader, partnership or trust (the types that opt in), allocating a
 * new business number. Needs a three-legged token; the signed-in user is granted business authority
 * over the new entity in the same transaction (operations/registration.ts). Answers 200 (the published
 * status) with the entity, its ETag and Location.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { typed } from '../../../platform/http/operation.ts';
import { Entity, Strict } from '../domain/schema.ts';
import { registerNewEntity } from '../operations/registration.ts';
import type { NzbnContext } from '../operations/support.ts';
import * as Input from '../schemas/inputs.ts';
import { responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';

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
  {
    ...Strict,
    examples: [
      {
        entityTypeCode: 'Sole_Trader',
        entityName: 'Sandbox Example Trader',
        roles: [{ roleType: 'Sole Trader', rolePerson: { firstName: 'Aroha', lastName: 'Example' } }],
      },
    ],
  },
);

export async function registerRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).post(
    '/entities',
    nzbnOperation({
      config: { threeLegged: true },
      schema: {
        ...published('NZBN_003'),
        summary: 'Register a sole trader, partnership or trust (three-legged token)',
        body: RegistrationInput,
        response: responses({ 200: Entity }, [400, 401, 403]),
      },
    }),
    async (request, reply) => {
      const registered = await registerNewEntity(context, {
        caller: request.caller,
        application: request.body,
      });
      setValidators(reply, registered.validators);
      return reply
        .code(200)
        .header('Location', registered.location)
        .type('application/json; charset=utf-8')
        .send(registered.document);
    },
  );
}
