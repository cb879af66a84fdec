import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  ADDRESS_TYPES,
  type AddressType,
  addressText,
  type ClientAddress,
  type ClientQuery,
  containsTerm,
  likePattern,
  matchesClient,
  parseClientQuery,
  type SearchableClient,
} from '../../../src/services/iponz/domain/client-search.ts';
import { broken } from '../../support/rules.ts';

/**
 * SQL LIKE, written from its definition (`%` any run, `_` any one character, `\` escapes the next), on
 * code points: the simulation the store's pattern is checked against. ILIKE is LIKE on folded case.
 */
function like(text: string, pattern: string): boolean {
  const t = Array.from(text);
  type Token = { kind: 'any' } | { kind: 'one' } | { kind: 'char'; char: string };
  const tokens: Token[] = [];
  const p = Array.from(pattern);
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') {
      if (i + 1 >= p.length) throw new Error('LIKE pattern must not end with the escape character');
      tokens.push({ kind: 'char', char: p[++i]! });
    } else if (p[i] === '%') tokens.push({ kind: 'any' });
    else if (p[i] === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', char: p[i]! });
  }
  // matches[j]: the first i characters of the text match the first j tokens (dynamic programming).
  let row = tokens.map(() => false);
  let prev = [true, ...row];
  for (let j = 0; j < tokens.length; j++) prev[j + 1] = prev[j]! && tokens[j]!.kind === 'any';
  for (let i = 0; i < t.length; i++) {
    row = [false];
    for (let j = 0; j < tokens.length; j++) {
      const token = tokens[j]!;
      if (token.kind === 'any') row.push(row[j]! || prev[j + 1]!);
      else if (token.kind === 'one') row.push(prev[j]!);
      else row.push(prev[j]! && token.char === t[i]);
    }
    prev = row;
  }
  return prev[tokens.length]!;
}
const ilike = (text: string, pattern: string) => like(text.toLowerCase(), pattern.toLowerCase());

/** What the store's SQL does: the name ILIKE its pattern, and some address's joined text ILIKE the other. */
function sqlMatches(query: ClientQuery, client: SearchableClient): boolean {
  if (!ilike(client.name, likePattern(query.name))) return false;
  if (query.address === null) return true;
  return ADDRESS_TYPES.some((type) => {
    const address = client.addresses[type];
    return address ? ilike(addressText(address), likePattern(query.address!)) : false;
  });
}

const client = (name: string, addresses: SearchableClient['addresses'] = {}): SearchableClient => ({
  name,
  addresses,
});
const find = (params: { name?: unknown; address?: unknown }, candidate: SearchableClient) =>
  matchesClient(parseClientQuery(params), candidate);

describe('rule 1: the search is case insensitive', () => {
  it('folds case in the name and the address, both ways', () => {
    expect(find({ name: 'acme' }, client('ACME Holdings Limited'))).toBe(true);
    expect(find({ name: 'ACME' }, client('acme holdings limited'))).toBe(true);
    expect(find({ name: 'ÉCOLE' }, client('Société École Limited'))).toBe(true);
    expect(
      find(
        { name: 'acme', address: 'QUEEN STREET' },
        client('Acme', { postal: { line1: '1 queen street' } }),
      ),
    ).toBe(true);
  });
});

describe('rule 2: name is required and has at least two characters', () => {
  it('refuses a missing, empty or blank name', () => {
    for (const name of [undefined, null, '', '   '])
      expect(broken(() => parseClientQuery({ name }))).toEqual({ field: 'name', rule: 'is required' });
  });

  it('refuses one character, counted without % and surrounding spaces', () => {
    for (const name of ['a', ' a ', 'a%', '%a%', '%%', '%', 'é'])
      expect(broken(() => parseClientQuery({ name }))).toEqual({
        field: 'name',
        rule: 'must have at least 2 characters besides %',
      });
  });

  it('takes two characters, wildcards or not, and finds with them', () => {
    expect(parseClientQuery({ name: 'ab' })).toEqual({ name: 'ab', address: null });
    expect(parseClientQuery({ name: '%a%b%' })).toEqual({ name: '%a%b%', address: null });
    expect(parseClientQuery({ name: "O'" }).name).toBe("O'");
    expect(find({ name: 'NZ' }, client('Fonterra NZ Limited'))).toBe(true);
    expect(find({ name: 'nz' }, client('Fonterra Limited'))).toBe(false);
  });

  it('refuses a name that is not one text value, or too long', () => {
    expect(broken(() => parseClientQuery({ name: ['ab', 'cd'] }))).toEqual({
      field: 'name',
      rule: 'must be a single text value',
    });
    expect(broken(() => parseClientQuery({ name: 'a'.repeat(201) })).rule).toBe(
      'must be at most 200 characters',
    );
    expect(parseClientQuery({ name: 'a'.repeat(200) }).name).toHaveLength(200);
    expect(parseClientQuery({ name: ` ${'a'.repeat(200)} ` }).name).toHaveLength(200);
  });
});

describe('rule 3: % stands for zero or more characters, punctuation and spaces included', () => {
  it('matches zero characters', () => {
    expect(find({ name: 'ac%me' }, client('Acme'))).toBe(true);
  });

  it('matches punctuation and spaces', () => {
    expect(find({ name: 'o%brien' }, client("O'Brien Patents"))).toBe(true);
    expect(find({ name: 'o%brien' }, client('O Brien'))).toBe(true);
    expect(find({ name: 'smith%ltd' }, client('Smith & Co. (NZ) Ltd'))).toBe(true);
    expect(find({ name: 'smith%ltd' }, client('Ltd Smith'))).toBe(false);
  });

  it('at either end, or both, it changes nothing to a "contains" search', () => {
    for (const name of ['acme', '%acme', 'acme%', '%acme%', '%%acme%%'])
      for (const [candidate, expected] of [
        ['Acme', true],
        ['The Acme Company', true],
        ['Acmé', false],
        ['Ac me', false],
      ] as const)
        expect(find({ name }, client(candidate))).toBe(expected);
  });

  it('works in the address too', () => {
    const c = client('Acme', { physical: { line1: 'Level 2, 10 Queen Street', city: 'Auckland' } });
    expect(find({ name: 'acme', address: 'level%queen' }, c)).toBe(true);
    expect(find({ name: 'acme', address: 'queen%level' }, c)).toBe(false);
  });

  it('every other character is literal: _ and \\ too', () => {
    expect(find({ name: 'a_b' }, client('xa_bx'))).toBe(true);
    expect(find({ name: 'a_b' }, client('axb'))).toBe(false);
    expect(find({ name: 'a\\b' }, client('a\\b'))).toBe(true);
    expect(find({ name: 'a\\b' }, client('ab'))).toBe(false);
    expect(find({ name: 'a.b' }, client('axb'))).toBe(false);
  });
});

describe('rule 4: results are clients whose name contains the term', () => {
  it('matches anywhere in the name, not only at the start', () => {
    expect(find({ name: 'holdings' }, client('Acme Holdings Limited'))).toBe(true);
    expect(find({ name: 'cme hold' }, client('Acme Holdings Limited'))).toBe(true);
    expect(find({ name: 'acme ltd' }, client('Acme Holdings Limited'))).toBe(false);
  });
});

describe('rule 5: address narrows, over the three lines and the city of every address type', () => {
  const fields = ['line1', 'line2', 'line3', 'city'] as const;

  it('finds the term in each line and the city of each type, and nowhere else', () => {
    for (const type of ADDRESS_TYPES)
      for (const field of fields) {
        const addresses: Partial<Record<AddressType, ClientAddress>> = {
          [type]: { line1: 'PO Box 1', [field]: 'Unique Lane 7' },
        };
        for (const other of ADDRESS_TYPES) if (other !== type) addresses[other] = { line1: 'Elsewhere Road' };
        const c = client('Acme Limited', addresses);
        expect(find({ name: 'acme', address: 'unique lane' }, c), `${type}.${field}`).toBe(true);
        expect(find({ name: 'acme', address: 'unique road' }, c), `${type}.${field}`).toBe(false);
      }
  });

  it('narrows: the name must still match, and an address term with no address fails', () => {
    const c = client('Acme Limited', { service: { line1: '1 Queen Street', city: 'Auckland' } });
    expect(find({ name: 'acme' }, c)).toBe(true);
    expect(find({ name: 'acme', address: 'auckland' }, c)).toBe(true);
    expect(find({ name: 'acme', address: 'wellington' }, c)).toBe(false);
    expect(find({ name: 'zenith', address: 'auckland' }, c)).toBe(false);
    expect(find({ name: 'acme', address: 'auckland' }, client('Acme Limited'))).toBe(false);
    expect(find({ name: 'acme', address: 'auckland' }, client('Acme', { postal: null }))).toBe(false);
  });

  it('matches from a line into the city, across empty lines, within one address only', () => {
    const c = client('Acme', {
      physical: { line1: '1 Queen Street', line2: '', line3: null, city: 'Auckland' },
      postal: { line1: 'PO Box 9', city: 'Wellington' },
    });
    expect(addressText(c.addresses.physical!)).toBe('1 Queen Street, Auckland');
    expect(find({ name: 'acme', address: 'queen street, auckland' }, c)).toBe(true);
    expect(find({ name: 'acme', address: 'street%auckland' }, c)).toBe(true);
    expect(find({ name: 'acme', address: 'queen%wellington' }, c)).toBe(false);
  });

  it('takes an empty address as none and refuses one of only spaces and %', () => {
    expect(parseClientQuery({ name: 'acme', address: '' }).address).toBeNull();
    expect(parseClientQuery({ name: 'acme', address: ' Queen  ' }).address).toBe('Queen');
    for (const address of [' ', '%', ' % % '])
      expect(broken(() => parseClientQuery({ name: 'acme', address }))).toEqual({
        field: 'address',
        rule: 'must have a character besides % and spaces',
      });
    expect(broken(() => parseClientQuery({ name: 'acme', address: 7 })).field).toBe('address');
    expect(broken(() => parseClientQuery({ name: 'acme', address: 'x'.repeat(201) })).field).toBe('address');
  });
});

describe('the SQL LIKE pattern', () => {
  it('wraps in %, keeps % as the wildcard, escapes _ and \\', () => {
    expect(likePattern('ab')).toBe('%ab%');
    expect(likePattern('%ab%')).toBe('%ab%');
    expect(likePattern('a%%b')).toBe('%a%b%');
    expect(likePattern('a_b')).toBe('%a\\_b%');
    expect(likePattern('a\\b')).toBe('%a\\\\b%');
    expect(likePattern('a\\')).toBe('%a\\\\%');
    expect(likePattern('\\%')).toBe('%\\\\%');
    expect(likePattern("O'Brien & Co.")).toBe("%O'Brien & Co.%");
  });

  it('the simulation is LIKE (a few known answers)', () => {
    expect(like('abc', '%b%')).toBe(true);
    expect(like('abc', 'a_c')).toBe(true);
    expect(like('abc', 'a\\_c')).toBe(false);
    expect(like('a_c', 'a\\_c')).toBe(true);
    expect(like('', '%')).toBe(true);
    expect(like('ab', 'a')).toBe(false);
  });

  const alphabet = fc.constantFrom('a', 'b', 'A', 'B', ' ', '.', "'", '%', '_', '\\', 'é', 'É');
  const text = fc.string({ unit: alphabet, maxLength: 12 });

  it('agrees with the matcher on every term and text (property)', () => {
    fc.assert(
      fc.property(text, text, (term, subject) => {
        expect(ilike(subject, likePattern(term))).toBe(containsTerm(subject, term));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with matchesClient for whole queries and clients (property)', () => {
    const line = fc.option(text, { nil: undefined });
    const address = fc.option(fc.record({ line1: line, line2: line, line3: line, city: line }), {
      nil: undefined,
    });
    const clientArb = fc.record({
      name: text,
      addresses: fc.record({ physical: address, postal: address, service: address }),
    });
    fc.assert(
      fc.property(text, fc.option(text, { nil: undefined }), clientArb, (name, addressTerm, c) => {
        let query: ClientQuery;
        try {
          query = parseClientQuery({ name, address: addressTerm });
        } catch (error) {
          if (error instanceof RuleError) return;
          throw error;
        }
        const candidate = c as SearchableClient;
        expect(sqlMatches(query, candidate)).toBe(matchesClient(query, candidate));
      }),
      { numRuns: 3000 },
    );
  });
});
