/**
 * A SOAP endpoint's entries in the OpenAPI document: the WSDL read's schema, the POST's (its operations,
 * the sample envelope of each, the JSON form, the faults), what a fault looks like.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { SOAP_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError, render } from '../../../platform/http/errors.ts';
import type { SoapEndpointOptions } from './endpoint.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where the WSDL and XSD files are (`src/services/iponz/wsdl/`). */
export const WSDL_FOLDER = path.join(here, '..', 'wsdl');

const FAULT_SCHEMA = { description: 'A SOAP 1.1 envelope whose body is a soap:Fault' };
/** What a fault looks like, for the reference (the one a request the XSD refuses gets). */
const FAULT_EXAMPLE = render(
  'soap',
  new HttpError(SOAP_ERRORS.invalidRequest, 'TradeMarkSearchCriteria/Title: at most 255 characters'),
).body;

/**
 * The sample envelope of each operation (`wsdl/samples/<endpoint>.<operation>.xml`, one per operation,
 * answered by the sandbox as it is: test/services/iponz/soap-samples.test.ts), for the OpenAPI document.
 */
export function samplesOf(options: SoapEndpointOptions): Record<string, { summary: string; value: string }> {
  const samples: Record<string, { summary: string; value: string }> = {};
  for (const operation of options.operations) {
    const file = path.join(WSDL_FOLDER, 'samples', `${options.path.slice(1)}.${operation.name}.xml`);
    if (!existsSync(file)) continue;
    samples[operation.name] = {
      summary: `${operation.name} (send SOAPAction: ${operation.name})`,
      value: readFileSync(file, 'utf8'),
    };
  }
  return samples;
}

type Samples = ReturnType<typeof samplesOf>;

/** The schema of `GET <path>`: the WSDL (`?wsdl`) and the XSDs it imports (`?xsd=<file>`). */
export function wsdlSchema(summary: string, xsdNames: readonly string[]) {
  return {
    summary: `${summary}: the WSDL (?wsdl) and its XSDs (?xsd=<file>)`,
    querystring: Type.Object({
      // Its presence asks for the WSDL (`?wsdl`); a value is allowed, so try-it can send one.
      wsdl: Type.Optional(Type.String({ examples: ['true'] })),
      xsd: Type.Optional(Type.String({ enum: [...xsdNames] })),
    }),
    response: {
      200: {
        description: 'The WSDL or the XSD',
        content: { 'text/xml': { schema: { type: 'string' } } },
      },
    },
  };
}

/** The schema of `POST <path>`: a SOAP 1.1 envelope of one of the operations, or the JSON form. */
export function postSchema(options: SoapEndpointOptions, samples: Samples) {
  return {
    summary: `${options.summary} (SOAP 1.1; operations: ${options.operations.map((o) => o.name).join(', ')})`,
    description: `A SOAP 1.1 document/literal operation: the body is a SOAP envelope, see the WSDL (GET ${options.path}?wsdl)${options.json ? '; with Content-Type: application/json, the same operation as REST JSON' : ''}.`,
    externalDocs: { description: 'The WSDL', url: `${options.path.slice(1)}?wsdl` },
    // The operation to run; the portal's try-it sends the one of the sample chosen.
    headers: {
      type: 'object',
      properties: {
        SOAPAction: {
          type: 'string',
          enum: options.operations.map((o) => o.name),
          description: `The operation (the WSDL's soapAction)${options.operations.length > 1 ? '; required' : ''}`,
        },
      },
      ...(options.operations.length > 1 ? { required: ['SOAPAction'] } : {}),
    },
    body: {
      content: {
        'text/xml': {
          // No `type`: Swagger UI then shows the chosen sample as it is (a typed schema without an
          // XML root name makes it print "XML example cannot be generated" instead).
          schema: {
            description: 'A SOAP 1.1 envelope (a string of XML) whose body is a request element of the WSDL',
            'x-examples': samples,
          },
        },
        'application/xml': { schema: { description: 'The same envelope as text/xml' } },
        ...(options.jsonSchema ? { 'application/json': { schema: options.jsonSchema.body } } : {}),
      },
    },
    response: {
      200: {
        description:
          'The answer envelope (see the WSDL); failures the register publishes as answers are here too',
        content: {
          'text/xml': { schema: { description: 'A SOAP 1.1 envelope (see the WSDL)' } },
          ...(options.jsonSchema
            ? {
                'application/json': {
                  schema: options.jsonSchema.response[200] ?? { type: 'object' },
                },
              }
            : {}),
        },
      },
      ...Object.fromEntries(
        Object.entries(options.jsonSchema?.response ?? {})
          .filter(([status]) => status !== '200')
          .map(([status, description]) => [
            status,
            { description, content: { 'application/problem+json': { schema: { type: 'object' } } } },
          ]),
      ),
      415: {
        description:
          'Neither a SOAP 1.1 body (text/xml) nor JSON: problem+json; application/soap+xml (SOAP 1.2): a soap:Client fault',
        content: {
          'application/problem+json': { schema: { type: 'object' } },
          'text/xml': { schema: FAULT_SCHEMA },
        },
      },
      500: {
        description: 'A SOAP 1.1 Fault',
        content: { 'text/xml': { schema: FAULT_SCHEMA, example: FAULT_EXAMPLE } },
      },
      ...Object.fromEntries(
        Object.entries(options.faults ?? {}).map(([status, description]) => [
          status,
          {
            description,
            content: { 'text/xml': { schema: FAULT_SCHEMA } },
          },
        ]),
      ),
    },
  };
}
