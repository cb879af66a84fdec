import { expect } from 'vitest';
import {
  type Dialect,
  type ErrorCode,
  FRAMEWORK_ERROR_FAMILY,
  PLATFORM_ERRORS,
  PROBLEM_ERRORS,
  serviceErrorCodes,
} from '../../src/platform/http/error-codes.ts';

/** Codes answered in problem+json outside the registers (admin, portal, sign-in) and by the platform. */
export const PROBLEM_CODES: readonly ErrorCode[] = [
  ...Object.values(PLATFORM_ERRORS),
  ...Object.values(PROBLEM_ERRORS),
];

/**
 * The code is one of the catalogue's, answered with the catalogue's status (Fastify's own refusals
 * keep their code: the `fst_err_` family, any 4xx). `codes` defaults to a service's list in its dialect.
 */
export function expectCatalogued(
  code: unknown,
  status: number,
  codes: readonly ErrorCode[],
  label = '',
): void {
  if (typeof code === 'string' && code.startsWith(FRAMEWORK_ERROR_FAMILY.code.replace('…', ''))) {
    expect(status, `${label} ${code}`).toBeGreaterThanOrEqual(400);
    expect(status, `${label} ${code}`).toBeLessThan(500);
    return;
  }
  const known = codes.filter((entry) => entry.code === code).map((entry) => entry.status);
  if (!known.includes(status)) {
    expect.fail(
      `${label} ${status} ${String(code)} is not in the catalogue (${known.join(', ') || 'no such code'})`,
    );
  }
}

/** The codes a client of a service meets in its own dialect (the gateway's refusals left out). */
export function dialectCodes(service: { dialect: Dialect; errorCodes?: readonly ErrorCode[] }): ErrorCode[] {
  return serviceErrorCodes(service.dialect, service.errorCodes).filter((e) => e.dialect === service.dialect);
}
