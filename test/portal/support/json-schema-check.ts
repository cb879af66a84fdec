/**
 * A small JSON Schema checker for the OpenAPI documents' response schemas (the keywords TypeBox and
 * the services' documents use). An unknown keyword is an error, so a schema it cannot read never passes
 * by being skipped. Returns the problems found, empty when the value fits.
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'example',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$id',
  '$schema',
  'externalDocs',
  'format',
  'discriminator',
  'xml',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function checkSchema(schema: unknown, value: unknown, document: Json, at = '$'): string[] {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return [];
  if (schema === false) return [`${at}: nothing is allowed here`];
  if (!isObject(schema)) return [`${at}: not a schema`];
  const problems: string[] = [];
  const check = (sub: unknown, item: unknown, where: string) => checkSchema(sub, item, document, where);
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue;
    switch (keyword) {
      case '$ref': {
        const target = String(rule)
          .replace(/^#\//, '')
          .split('/')
          .reduce<unknown>(
            (node, part) => (isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
            document,
          );
        if (target === undefined) problems.push(`${at}: $ref ${String(rule)} does not resolve`);
        else problems.push(...check(target, value, at));
        break;
      }
      case 'type': {
        const types = Array.isArray(rule) ? rule : [rule];
        const actual = typeOf(value);
        const fits = types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
        const nullable = schema.nullable === true && value === null;
        if (!fits && !nullable) problems.push(`${at}: is ${actual}, not ${types.join(' or ')}`);
        break;
      }
      case 'nullable':
        break;
      case 'enum':
        if (!(rule as unknown[]).some((item) => JSON.stringify(item) === JSON.stringify(value)))
          problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(rule)}`);
        break;
      case 'const':
        if (JSON.stringify(rule) !== JSON.stringify(value))
          problems.push(`${at}: is not ${JSON.stringify(rule)}`);
        break;
      case 'properties':
        if (isObject(value)) {
          for (const [name, sub] of Object.entries(rule as Json)) {
            if (name in value) problems.push(...check(sub, value[name], `${at}.${name}`));
          }
        }
        break;
      case 'required':
        if (isObject(value)) {
          for (const name of rule as string[])
            if (!(name in value)) problems.push(`${at}.${name}: is required`);
        }
        break;
      case 'additionalProperties':
        if (isObject(value)) {
          const known = new Set(Object.keys(isObject(schema.properties) ? schema.properties : {}));
          const patterns = Object.keys(isObject(schema.patternProperties) ? schema.patternProperties : {});
          for (const [name, item] of Object.entries(value)) {
            if (known.has(name) || patterns.some((p) => new RegExp(p, 'u').test(name))) continue;
            if (rule === false) problems.push(`${at}.${name}: is not allowed`);
            else problems.push(...check(rule, item, `${at}.${name}`));
          }
        }
        break;
      case 'patternProperties':
        if (isObject(value)) {
          for (const [pattern, sub] of Object.entries(rule as Json)) {
            for (const [name, item] of Object.entries(value)) {
              if (new RegExp(pattern, 'u').test(name)) problems.push(...check(sub, item, `${at}.${name}`));
            }
          }
        }
        break;
      case 'items':
        if (Array.isArray(value)) {
          for (const [i, item] of value.entries()) problems.push(...check(rule, item, `${at}[${i}]`));
        }
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < Number(rule))
          problems.push(`${at}: fewer than ${rule} items`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > Number(rule))
          problems.push(`${at}: more than ${rule} items`);
        break;
      case 'minProperties':
      case 'maxProperties':
        break;
      case 'anyOf':
        if (!(rule as unknown[]).some((sub) => check(sub, value, at).length === 0))
          problems.push(`${at}: fits none of anyOf`);
        break;
      case 'oneOf': {
        const fitting = (rule as unknown[]).filter((sub) => check(sub, value, at).length === 0).length;
        if (fitting !== 1) problems.push(`${at}: fits ${fitting} of oneOf, not exactly one`);
        break;
      }
      case 'allOf':
        for (const sub of rule as unknown[]) problems.push(...check(sub, value, at));
        break;
      case 'not':
        if (check(rule, value, at).length === 0) problems.push(`${at}: fits what "not" forbids`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(String(rule), 'u').test(value))
          problems.push(`${at}: ${JSON.stringify(value)} does not match ${rule}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < Number(rule))
          problems.push(`${at}: shorter than ${rule}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > Number(rule))
          problems.push(`${at}: longer than ${rule}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < Number(rule)) problems.push(`${at}: below ${rule}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > Number(rule)) problems.push(`${at}: above ${rule}`);
        break;
      case 'exclusiveMinimum':
        if (typeof value === 'number' && typeof rule === 'number' && value <= rule)
          problems.push(`${at}: not above ${rule}`);
        break;
      case 'exclusiveMaximum':
        if (typeof value === 'number' && typeof rule === 'number' && value >= rule)
          problems.push(`${at}: not below ${rule}`);
        break;
      case 'multipleOf':
        if (
          typeof value === 'number' &&
          Math.abs(value / Number(rule) - Math.round(value / Number(rule))) > 1e-9
        )
          problems.push(`${at}: not a multiple of ${rule}`);
        break;
      default:
        problems.push(`${at}: the checker does not know the keyword ${keyword}`);
    }
  }
  return problems;
}
