import type { LightMyRequestResponse } from 'fastify';
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

/**
 * An error answer in `dialect`, whatever its code: the body's shape, and the code it carries (the
 * `errorCode`, the problem type's fragment, the SOAP `<ErrorCode>`; API Management's body has none).
 */
export function dialectError(
  response: LightMyRequestResponse,
  dialect: Dialect,
  label = '',
): string | undefined {
  const where = `${label} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  switch (dialect) {
    case 'apim': {
      expect(response.json(), where).toEqual({
        statusCode: response.statusCode,
        message: expect.any(String),
      });
      return undefined;
    }
    case 'nzbn': {
      const body = response.json();
      expect(body, where).toEqual({
        status: String(response.statusCode),
        errorCode: expect.any(String),
        errorDescription: expect.any(String),
        list: expect.any(Array),
      });
      for (const item of body.list)
        expect(item, where).toEqual({ field: expect.any(String), message: expect.any(String) });
      return body.errorCode;
    }
    case 'problem': {
      expect(response.headers['content-type'], where).toMatch(/^application\/problem\+json/);
      const body = response.json();
      expect(body, where).toMatchObject({
        type: expect.stringMatching(/^about:blank#/),
        title: expect.any(String),
        status: response.statusCode,
        detail: expect.any(String),
      });
      for (const item of body.errors ?? [])
        expect(item, where).toEqual({ field: expect.any(String), message: expect.any(String) });
      return String(body.type).replace('about:blank#', '');
    }
    case 'soap': {
      expect(response.headers['content-type'], where).toMatch(/^text\/xml/);
      const code = /<ErrorCode>([^<]*)<\/ErrorCode>/.exec(response.body)?.[1];
      expect(code, where).toBeDefined();
      return code;
    }
  }
}

/** The answer is exactly this refusal, in the service's dialect: its status and its code. */
export function expectRefusal(
  response: LightMyRequestResponse,
  dialect: Dialect,
  error: ErrorCode,
  label = '',
): void {
  expect(response.statusCode, `${label}: ${response.body.slice(0, 300)}`).toBe(error.status);
  expect(dialectError(response, dialect, label), label).toBe(error.code);
}
