import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ENVIRONMENT_PREFIX, type Environment, type ServiceId } from '../../src/services/contract.ts';
import { SERVICES } from '../../src/services/registry.ts';

/**
 * A service's OpenAPI document as the running gateway serves it (`<base>/openapi.json`, public): its
 * operations, for the harnesses that walk every one of them (security-matrix.ts, fuzz-operations.ts),
 * and a check that an answer conforms to it.
 */
export type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  examples?: unknown[];
  description?: string;
};
export type Parameter = {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
  description?: string;
};
export interface Operation {
  /** `METHOD /path`, as the document writes the path: `GET /entities/{nzbn}`. */
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: Schema;
  /** The fields of a body of another kind (a multipart upload's parts), when the operation takes one. */
  formFields?: string[];
}

type Response = { content?: Record<string, { schema: object }> };
type Document = {
  paths: Record<string, Record<string, { responses: Record<string, Response> } & Record<string, unknown>>>;
};

export const serviceOf = (id: ServiceId) => SERVICES.find((service) => service.id === id)!;

/** Where a service is mounted in an environment: `/sandbox/nzbn/v5`. */
export const serviceBase = (id: ServiceId, environment: Environment = 'sandbox'): string =>
  `${ENVIRONMENT_PREFIX[environment]}${serviceOf(id).path}`;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The parts a `multipart/form-data` body's schema names. */
function formFieldsOf(requestBody: unknown): { formFields?: string[] } {
  const content = (requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
  const schema = content?.['multipart/form-data']?.schema;
  return schema ? { formFields: Object.keys(schema.properties ?? {}) } : {};
}

export class OpenApi {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private constructor(
    readonly document: Document,
    private readonly base: string,
  ) {}

  /** The document `app` serves for the service at `base` (no key needed). */
  static async fetch(app: FastifyInstance, base: string): Promise<OpenApi> {
    const response = await app.inject({ method: 'GET', url: `${base}/openapi.json` });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    return new OpenApi(response.json(), base);
  }

  /** Every operation of the document. */
  operations(): Operation[] {
    return Object.entries(this.document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          id: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          parameters: (operation.parameters ?? []) as Parameter[],
          ...((operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
            ?.content?.['application/json']?.schema
            ? {
                body: (operation.requestBody as { content: Record<string, { schema: Schema }> }).content[
                  'application/json'
                ]!.schema,
              }
            : {}),
          ...formFieldsOf(operation.requestBody),
        })),
    );
  }

  /** Whether the document lists `status` among the answers of `id` (`METHOD /path`). */
  documents(id: string, status: number): boolean {
    const [method, path] = id.split(' ') as [string, string];
    return String(status) in (this.document.paths[path]?.[method.toLowerCase()]?.responses ?? {});
  }

  /** The documented path a concrete one matches (a static segment beats a parameter). */
  template(concrete: string): string | undefined {
    const candidates = Object.keys(this.document.paths).filter((path) =>
      new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concrete),
    );
    return candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
  }

  /**
   * Checks any answer of the service to `url` (in either environment). Gateway refusals (API
   * Management's `{statusCode, message}`) and 5xx are not the operation's own answers and are skipped.
   */
  conformsUrl(method: string, url: string, response: LightMyRequestResponse): void {
    const servicePath = this.base.replace(/^\/[^/]+/, '');
    const path = url.split('?')[0]!.replace(new RegExp(`^/(sandbox|gateway)${servicePath}`), '');
    if (response.statusCode >= 500 || path === '/openapi.json') return;
    if (/^\{"statusCode":\d+,"message"/.test(response.body)) return;
    const template = this.template(path);
    expect(template, `${method} ${path} is documented`).toBeDefined();
    this.conforms(method, template!, response);
  }

  /** The status is documented for the operation and a JSON body validates against its schema. */
  conforms(method: string, path: string, response: LightMyRequestResponse): void {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const documented = operation!.responses[String(response.statusCode)];
    expect(documented, `${method} ${path} documents ${response.statusCode}`).toBeDefined();
    // The media type answered is one the document lists; a JSON body validates against its schema.
    const type = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (documented!.content && response.body !== '') {
      expect(
        Object.keys(documented!.content),
        `${method} ${path} ${response.statusCode} lists ${type}`,
      ).toContain(type);
    }
    const schema = documented!.content?.[type]?.schema;
    if (!schema || response.body === '' || !type.endsWith('json')) return;
    const key = `${method} ${path} ${response.statusCode}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    const valid = validate(response.json());
    expect(valid, `${key}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
  }
}
