import { ENVIRONMENTS, type Environment } from '../../services/contract.ts';
import { invalidField } from '../errors.ts';

/** The id of a row of the portal's, identity's or billing's tables (a UUID); anything else finds nothing. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isEnvironment = (value: unknown): value is Environment =>
  typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value);

/** `2026-06-15 09:30 UTC`; '' for none. */
export function formatDate(value: Date | null | undefined): string {
  return value ? value.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '';
}

export const formatBytes = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** An operator's decision on a request: approve or decline (400 naming `decision` otherwise). */
export function checkedDecision(decision: string): 'approve' | 'decline' {
  if (decision !== 'approve' && decision !== 'decline')
    throw invalidField('decision', 'must be approve or decline');
  return decision;
}

/** An environment a form names: 400 naming `environment` for anything else. */
export function environmentOf(value: unknown): Environment {
  if (isEnvironment(value)) return value;
  throw invalidField('environment', 'must be sandbox or production');
}
