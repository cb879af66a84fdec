import { Ajv, type ValidateFunction } from 'ajv';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { NzbnTest } from './api.ts';

/**
 * Checks answers against the service's own OpenAPI document (GET …/openapi.json): the status must be
 * documented for the operation and a JSON body must validate against its schema, whose objects are
 * closed, so a field name that is not the published one fails.
 */
type Document = { paths: Record<string, Record<string, { responses: Record<string, Response> }>> };
type Response = { content?: Record<string, { schema: object }> };

export class OpenApi {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private constructor(private readonly document: Document) {}

  static async load(t: NzbnTest): Promise<OpenApi> {
    const response = await t.call('GET', '/sandbox/nzbn/v5/openapi.json', { key: null });
    expect(response.statusCode).toBe(200);
    return new OpenApi(response.json());
  }

  /** The documented path a concrete one matches (a static segment beats a parameter). */
  template(concrete: string): string | undefined {
    const candidates = Object.keys(this.document.paths).filter((path) =>
      new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concrete),
    );
    return candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
  }

  /**
   * Checks any answer of the service to `url` (under the service's base). Gateway refusals (API
   * Management's `{statusCode, message}`) and 5xx are not the operation's own answers and are skipped.
   */
  conformsUrl(method: string, url: string, response: LightMyRequestResponse): void {
    const path = url.split('?')[0]!.replace(/^\/(sandbox|gateway)\/nzbn\/v5/, '');
    if (response.statusCode >= 500 || path === '/openapi.json') return;
    if (/^\{"statusCode":\d+,"message"/.test(response.body)) return;
    const template = this.template(path);
    expect(template, `${method} ${path} is documented`).toBeDefined();
    this.conforms(method, template!, response);
  }

  /** `path` as the document writes it, e.g. `/entities/{nzbn}/addresses`. */
  conforms(method: string, path: string, response: LightMyRequestResponse): void {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const documented = operation!.responses[String(response.statusCode)];
    expect(documented, `${method} ${path} documents ${response.statusCode}`).toBeDefined();
    const schema = documented!.content?.['application/json']?.schema;
    if (!schema || response.body === '') return;
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
