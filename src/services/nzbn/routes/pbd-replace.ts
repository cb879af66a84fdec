/**
 * The replace operations and the status request (three-legged token and business authority):
 * PUT privacy-settings (flags not given keep their value), PUT roles (the whole list; see
 * domain/roles.ts), PUT australian-business-number, POST entity-statuses. Each records its change
 * event; a role change records one per changed role with the whole role as the new value. The
 * operations are operations/entity-updates.ts.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { preconditionsOf, typed } from '../../../platform/http/operation.ts';
import { Nullable, PrivacySettings, Role } from '../domain/schema.ts';
import {
  changePrivacySettings,
  type EntityWrite,
  replaceRoles,
  requestStatus,
  setAustralianBusinessNumber,
} from '../operations/entity-updates.ts';
import type { NzbnContext } from '../operations/support.ts';
import * as Input from '../schemas/inputs.ts';
import { NzbnParams, responses } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { UPDATE_ERRORS, withValidators } from './update-support.ts';

const config = { threeLegged: true };

/** The write a request makes: its caller, the entity of its path and its preconditions. */
const writeOf = (request: FastifyRequest, nzbn: string): EntityWrite => ({
  caller: request.caller,
  nzbn,
  preconditions: preconditionsOf(request),
});
const AbnBody = Type.Object({ australianBusinessNumber: Nullable(Type.String()) });
const StatusBody = Type.Object({
  nzbn: Type.String(),
  entityStatusCode: Type.String(),
  entityStatusDescription: Type.String(),
  effectiveDate: Type.String(),
});

export async function replaceRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);
  api.put(
    '/entities/:nzbn/privacy-settings',
    nzbnOperation(
      {
        config,
        schema: {
          summary: 'Change privacy settings (flags not given keep their value)',
          params: NzbnParams,
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

  api.put(
    '/entities/:nzbn/roles',
    nzbnOperation(
      {
        config,
        schema: {
          summary: 'Replace the roles (a role left out ends)',
          params: NzbnParams,
          body: Type.Array(Input.RoleInput, {
            maxItems: 200,
            examples: [
              [{ roleType: 'Sole Trader', rolePerson: { firstName: 'Aroha', lastName: 'Fixture' } }],
            ],
          }),
          response: responses({ 200: Type.Array(Role) }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await replaceRoles(context, {
        ...writeOf(request, request.params.nzbn),
        roles: request.body,
      });
      return withValidators(reply, updated).send(updated.result);
    },
  );

  api.put(
    '/entities/:nzbn/australian-business-number',
    nzbnOperation(
      {
        config,
        schema: {
          summary: 'Set or clear the Australian Business Number',
          params: NzbnParams,
          body: Input.AbnInput,
          response: responses({ 200: AbnBody }, UPDATE_ERRORS),
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
    '/entities/:nzbn/entity-statuses',
    nzbnOperation(
      {
        config,
        schema: {
          summary: 'Request a status change (entities the register keeps itself)',
          params: NzbnParams,
          body: Input.StatusRequest,
          response: responses({ 201: StatusBody }, UPDATE_ERRORS),
        },
      },
      {},
    ),
    async (request, reply) => {
      const updated = await requestStatus(context, {
        ...writeOf(request, request.params.nzbn),
        ...request.body,
      });
      return withValidators(reply, updated).code(201).send(updated.result);
    },
  );
}
