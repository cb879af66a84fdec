import { describe, expect, it } from 'vitest';
import { RuleError } from '../../src/platform/errors.ts';
import {
  APIM_ERRORS,
  type Dialect,
  type ErrorCode,
  PLATFORM_ERRORS,
  PROBLEM_ERRORS,
  SOAP_ERRORS,
  serviceErrorCodes,
} from '../../src/platform/http/error-codes.ts';
import { HttpError, render, toHttpError } from '../../src/platform/http/errors.ts';
import { NZBN_ERRORS } from '../../src/services/nzbn/errors.ts';

const rendered = (dialect: Dialect, error: unknown) => {
  const { body } = render(dialect, toHttpError(error), '/x');
  return dialect === 'soap' ? body : JSON.parse(body);
};

describe('RuleError: one broken rule, rendered by every dialect', () => {
  const broken = new RuleError('roles.0.endDate', 'is before startDate');

  it('is a 400 invalid-parameter naming the field and the rule', () => {
    const error = toHttpError(broken);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid-parameter',
      message: 'roles.0.endDate: is before startDate',
    });
    expect(error.fields).toEqual([{ field: 'roles.0.endDate', message: 'is before startDate' }]);
  });

  it('in the business number register’s body', () => {
    expect(rendered('nzbn', broken)).toEqual({
      status: '400',
      errorCode: 'invalid-parameter',
      errorDescription: 'roles.0.endDate: is before startDate',
      list: [{ field: 'roles.0.endDate', message: 'is before startDate' }],
    });
  });

  it('in problem+json, the sentence form keeping the sentence as message and rule', () => {
    const sentence = 'num-months must be a whole number from 1 to 24';
    expect(rendered('problem', RuleError.stated('num-months', sentence))).toEqual({
      type: 'about:blank#invalid-parameter',
      title: 'Bad Request',
      status: 400,
      detail: sentence,
      instance: '/x',
      errors: [{ field: 'num-months', message: sentence }],
    });
  });

  it('in API Management’s body (status and message only)', () => {
    expect(rendered('apim', broken)).toEqual({
      statusCode: 400,
      message: 'roles.0.endDate: is before startDate',
    });
  });

  it('as a SOAP fault with the catalogue code in the detail', () => {
    const body = rendered('soap', broken) as string;
    expect(body).toContain('<faultcode>soap:Client</faultcode>');
    expect(body).toContain('<ErrorCode>invalid-parameter</ErrorCode><HttpStatus>400</HttpStatus>');
    expect(body).toContain('<Field>roles.0.endDate</Field><Message>is before startDate</Message>');
  });

  it('carries another catalogue code and its status when given one', () => {
    const error = toHttpError(new RuleError('nzbn', 'no such entity', { code: NZBN_ERRORS.notFound }));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'nzbn: no such entity' });
  });

  it('moves under a prefix, keeping its rule and code', () => {
    const moved = new RuleError('0.endDate', 'is before startDate').within('roles.');
    expect(moved).toMatchObject({
      field: 'roles.0.endDate',
      rule: 'is before startDate',
      code: PLATFORM_ERRORS.invalidParameter,
    });
    expect(moved.message).toBe('roles.0.endDate: is before startDate');
  });
});

describe('the error code catalogue', () => {
  const catalogues: Record<string, Record<string, ErrorCode>> = {
    APIM_ERRORS,
    PLATFORM_ERRORS,
    NZBN_ERRORS,
    PROBLEM_ERRORS,
    SOAP_ERRORS,
  };

  it.each(Object.entries(catalogues))(
    '%s: one entry per code, each with a status and a meaning',
    (_, catalogue) => {
      const codes = Object.values(catalogue).map((entry) => entry.code);
      expect(new Set(codes).size).toBe(codes.length);
      for (const entry of Object.values(catalogue)) {
        expect(entry.status).toBeGreaterThanOrEqual(400);
        expect(entry.status).toBeLessThan(600);
        expect(entry.meaning.length).toBeGreaterThan(10);
      }
    },
  );

  it('SOAP: faults for requests it cannot read are soap:Client with HTTP 500; a server fault is soap:Server', () => {
    const envelope = render('soap', new HttpError(SOAP_ERRORS.malformedEnvelope, 'not an envelope')).body;
    expect(envelope).toContain('<faultcode>soap:Client</faultcode>');
    expect(envelope).toContain('<ErrorCode>malformed-envelope</ErrorCode><HttpStatus>500</HttpStatus>');
    const server = render('soap', new HttpError(PLATFORM_ERRORS.internalError, 'logged')).body;
    expect(server).toContain('<faultcode>soap:Server</faultcode>');
    expect(server).toContain('<ErrorCode>internal-error</ErrorCode>');
  });

  it('a service’s list: the gateway’s refusals, then the platform’s and its own codes in its dialect', () => {
    const listed = serviceErrorCodes('nzbn', Object.values(NZBN_ERRORS));
    expect(listed.filter((e) => e.dialect === 'apim').map((e) => e.code)).toEqual(
      Object.values(APIM_ERRORS).map((e) => e.code),
    );
    const own = listed.filter((e) => e.dialect === 'nzbn').map((e) => e.code);
    expect(own).toEqual(
      expect.arrayContaining(['invalid-parameter', 'NOT_FOUND', 'UNAUTHORIZED', 'FORBIDDEN']),
    );
    const soap = serviceErrorCodes('soap', Object.values(SOAP_ERRORS));
    expect(soap.find((e) => e.code === 'unknown-soap-action')).toMatchObject({
      status: 500,
      fault: 'soap:Client',
    });
    expect(soap.find((e) => e.code === 'service-unavailable')).toMatchObject({ fault: 'soap:Server' });
  });
});
