/**
 * The search term rule of GET /entities. Names and terms are folded the same way (macrons and other
 * accents dropped, apostrophes removed, lower case, anything but letters and digits a word break), and
 * every word of the term must begin a word (a one-character word must be a word) of the entity's
 * searchable text: its name, its public
 * trading names, its previous names, its source register number (a company number, say) and its
 * business number. So "kowhai hold" finds "KOWHAI RIDGE HOLDINGS LIMITED", "Ōtāhuhu" finds "Otahuhu",
 * and "O'Brien" finds "OBRIEN". Pure: the store turns the words into SQL.
 */

const COMBINING_MARKS = /\p{M}/gu;
const APOSTROPHES = /['’‘`]/g;
const WORD_BREAKS = /[^a-z0-9]+/g;
const NOT_ASCII = /[^\x20-\x7e]/;

/** The folded form of a text: lower case ASCII letters, digits and single spaces. */
export function foldText(text: string): string {
  return (NOT_ASCII.test(text) ? text.normalize('NFD') : text)
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(WORD_BREAKS, ' ')
    .trim();
}

/** The words of a search term, in order, without repeats; empty when the term has no letter or digit. */
export function searchWords(term: string): string[] {
  const folded = foldText(term);
  return folded === '' ? [] : [...new Set(folded.split(' '))];
}

/** The longest search term we read (longer terms are refused, not truncated). */
export const MAX_SEARCH_TERM_LENGTH = 200;
/** At most this many words of a term are matched; more is refused. */
export const MAX_SEARCH_WORDS = 10;

/** The text an entity is found by (see the rule above). */
export function searchableText(parts: {
  entityName: string;
  tradingNames: readonly string[];
  previousNames: readonly string[];
  sourceRegisterUniqueIdentifier: string | null;
  nzbn: string;
}): string {
  return [
    parts.entityName,
    ...parts.tradingNames,
    ...parts.previousNames,
    parts.sourceRegisterUniqueIdentifier ?? '',
    parts.nzbn,
  ]
    .map(foldText)
    .filter((text) => text !== '')
    .join(' ');
}

/** The key entities are listed by: the folded name in capitals (compared byte by byte). */
export function sortName(entityName: string): string {
  return foldText(entityName).toUpperCase();
}
