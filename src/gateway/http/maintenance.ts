import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import { PLATFORM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError, sendError } from '../../platform/http/errors.ts';
import { maintenanceWindowAt, newZealandIso } from '../domain/maintenance.ts';

/**
 * The simulated maintenance window on a sandbox service's routes (`RSG_SANDBOX_MAINTENANCE=on`): when
 * the guard has let a call through and the sandbox clock is inside the window (domain/maintenance.ts),
 * 503 in the service's own dialect.
 */
/** The 503 a service call gets inside the window: the service's own dialect, `Retry-After` to its end. */
export function maintenanceError(now: Date, window: { end: Date }): HttpError {
  const seconds = Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000));
  return new HttpError(
    PLATFORM_ERRORS.scheduledMaintenance,
    'The register is unavailable during its scheduled maintenance window (every Wednesday 21:00 to ' +
      `23:00 New Zealand time). The window ends at ${newZealandIso(window.end)} ` +
      `(${window.end.toISOString()}); try again in ${seconds} seconds.`,
    [],
    { 'Retry-After': String(seconds) },
  );
}

/**
 * The `onRequest` hook of a sandbox service's routes when the simulation is on. It runs after the
 * subscription guard, so a wrong key, token or exhausted limit is reported as such at any hour.
 */
export function maintenanceHook(clock: Clock) {
  return async function maintenance(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const now = clock.now();
    const window = maintenanceWindowAt(now);
    if (!window) return undefined;
    return sendError(request, reply, maintenanceError(now, window));
  };
}
