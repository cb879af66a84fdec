import { RuleError } from '../../../platform/errors.ts';
import { withoutLeadingZeros } from './areas.ts';
import { ALL } from './factors.ts';
import { areaKey } from './rounding.ts';

export const MAPPINGS_PARAMETER = 'user-defined-area-mappings';

/** One area of a user-defined definition: a label and the SA2 2019 areas it aggregates. */
export interface UserDefinedArea {
  readonly label: string;
  /** SA2 2019 codes, ascending, without duplicates. */
  readonly sa2Codes: readonly string[];
  /** `areaKey(sa2Codes)`: rounding is keyed by the codes, never by the label. */
  readonly key: string;
}

interface RawMapping {
  label: string;
  codes: string[];
}

/**
 * Parses `Label(code, code, …), Label(…)`: mappings separated by commas at the top level, while commas
 * inside brackets separate codes; whitespace around labels and codes is ignored. A repeated query
 * parameter gives several strings, read as if joined by commas. Rules, each failure naming itself:
 * the label is non-empty, has no brackets and is not ALL (the label of aggregate rows), and no two
 * labels are the same ignoring case; each list is non-empty; every code is an SA2 2019 code; a code
 * belongs to at most one label (repeating it within one label is harmless and ignored).
 */
export function parseUserDefinedMappings(
  input: string | readonly string[],
  sa2Index: ReadonlyMap<string, number>,
): UserDefinedArea[] {
  const text = typeof input === 'string' ? input : input.join(',');
  const raw = splitMappings(text);
  if (raw.length === 0) fail('must hold at least one mapping of the form Label(code, code, …)');
  const ownerOfCode = new Map<string, string>();
  const labels = new Set<string>();
  return raw.map(({ label, codes }) => {
    const folded = label.toLowerCase();
    if (folded === ALL.toLowerCase()) fail(`the label "${label}" is reserved for aggregate rows`);
    if (labels.has(folded)) fail(`the label "${label}" is used twice`);
    labels.add(folded);
    const own = new Set<string>();
    for (const rawCode of codes) {
      const code = withoutLeadingZeros(rawCode);
      if (!/^\d+$/.test(code) || !sa2Index.has(code)) {
        fail(`"${rawCode}" in "${label}" is not a statistical area 2 (SAU2019) code`);
      }
      const owner = ownerOfCode.get(code);
      if (owner !== undefined && owner !== label)
        fail(`code ${code} appears in both "${owner}" and "${label}"`);
      ownerOfCode.set(code, label);
      own.add(code);
    }
    const sa2Codes = [...own].sort((a, b) => (sa2Index.get(a) as number) - (sa2Index.get(b) as number));
    return Object.freeze({ label, sa2Codes: Object.freeze(sa2Codes), key: areaKey(sa2Codes) });
  });
}

/** Splits the text into labels and code lists, checking the bracket structure. */
function splitMappings(text: string): RawMapping[] {
  const mappings: RawMapping[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  skipSpace();
  if (i === text.length) return mappings;
  for (;;) {
    const labelStart = i;
    while (i < text.length && !'(),'.includes(text[i] as string)) i++;
    const label = text.slice(labelStart, i).trim();
    const position = mappings.length + 1;
    if (text[i] === ')') fail(`mapping ${position}: ")" without "(" (a label may not hold brackets)`);
    if (text[i] !== '(') {
      if (label === '') fail(`mapping ${position} is empty (a stray comma?)`);
      fail(`mapping ${position} "${label}" has no bracketed list of codes`);
    }
    if (label === '') fail(`mapping ${position}: the label before "(" is empty`);
    i++; // past "("
    const listStart = i;
    while (i < text.length && text[i] !== ')') {
      if (text[i] === '(')
        fail(`mapping ${position} "${label}": "(" inside a code list (a label may not hold brackets)`);
      i++;
    }
    if (i === text.length) fail(`mapping ${position} "${label}": "(" is never closed`);
    const list = text.slice(listStart, i);
    i++; // past ")"
    const codes = list.split(',').map((c) => c.trim());
    if (codes.length === 1 && codes[0] === '')
      fail(`mapping ${position} "${label}" has an empty list of codes`);
    if (codes.includes('')) fail(`mapping ${position} "${label}" has an empty code (a stray comma?)`);
    mappings.push({ label, codes });
    skipSpace();
    if (i === text.length) return mappings;
    if (text[i] === '(') fail(`mapping ${position}: a label may not hold brackets ("(" follows ")")`);
    if (text[i] !== ',') {
      fail(`mapping ${position} "${label}": expected "," or the end after ")", found "${text[i]}"`);
    }
    i++; // past ","
    skipSpace();
    if (i === text.length) fail(`mapping ${position + 1} is empty (a trailing comma?)`);
  }
}

function fail(rule: string): never {
  throw RuleError.stated(MAPPINGS_PARAMETER, `${MAPPINGS_PARAMETER}: ${rule}`);
}
