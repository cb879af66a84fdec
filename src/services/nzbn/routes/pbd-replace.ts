/**
 * The replace operations and the status request (three-legged token and business authority):
 * PUT privacy-settings (flags not given keep their value), PUT roles (the whole list; see
 * domain/roles.ts), PUT australian-business-number, POST entity-statuses. Each records its change
 * event; a role change records one per changed role with the whole role as the new value.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../../platform/http/errors.ts';
import {
  abnProblem,
  REQUESTABLE_STATUS_RULE,
  readRequestedStatus,
  roleChangeEventType,
  statusChangeProblem,
} from '../domain/changes.ts';
import { ENTITY_STATUSES } from '../domain/codes.ts';
import { parseNzDateTime } from '../domain/dates.ts';
import { statusPeriods } from '../domain/history.ts';
import { FieldProblem, readDate } from '../domain/items.ts';
import { isPrivateRole } from '../domain/privacy.ts';
import { identifiersNeeded, replaceRoles } from '../domain/roles.ts';
import { Nullable, PrivacySettings, Role } from '../domain/schema.ts';
import { historyItems } from '../store/entities.ts';
import * as Input from './input-schemas.ts';
import { NzbnParams, responses } from './schemas.ts';
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
  app.put<{ Params: NzbnParams; Body: Input.PrivacyInput }>(
    '/entities/:nzbn/privacy-settings',
    {
      config,
      schema: {
        summary: 'Change privacy settings (flags not given keep their value)',
        params: NzbnParams,
        body: Input.PrivacyInput,
        response: responses({ 200: PrivacySettings }, UPDATE_ERRORS),
      },
    },
    async (request, reply) => {
      const updated = await updateFor(context, request, (entity) => {
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

  app.put<{ Params: NzbnParams; Body: Input.RoleInput[] }>(
    '/entities/:nzbn/roles',
    {
      config,
      schema: {
        summary: 'Replace the roles (a role left out ends)',
        params: NzbnParams,
        body: Type.Array(Input.RoleInput, { maxItems: 200 }),
        response: responses({ 200: Type.Array(Role) }, UPDATE_ERRORS),
      },
    },
    async (request, reply) => {
      const updated = await updateFor(context, request, async (entity, tools) => {
        const ids: string[] = [];
        for (let i = identifiersNeeded(request.body); i > 0; i--) ids.push(await tools.nextItemId());
        const { roles, changed } = replaceRoles(entity.roles, request.body, tools.stamp, () => ids.shift()!);
        entity.roles = roles;
        const events = changed.map((role) => ({
          changeEventType: roleChangeEventType(role.roleType),
          newValue: role,
          isPrivate: isPrivateRole(entity.privacySettings, role),
        }));
        return { result: roles, events };
      });
      return withValidators(reply, updated).send(updated.result);
    },
  );

  app.put<{ Params: NzbnParams; Body: Input.AbnInput }>(
    '/entities/:nzbn/australian-business-number',
    {
      config,
      schema: {
        summary: 'Set or clear the Australian Business Number',
        params: NzbnParams,
        body: Input.AbnInput,
        response: responses({ 200: AbnBody }, UPDATE_ERRORS),
      },
    },
    async (request, reply) => {
      const given = request.body.australianBusinessNumber;
      const abn = given === null || given.trim() === '' ? null : given.replace(/\s/g, '');
      const problem = abn === null ? null : abnProblem(abn);
      if (problem) throw badRequest('australianBusinessNumber', problem);
      const updated = await updateFor(context, request, (entity) => {
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

  app.post<{ Params: NzbnParams; Body: Input.StatusRequest }>(
    '/entities/:nzbn/entity-statuses',
    {
      config,
      schema: {
        summary: 'Request a status change (entities the register keeps itself)',
        params: NzbnParams,
        body: Input.StatusRequest,
        response: responses({ 201: StatusBody }, UPDATE_ERRORS),
      },
    },
    async (request, reply) => {
      const target = readRequestedStatus(request.body.entityStatusCode);
      if (!target) throw badRequest('entityStatusCode', REQUESTABLE_STATUS_RULE);
      const updated = await updateFor(context, request, async (entity, tools) => {
        const problem = statusChangeProblem(entity, target);
        if (problem) throw new FieldProblem('entityStatusCode', problem);
        const effective = readDate(request.body.effectiveDate, tools.stamp, 'effectiveDate');
        const records = await historyItems(tools.client, entity.nzbn, 'entity-statuses');
        const periods = statusPeriods(entity, records);
        const current = periods.at(-1)!;
        const at = parseNzDateTime(effective)!;
        if (at > tools.now.getTime()) throw new FieldProblem('effectiveDate', 'must not be in the future');
        if (current.startDate && at < parseNzDateTime(current.startDate)!) {
          throw new FieldProblem(
            'effectiveDate',
            `must not be before the present status began (${current.startDate})`,
          );
        }
        // A derived history (seeded entities) becomes stored history with its first real change.
        const ended = (records.length === 0 ? periods : [current]).map((period) =>
          period === current ? { ...period, endDate: effective } : period,
        );
        entity.entityStatusCode = target;
        entity.entityStatusDescription = ENTITY_STATUSES[target].description;
        const value = {
          nzbn: entity.nzbn,
          entityStatusCode: target,
          entityStatusDescription: entity.entityStatusDescription,
          effectiveDate: effective,
        };
        return {
          result: value,
          events: [{ changeEventType: 'ENTITY_STATUS', newValue: value, isPrivate: false }],
          ended: ended.map((period) => ({
            kind: 'entity-statuses',
            item: period,
            startDate: period.startDate,
            endDate: period.endDate ?? effective,
          })),
        };
      });
      return withValidators(reply, updated).code(201).send(updated.result);
    },
  );
}
