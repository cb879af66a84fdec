/**
 * The register's organisations and organisation users, as published (NZBN_102, NZBN_104;
 * operations/organisations.ts), each needing a three-legged token. The writes of an existing one take
 * the published If-Modified-Since (412 when it changed after).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import {
  activateOrganisationUser,
  addOrganisation,
  addOrganisationUser,
  changeOrganisation,
  changeOrganisationUser,
  getOrganisation,
  getOrganisationUser,
  listOrganisations,
  listOrganisationUsers,
  removeOrganisationUser,
} from '../operations/organisations.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  ActivationBody,
  Organisation,
  OrganisationChange,
  OrganisationInput,
  OrganisationParams,
  OrganisationSearchResponse,
  OrganisationUser,
  OrganisationUserChange,
  OrganisationUserInput,
  OrganisationUserParams,
  OrganisationUserSearchResponse,
} from '../schemas/directory.ts';
import { ModifiedSinceHeaders, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';
import { MODIFIED_SINCE } from './users.ts';

const config = { threeLegged: true };
const ERRORS = [400, 401, 403, 404];

export async function organisationRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/organisations',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_102_1'),
        summary: 'The signed-in user’s organisations (every one, for an operator)',
        response: responses({ 200: OrganisationSearchResponse }, ERRORS),
      },
    }),
    async (request) => listOrganisations(context, { caller: request.caller }),
  );

  api.post(
    '/organisations',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_102_2'),
        summary: 'A new organisation, the signed-in user its owner',
        body: OrganisationInput,
        response: responses({ 201: Organisation }, ERRORS),
      },
    }),
    async (request, reply) =>
      reply.code(201).send(await addOrganisation(context, { caller: request.caller, body: request.body })),
  );

  api.post(
    '/organisations/activateOrganisationUser',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_104_3'),
        summary: 'Accept an invitation mailed to the signed-in user’s address: they join the organisation',
        body: ActivationBody,
        response: responses({ 201: OrganisationUser }, ERRORS),
      },
    }),
    async (request, reply) =>
      reply.code(201).send(
        await activateOrganisationUser(context, {
          caller: request.caller,
          activationCode: request.body.activationCode,
        }),
      ),
  );

  api.get(
    '/organisations/:organisationId',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_102_3'),
        summary: 'An organisation the signed-in user belongs to',
        params: OrganisationParams,
        response: responses({ 200: Organisation }, ERRORS),
      },
    }),
    async (request) =>
      getOrganisation(context, { caller: request.caller, organisationId: request.params.organisationId }),
  );

  api.put(
    '/organisations/:organisationId',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_102_4'),
          summary: 'Change the organisation’s profile (its administrators)',
          params: OrganisationParams,
          headers: ModifiedSinceHeaders,
          body: OrganisationChange,
          response: responses({ 200: Organisation }, [...ERRORS, 412]),
        },
      },
      MODIFIED_SINCE,
    ),
    async (request) =>
      changeOrganisation(context, {
        caller: request.caller,
        organisationId: request.params.organisationId,
        body: request.body,
        preconditions: preconditionsOf(request),
      }),
  );

  await organisationUserRoutes(app, context);
}

async function organisationUserRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  const write = { honours: MODIFIED_SINCE.honours };

  api.get(
    '/organisations/:organisationId/organisationUsers',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_104_1'),
        summary:
          'The organisation’s users and open invitations (its administrators; a member sees themselves)',
        params: OrganisationParams,
        response: responses({ 200: OrganisationUserSearchResponse }, ERRORS),
      },
    }),
    async (request) =>
      listOrganisationUsers(context, {
        caller: request.caller,
        organisationId: request.params.organisationId,
      }),
  );

  api.post(
    '/organisations/:organisationId/organisationUsers',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_104_2'),
        summary: 'Invite a person by email to the organisation (its administrators)',
        params: OrganisationParams,
        body: OrganisationUserInput,
        response: responses({ 201: OrganisationUser }, ERRORS),
      },
    }),
    async (request, reply) =>
      reply.code(201).send(
        await addOrganisationUser(context, {
          caller: request.caller,
          organisationId: request.params.organisationId,
          body: request.body,
        }),
      ),
  );

  api.get(
    '/organisations/:organisationId/organisationUsers/:organisationUserId',
    nzbnOperation({
      config,
      schema: {
        ...published('NZBN_104_4'),
        summary: 'One user of the organisation',
        params: OrganisationUserParams,
        response: responses({ 200: OrganisationUser }, ERRORS),
      },
    }),
    async (request) => getOrganisationUser(context, { caller: request.caller, ...request.params }),
  );

  api.put(
    '/organisations/:organisationId/organisationUsers/:organisationUserId',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_104_5'),
          summary: 'Change an organisation user’s role, names or phone',
          params: OrganisationUserParams,
          headers: ModifiedSinceHeaders,
          body: OrganisationUserChange,
          response: responses({ 204: Type.Null() }, [...ERRORS, 412]),
        },
      },
      write,
    ),
    async (request, reply) => {
      await changeOrganisationUser(context, {
        caller: request.caller,
        ...request.params,
        body: request.body,
        preconditions: preconditionsOf(request),
      });
      return reply.code(204).send();
    },
  );

  api.delete(
    '/organisations/:organisationId/organisationUsers/:organisationUserId',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_104_6'),
          summary:
            'Remove a user from the organisation (or withdraw an invitation), ending their authorities through it',
          params: OrganisationUserParams,
          headers: ModifiedSinceHeaders,
          response: responses({ 204: Type.Null() }, [...ERRORS, 412]),
        },
      },
      write,
    ),
    async (request, reply) => {
      await removeOrganisationUser(context, {
        caller: request.caller,
        ...request.params,
        preconditions: preconditionsOf(request),
      });
      return reply.code(204).send();
    },
  );
}
