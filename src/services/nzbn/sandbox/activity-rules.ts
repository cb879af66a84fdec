/**
 * Rules of the simulated activity (activity.ts): which entities a kind of change fits, and where an
 * entity's status may move. Pure.
 */
import {
  ENTITY_STATUSES,
  ENTITY_TYPES,
  type EntityStatusCode,
  type EntityTypeCode,
  isCompanyType,
} from '../domain/codes.ts';
import type { ActivityKind } from './activity-plan.ts';
import { typeGroup } from './profile.ts';

const STOPPED: ReadonlySet<string> = new Set(['80', '90', '91']);

export type Weighted<T> = readonly (readonly [T, number])[];

/**
 * Where an entity's status may move in the simulation, weighted. Entities the register keeps itself
 * follow the status requests' rule (domain/changes.ts): 50 ↔ 90, either to 91 (final); public sector
 * bodies do not change. Companies: mostly removal, else liquidation, receivership or administration;
 * an insolvency ends back at registered or in liquidation, and liquidation ends in removal. Other
 * registers' entities (societies, trusts, limited partnerships, overseas companies) are removed.
 * Removed (80) is final here.
 */
export function statusTransitions(
  type: EntityTypeCode,
  status: EntityStatusCode,
): Weighted<EntityStatusCode> {
  const info = ENTITY_TYPES[type];
  if (info.publicSector) return [];
  if (info.sourceRegister === 'NZBN') {
    if (status === '50')
      return [
        ['90', 3],
        ['91', 2],
      ];
    if (status === '90')
      return [
        ['50', 1],
        ['91', 2],
      ];
    return [];
  }
  if (STOPPED.has(status)) return [];
  const filters = ENTITY_STATUSES[status].filters;
  if (filters.includes('InLiquidation')) return [['80', 1]];
  if (typeGroup(type) !== 'nzCompany') return status === '50' ? [['80', 1]] : [['50', 1]];
  switch (status) {
    case '50':
      return [
        ['80', 55],
        ['60', 30],
        ['70', 6],
        ['55', 6],
        ['72', 3],
      ];
    case '70':
      return [
        ['50', 2],
        ['61', 1],
      ];
    case '72':
      return [
        ['50', 1],
        ['63', 1],
      ];
    case '55':
      return [
        ['50', 2],
        ['62', 1],
      ];
    default:
      // In receivership and under administration (56, 57, 66): one of the two ends.
      return [
        ['70', 1],
        ['61', 1],
      ];
  }
}

/** Whether a change of `kind` fits an entity of this type and status. */
export function fits(
  kind: Exclude<ActivityKind, 'NEW'>,
  type: EntityTypeCode,
  status: EntityStatusCode,
): boolean {
  const info = ENTITY_TYPES[type];
  switch (kind) {
    case 'ENTITY_STATUS':
      return statusTransitions(type, status).length > 0;
    case 'ADDRESS':
      return !STOPPED.has(status);
    case 'ENTITY_NAME':
      // A sole trader's name is the person's; public bodies are named by statute.
      return !STOPPED.has(status) && type !== 'Sole_Trader' && !info.publicSector;
    case 'ROLES_DIRECTOR':
      return (
        isCompanyType(type) &&
        !STOPPED.has(status) &&
        !ENTITY_STATUSES[status].filters.includes('InLiquidation')
      );
  }
}
