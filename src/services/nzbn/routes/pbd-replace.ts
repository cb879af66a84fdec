/**
 * The Primary Business Data changes that are not list additions (three-legged token and business
 * authority), at their published paths: PUT privacy-settings (flags not given keep their value), POST
 * roles (appoints one) and PUT roles/{id} (changes one; INACTIVE ends it), POST
 * action-update-australian-business-numbers and POST statuses (a status request; 204). Each records its
 * change event; a role change records one with the whole role as the new value. The operations are
 * operations/entity-updates.ts.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { Nullable, Nzbn, PrivacySettings, Role, Strict } from '../domain/schema.ts';
import {
  appointRole,
  changePrivacySettings,
  changeRole,
  requestStatus,
  setAustralianBusinessNumber,
} from '../operations/entity-updates.ts';
import type { NzbnContext } from '../operations/support.ts';
import * as Input from '../schemas/inputs.ts';
import { HOLDS_AGAINST_ENTITY, NzbnParams, responses, WriteHeaders } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { published } from './published.ts';
import { UPDATE_ERRORS, withValidators, writeOf } from './update-support.ts';

const config = { threeLegged: true };

/** The published UpdateAustralianBusinessNumberResponse. */
const AbnAnswer = Type.Object(
  { nzbn: Nzbn, entityName: Type.String(), australianBusinessNumber: Nullable(Type.String()) },
  Strict,
);

const RoleParams = Type.Object({
  ...NzbnParams.properties,
  id: Type.String({
    maxLength: 20,
    description: "The role's uniqueIdentifier",
    // The role the registration example (POST /entities) appoints, in a sandbox where it was the first
    // item the register numbered.
    examples: ['10000000000'],
  }),
});

const RoleBody = Type.Object(Input.RoleInput.properties, {
  ...Strict,
  examples: [
    {
      roleType: 'Director',
      rolePerson: { firstName: 'Aroha', lastName: 'Fixture' },
      startDate: '2024-02-01',
    },
  ],
});

export async function replaceRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.put(
    '/entities/:nzbn/privacy-settings',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_034_5'),
          summary: 'Change privacy settings (flags not given keep their value)',
          params: NzbnParams,
          headers: WriteHeaders,
          ...HOLDS_AGAINST_ENTITY,
          body: Input.PrivacyInput,
          response: responses({ 200: PrivacySettings }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await changePrivacySettings(context, {
        ...writeOf(request, request.params.nzbn),
        settings: request.body,
      });
      return withValidators(reply, updated).send(updated.result);
    },
  );

  api.post(
    '/entities/:nzbn/roles',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_024_3'),
          summary: 'Appoint a role (a director, a shareholder, a partner …)',
          params: NzbnParams,
          ...HOLDS_AGAINST_ENTITY,
          body: RoleBody,
          response: responses({ 201: Role }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await appointRole(context, {
        ...writeOf(request, request.params.nzbn),
        role: request.body,
      });
      return withValidators(reply, updated).code(201).send(updated.result);
    },
  );

  api.put(
    '/entities/:nzbn/roles/:id',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_034_3'),
          summary: 'Change a role (roleStatus INACTIVE with an endDate ends it)',
          params: RoleParams,
          headers: WriteHeaders,
          ...HOLDS_AGAINST_ENTITY,
          body: RoleBody,
          response: responses({ 200: Role }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await changeRole(context, {
        ...writeOf(request, request.params.nzbn),
        roleId: request.params.id,
        role: request.body,
      });
      return withValidators(reply, updated).send(updated.result);
    },
  );

  api.post(
    '/entities/:nzbn/action-update-australian-business-numbers',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_005_1'),
          summary: 'Set or clear the Australian Business Number',
          params: NzbnParams,
          ...HOLDS_AGAINST_ENTITY,
          body: Input.AbnInput,
          response: responses({ 200: AbnAnswer }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await setAustralianBusinessNumber(context, {
        ...writeOf(request, request.params.nzbn),
        australianBusinessNumber: request.body.australianBusinessNumber,
      });
      return withValidators(reply, updated).send(updated.result);
    },
  );

  api.post(
    '/entities/:nzbn/statuses',
    nzbnOperation(
      {
        config,
        schema: {
          ...published('NZBN_024_2'),
          summary: 'Request a status change (entities the register keeps itself); 204',
          params: NzbnParams,
          ...HOLDS_AGAINST_ENTITY,
          body: Input.StatusRequest,
          response: responses({ 204: Type.Null() }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const { entityStatusDescription: _set, endDate: _none, ...status } = request.body;
      const updated = await requestStatus(context, { ...writeOf(request, request.params.nzbn), ...status });
      return withValidators(reply, updated).code(204).send();
    },
  );
}
