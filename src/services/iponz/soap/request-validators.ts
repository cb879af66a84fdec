/**
 * The declared validators of a SOAP endpoint's POST (the operation kit's `validators`,
 * platform/http/declared-validators.ts): every part of the request has one, each checked where it can be.
 *
 * - **Headers.** `SOAPAction` (quotes stripped) names one of the endpoint's operations; for a SOAP 1.1
 *   body (`text/xml`, `application/xml`) an unknown one — or none where the endpoint has several
 *   operations — is the `unknown-soap-action` fault (HTTP 500, as SOAP 1.1 answers a fault), not a 400:
 *   the clients are SOAP stacks, and the fault is what they read. Other bodies ignore it.
 * - **Body, SOAP.** The envelope is validated against the endpoint's XSDs while it streams
 *   (`envelope.ts`, `validator.ts`: in the handler, so a 50 MB attachment is never in memory): declared
 *   `streamed`, Fastify leaves it unread.
 * - **Body, JSON form** (the search and the download): the form's own check (`JsonForm.validate`), whose
 *   result is the handler's typed input; a RuleError names the field (400 problem+json).
 */
import {
  checked,
  type DeclaredParts,
  type PartCheck,
  streamed,
} from '../../../platform/http/declared-validators.ts';
import { PLATFORM_ERRORS, SOAP_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';

/** SOAP 1.1 bodies, read by the operation as they stream. */
export const SOAP_BODY_TYPES = /^(text\/xml|application\/xml)\s*(;|$)/i;

/** The `SOAPAction` header's operation name, quotes stripped (SOAP 1.1 §6.1.1 quotes it). */
export function soapActionOf(headers: Record<string, unknown>): string | undefined {
  const header = headers.soapaction;
  const value = Array.isArray(header) ? header[0] : header;
  return typeof value === 'string' ? value.trim().replace(/^"(.*)"$/, '$1') : undefined;
}

export interface SoapRequestRules {
  /** The route path, for the faults' messages. */
  path: string;
  /** The operations' SOAPAction values. */
  actions: readonly string[];
  /** The JSON form's check, when the endpoint has one. */
  json?: (body: unknown) => unknown;
}

function soapActionValidator(rules: SoapRequestRules): PartCheck {
  return (data: unknown) => {
    const headers = data as Record<string, unknown>;
    if (!SOAP_BODY_TYPES.test(String(headers['content-type'] ?? ''))) return true;
    const action = soapActionOf(headers);
    if (action !== undefined && !rules.actions.includes(action))
      return {
        error: new HttpError(
          SOAP_ERRORS.unknownSoapAction,
          `SOAPAction "${action}" is no operation of ${rules.path}; its operations: ${rules.actions.join(', ')}`,
          [{ field: 'SOAPAction', message: `must be one of ${rules.actions.join(', ')}` }],
        ),
      };
    if (action === undefined && rules.actions.length > 1)
      return {
        error: new HttpError(
          SOAP_ERRORS.unknownSoapAction,
          `${rules.path} has several operations: the SOAPAction header names one of ${rules.actions.join(', ')}`,
          [{ field: 'SOAPAction', message: 'is required' }],
        ),
      };
    return true;
  };
}

/** The validators a SOAP endpoint's POST declares. */
export function soapRequestValidators(rules: SoapRequestRules): DeclaredParts {
  return {
    headers: soapActionValidator(rules),
    body: {
      'text/xml': streamed,
      'application/xml': streamed,
      ...(rules.json ? { 'application/json': checked({ parse: rules.json }) } : {}),
    },
    // The endpoint's other parts have none to check: it takes no path parameters nor query.
    refuse: (problems, part) =>
      new HttpError(PLATFORM_ERRORS.invalidParameter, `The ${part} is not valid.`, [...problems]),
  };
}
