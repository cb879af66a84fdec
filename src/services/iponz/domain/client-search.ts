/**
 * The client search of `GET /clients`: the query checked, the reference matcher, and the SQL LIKE
 * pattern the store runs with `ILIKE <pattern> ESCAPE '\'`.
 *
 * Published (the spec's rules of GET /clients, kept exactly):
 * 1. The search is case-insensitive.
 * 2. `name` is required and has at least two characters.
 * 3. `%` in `name` and `address` stands for zero or more characters, including punctuation and spaces.
 * 4. Results are the clients whose name contains the name term.
 * 5. `address` is optional and narrows the results; it is matched against the three address lines and the
 *    city, for every address type (physical, postal, service).
 *
 * Ours (not published):
 * - Every other character stands for itself: `_` and `\` are literal (escaped in the SQL pattern), and
 *   non-alphanumerics are not ignored (the older party lookup ignored them; rule 3 says how to skip them).
 * - Surrounding spaces of a term are trimmed (they come from forms); a run of `%` is one `%`.
 * - "At least two characters" counts the characters of the trimmed term other than `%`: a wildcard is not
 *   a character of the name, and `%%` or `a%` would otherwise ask for every client.
 * - An empty `address` (`address=`) is no address; one of only spaces and `%` is refused.
 * - Terms are at most 200 characters once trimmed.
 * - Case is folded with `toLowerCase()` on both sides (`fold`); the store keeps the name and each
 *   address's joined text folded the same way and folds the pattern, so its LIKE answers as this matcher.
 * - An address matches when its lines and city, the non-empty ones joined with ", " in the order line 1,
 *   line 2, line 3, city, contain the term: a term within one field matches, and so does one that runs
 *   from a line to the city ("Queen St%Auckland"). The store keeps the same joined text per address.
 */
import { RuleError } from '../../../platform/errors.ts';

export const MIN_NAME_CHARACTERS = 2;
export const MAX_TERM_LENGTH = 200;
export const ADDRESS_TYPES = ['physical', 'postal', 'service'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

export interface ClientAddress {
  line1?: string | null;
  line2?: string | null;
  line3?: string | null;
  city?: string | null;
  /** Optional; not matched by the address term. */
  postcode?: string | null;
  /** ISO 3166-1 alpha-2; NZ when not given. Not matched by the address term. */
  countryCode?: string;
}

export interface SearchableClient {
  name: string;
  /** The client's addresses by type; a type may be missing. */
  addresses: Partial<Record<AddressType, ClientAddress | null>>;
}

export interface ClientQuery {
  /** The name term: trimmed, runs of `%` made one. */
  name: string;
  /** The address term, or null for none. */
  address: string | null;
}

/** A term as searched: trimmed, each run of `%` one `%`. */
export const normaliseTerm = (term: string): string => term.trim().replace(/%+/g, '%');

/** The characters of a term that are not wildcards. */
const literalLength = (term: string): number => Array.from(term.replace(/%/g, '')).length;

/** The query parameters checked: RuleError naming `name` or `address` and the rule broken. */
export function parseClientQuery(params: { name?: unknown; address?: unknown }): ClientQuery {
  const { name, address } = params;
  if (name === undefined || name === null) throw new RuleError('name', 'is required');
  if (typeof name !== 'string') throw new RuleError('name', 'must be a single text value');
  const nameTerm = normaliseTerm(name);
  if (Array.from(nameTerm).length > MAX_TERM_LENGTH)
    throw new RuleError('name', `must be at most ${MAX_TERM_LENGTH} characters`);
  if (nameTerm === '') throw new RuleError('name', 'is required');
  if (literalLength(nameTerm) < MIN_NAME_CHARACTERS)
    throw new RuleError('name', `must have at least ${MIN_NAME_CHARACTERS} characters besides %`);
  let addressTerm: string | null = null;
  if (address !== undefined && address !== null && address !== '') {
    if (typeof address !== 'string') throw new RuleError('address', 'must be a single text value');
    addressTerm = normaliseTerm(address);
    if (Array.from(addressTerm).length > MAX_TERM_LENGTH)
      throw new RuleError('address', `must be at most ${MAX_TERM_LENGTH} characters`);
    if (addressTerm.replace(/[%\s]/g, '') === '')
      throw new RuleError('address', 'must have a character besides % and spaces');
  }
  return { name: nameTerm, address: addressTerm };
}

/** Case folding, the same on both sides: the matcher's, and the store's for its folded columns and patterns. */
export const fold = (text: string): string => text.toLowerCase();

/** Whether `text` contains `term`, `%` in the term matching any run of characters, case folded. */
export function containsTerm(text: string, term: string): boolean {
  const haystack = fold(text);
  let from = 0;
  for (const piece of fold(term).split('%')) {
    if (piece === '') continue;
    const at = haystack.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

/** The text an address is matched against: its non-empty lines and city joined with ", ". */
export function addressText(address: ClientAddress): string {
  return [address.line1, address.line2, address.line3, address.city]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(', ');
}

/** The reference semantics of the search: does this client answer this query? */
export function matchesClient(query: ClientQuery, client: SearchableClient): boolean {
  if (!containsTerm(client.name, query.name)) return false;
  if (query.address === null) return true;
  const term = query.address;
  return ADDRESS_TYPES.some((type) => {
    const address = client.addresses[type];
    return address ? containsTerm(addressText(address), term) : false;
  });
}

/** The escape character of the patterns: use `ILIKE $1 ESCAPE '\'`. */
export const LIKE_ESCAPE = '\\';

/**
 * The SQL LIKE pattern of a "contains" term: `%` stays a wildcard, `_` and `\` are escaped with `\`, and
 * the pattern is wrapped in `%` at both ends. Run it with ILIKE and `ESCAPE '\'`.
 */
export function likePattern(term: string): string {
  let pattern = '%';
  for (const char of term) {
    // `%` is never escaped here, so every `%` in the pattern is a wildcard: runs collapse to one.
    if (char === '%') {
      if (!pattern.endsWith('%')) pattern += '%';
    } else if (char === '_' || char === '\\') pattern += `\\${char}`;
    else pattern += char;
  }
  if (!pattern.endsWith('%')) pattern += '%';
  return pattern;
}
