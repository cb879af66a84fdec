import { describe, expect, it } from 'vitest';
import { operationsOf, referenceDocument } from '../../src/portal/domain/reference-document.ts';

const errorBody = {
  description: 'An error',
  content: { 'application/json': { schema: { type: 'object', properties: { code: { type: 'string' } } } } },
};
const conditional = ['if-none-match', 'if-match', 'if-modified-since', 'if-unmodified-since'].map((name) => ({
  in: 'header',
  name,
  required: false,
  schema: { type: 'string' },
}));
const source = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1' },
  servers: [{ url: '/sandbox/things/v1' }],
  'x-error-codes': [{ code: 'missing-key', status: 401, meaning: 'No key | none' }],
  paths: {
    '/things/{id}': {
      get: {
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }, ...conditional],
        responses: { 200: { description: 'Default Response' }, 400: errorBody, 404: errorBody },
      },
      put: {
        tags: ['Changes'],
        parameters: [...conditional],
        responses: {
          204: { description: 'Default Response' },
          400: errorBody,
          412: { description: 'Changed' },
        },
      },
    },
    '/things': {
      get: {
        parameters: [
          { in: 'query', name: 'page', schema: { type: 'integer' } },
          { in: 'query', name: 'page-size', schema: { type: 'integer', maximum: 50 } },
        ],
        responses: { 200: { description: 'OK' }, 400: errorBody },
      },
    },
  },
};

describe('the reference document', () => {
  const prepared = referenceDocument(source)!;
  // biome-ignore lint/suspicious/noExplicitAny: the test reads a JSON document
  const paths = prepared.paths as Record<string, Record<string, Record<string, any>>>;

  it('names responses the schema library left as "Default Response", and leaves the input alone', () => {
    expect(paths['/things/{id}']!.get!.responses['200'].description).toBe('OK');
    expect(paths['/things/{id}']!.put!.responses['204'].description).toBe('No Content');
    expect(JSON.stringify(source)).toContain('Default Response');
  });

  it('describes the conditional headers and repeated error bodies once, referenced from each operation', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the test reads a JSON document
    const components = prepared.components as Record<string, Record<string, any>>;
    expect(Object.keys(components.parameters!)).toEqual(
      expect.arrayContaining([
        'IfNoneMatch',
        'IfMatch',
        'IfModifiedSince',
        'IfUnmodifiedSince',
        'Page',
        'PageSize',
      ]),
    );
    expect(components.parameters!.IfMatch.description).toContain('412');
    for (const method of ['get', 'put']) {
      const refs = paths['/things/{id}']![method]!.parameters.filter((p: { $ref?: string }) => p.$ref);
      expect(refs).toHaveLength(4);
    }
    const bad = paths['/things/{id}']!.get!.responses['400'];
    expect(bad.$ref).toMatch(/^#\/components\/responses\//);
    expect(paths['/things']!.get!.responses['400']).toEqual(bad);
    expect(components.responses![bad.$ref.split('/').pop()]).toEqual(errorBody);
    // Said once only: a response that appears once stays where it is.
    expect(paths['/things/{id}']!.put!.responses['412']).toEqual({ description: 'Changed' });
  });

  it('explains keys, conditional requests, paging and errors at the top, with the error codes', () => {
    const description = (prepared.info as { description: string }).description;
    for (const heading of ['### Keys', '### Conditional requests', '### Paging', '### Error bodies']) {
      expect(description).toContain(heading);
    }
    expect(description).toContain('| 401 | `missing-key` | No key \\| none |');
  });

  it('groups untagged operations by their first path segment and keeps given tags', () => {
    expect(paths['/things/{id}']!.get!.tags).toEqual(['things']);
    expect(paths['/things/{id}']!.put!.tags).toEqual(['Changes']);
    expect(operationsOf(prepared).map((o) => `${o.method} ${o.path}`)).toEqual([
      'get /things/{id}',
      'put /things/{id}',
      'get /things',
    ]);
  });

  it('makes links relative to the API absolute under its server, and lists the SOAP endpoints with their WSDLs', () => {
    const withSoap = structuredClone(source) as typeof source & { paths: Record<string, unknown> };
    withSoap.paths['/search'] = {
      post: {
        externalDocs: { description: 'The WSDL', url: 'search?wsdl' },
        responses: {
          200: {
            description: 'OK',
            content: { 'text/xml': { schema: { type: 'string', externalDocs: { url: 'schemas/a.xsd' } } } },
          },
        },
      },
    };
    withSoap.paths['/absolute'] = { get: { externalDocs: { url: 'https://example.org/x' }, responses: {} } };
    // biome-ignore lint/suspicious/noExplicitAny: the test reads a JSON document
    const done = referenceDocument(withSoap) as any;
    expect(done.paths['/search'].post.externalDocs.url).toBe('/sandbox/things/v1/search?wsdl');
    expect(done.paths['/search'].post.responses[200].content['text/xml'].schema.externalDocs.url).toBe(
      '/sandbox/things/v1/schemas/a.xsd',
    );
    expect(done.paths['/absolute'].get.externalDocs.url).toBe('https://example.org/x');
    expect(done.info.description).toContain('## SOAP endpoints');
    expect(done.info.description).toContain('- `POST /search`: [WSDL](/sandbox/things/v1/search?wsdl)');
    expect((referenceDocument(source) as { info: { description: string } }).info.description).not.toContain(
      'SOAP',
    );
  });

  it('answers undefined for what is not a document', () => {
    for (const value of [undefined, null, 'x', [], { paths: 3 }])
      expect(referenceDocument(value)).toBeUndefined();
  });
});
