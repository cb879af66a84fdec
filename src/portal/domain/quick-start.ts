import { ORGANISATION_HEADER } from './organisation-header.ts';

/**
 * The landing page's quick starts: a call each register's sandbox answers with its own document's
 * examples (`sampleCall`), written as one line of curl and one of TypeScript (`quickStartLines`).
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function exampleOf(parameter: Json): string | undefined {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  const candidates = [
    parameter.example,
    Array.isArray(schema.examples) ? schema.examples[0] : undefined,
    schema.example,
    schema.default,
  ];
  const found = candidates.find((value) => typeof value === 'string' || typeof value === 'number');
  return found === undefined ? undefined : String(found);
}

/** The first GET that can be called with the document's own examples; one with a path example first. */
export function sampleCall(document: unknown): string | undefined {
  if (!isObject(document) || !isObject(document.paths)) return undefined;
  const calls: { path: string; rank: number }[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    const operation = isObject(item) ? item.get : undefined;
    if (!isObject(operation)) continue;
    const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isObject);
    let path = route;
    const query = new URLSearchParams();
    let usable = true;
    let examples = 0;
    for (const parameter of parameters) {
      const name = typeof parameter.name === 'string' ? parameter.name : '';
      const example = exampleOf(parameter);
      if (parameter.in === 'path') {
        if (example === undefined) usable = false;
        else {
          path = path.replace(`{${name}}`, encodeURIComponent(example));
          examples++;
        }
      } else if (parameter.in === 'query' && parameter.required === true) {
        if (example === undefined) usable = false;
        else query.set(name, example);
      } else if (parameter.required === true && parameter.in === 'header') usable = false;
    }
    if (!usable || /[{}]/.test(path)) continue;
    calls.push({ path: query.size ? `${path}?${query}` : path, rank: examples > 0 ? 0 : 1 });
  }
  calls.sort((a, b) => a.rank - b.rank);
  return calls[0]?.path;
}

/**
 * One-line calls in curl and TypeScript. `organisation`: for a register that needs `x-organisation`, the
 * value to send (the user's own identifier, or `null` for the `RSG_ORGANISATION` variable).
 */
export function quickStartLines(
  url: string,
  organisation?: string | null,
): { curl: string; typescript: string } {
  const header = organisation === undefined ? undefined : (organisation ?? '$RSG_ORGANISATION');
  const curl = `curl -H "Ocp-Apim-Subscription-Key: $RSG_KEY"${header ? ` -H "${ORGANISATION_HEADER}: ${header}"` : ''} "${url}"`;
  const tsHeader =
    organisation === undefined
      ? ''
      : `, '${ORGANISATION_HEADER}': ${organisation ? `'${organisation}'` : 'process.env.RSG_ORGANISATION!'}`;
  const typescript = `const answer = await fetch('${url}', { headers: { 'Ocp-Apim-Subscription-Key': process.env.RSG_KEY!${tsHeader} } }); console.log(answer.status, await answer.json());`;
  return { curl, typescript };
}
