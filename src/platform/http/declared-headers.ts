import type { TSchema } from '@sinclair/typebox';

/**
 * Request headers an operation declares in its `schema.headers`, keyed by the header's published
 * spelling (`Billing-Reference`, `NZRIS-org-nz-Request-Id`):
 *
 * - Fastify validates them lower-cased, as Node.js gives them; a handler reads them so too
 *   (`request.headers['billing-reference']`), not by the declared key.
 * - The OpenAPI document lists each as a header parameter, spelled as declared.
 * - A 400 names the header as declared, with the rule `declaredHeader` gives it: what a schema says of
 *   itself (`must match pattern "^[0-9]{8}$"`) is no rule a client can read.
 */

/** The rule of a declared header, kept on its schema (a symbol: validation and the document ignore it). */
const RULE = Symbol('declared header rule');

type Declared = TSchema & { [RULE]?: string };

/** A header's schema with the rule its 400 states (`must be 8 digits`), as its field's message. */
export function declaredHeader<T extends TSchema>(schema: T, rule: string): T {
  return { ...schema, [RULE]: rule };
}

/**
 * A header that failed validation (its lower-cased name) as the route declares it: the declared spelling
 * and, when declared with one, its rule. Undefined for a header the route's schema does not name.
 */
export function headerAsDeclared(
  headers: unknown,
  lowerCased: string,
): { name: string; rule: string | undefined } | undefined {
  const properties = (headers as { properties?: Record<string, Declared> } | undefined)?.properties;
  if (!properties) return undefined;
  for (const [name, schema] of Object.entries(properties)) {
    if (name.toLowerCase() === lowerCased) return { name, rule: schema?.[RULE] };
  }
  return undefined;
}
