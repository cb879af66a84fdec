/**
 * The replace operations and the status request (three-legged token and business authority):
 * PUT privacy-settings (flags not given keep their value), PUT roles (the whole list; see
 * domain/roles.ts), PUT australian-business-number, POST entity-statuses. Each records its change
 * event; a role change records one per changed role with the whole role as the new value.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RuleError } from '../../../platform/errors.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { typed } from '../../../platform/http/operation.ts';
import {
  abnProblem,
  REQUESTABLE_STATUS_RULE,
  readRequestedStatus,
  statusChangeProblem,
} from '../domain/changes.ts';
import { Nullable, PrivacySettings, Role } from '../domain/schema.ts';
import * as Input from '../schemas/inputs.ts';
import { NzbnParams, responses } from '../schemas/operations.ts';
import { rolesChange, statusChange } from '../store/edits.ts';
import { nzbnOperation } from './operation.ts';
import type { NzbnContext } from './support.ts';
import { UPDATE_ERRORS, updateFor, withValidators } from './update-support.ts';

const config = { threeLegged: true };
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
      const updated = await updateFor(context, request, request.params.nzbn, (entity) => {
        entity.privacySettings = { ...entity.privacySettings, ...request.body };
        const settings = entity.privacySettings;
        return {
          result: settings,
          events: [{ changeEventType: 'PRIVACYSETTINGS', newValue: settings, isPrivate: false }],
        };
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
      const updated = await updateFor(context, request, request.params.nzbn, (entity, tools) =>
        rolesChange(entity, request.body, tools),
      );
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
      const given = request.body.australianBusinessNumber;
      const abn = given === null || given.trim() === '' ? null : given.replace(/\s/g, '');
      const problem = abn === null ? null : abnProblem(abn);
      if (problem) throw badRequest('australianBusinessNumber', problem);
      const updated = await updateFor(context, request, request.params.nzbn, (entity) => {
        entity.australianBusinessNumber = abn;
        const value = { australianBusinessNumber: abn };
        const isPrivate = entity.privacySettings.abnPrivateInformation;
        return {
          result: value,
          events: [{ changeEventType: 'AUSTRALIANBUSINESSNUMBER', newValue: value, isPrivate }],
        };
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
      const target = readRequestedStatus(request.body.entityStatusCode);
      if (!target) throw badRequest('entityStatusCode', REQUESTABLE_STATUS_RULE);
      const updated = await updateFor(context, request, request.params.nzbn, (entity, tools) => {
        const problem = statusChangeProblem(entity, target);
        if (problem) throw new RuleError('entityStatusCode', problem);
        return statusChange(entity, target, request.body.effectiveDate, tools);
      });
      return withValidators(reply, updated).code(201).send(updated.result);
    },
  );
}
