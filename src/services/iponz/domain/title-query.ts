/**
 * The trade mark search's `Title` query language (published: `*` and `?` wildcards, quoted phrases,
 * brackets, AND / OR / NOT, case-insensitive). Ours, where the register publishes no more:
 *
 * - A title is a sequence of **words**: maximal runs of letters and digits (Unicode `\p{L}\p{Nd}`) of the
 *   title case-folded with `toLowerCase()`; everything else separates words.
 * - A **term** matches a whole word: `*` stands for any run of letters and digits (none included), `?`
 *   for exactly one. `kiw*` matches "KIWI" and "Kiwifruit", not "Kiwi-fruit"'s "fruit".
 * - A **phrase** (`"kiwi fruit"`) matches consecutive words; wildcards work inside it. An unquoted term
 *   holding punctuation (`kiwi-fruit`) is the phrase of its words.
 * - **Operators** are the capitalised words `AND`, `OR`, `NOT` (in lower case they are words to find);
 *   precedence NOT > AND > OR; terms side by side are joined by AND; brackets group.
 * - A query breaks a rule when it is empty, a bracket or quote is unbalanced, an operator lacks an
 *   operand, or a term has no letter, digit or wildcard: `RuleError` on `Title`, answered by the search
 *   as `appErrorEncountered` with the message.
 *
 * `parseTitleQuery` gives the AST; `matchesTitle` is the reference matcher (pure, word by word) that the
 * SQL compiler in `store/trademark-search.ts` is checked against (property tests).
 */
import { RuleError } from '../../../platform/errors.ts';

export type TitleQuery =
  | { op: 'phrase'; words: readonly string[] }
  | { op: 'and' | 'or'; left: TitleQuery; right: TitleQuery }
  | { op: 'not'; operand: TitleQuery };

const FIELD = 'Title';
/** A word pattern's characters: letters, digits, the two wildcards. */
const PATTERN_CHARS = /[\p{L}\p{Nd}*?]+/gu;
const WORD_CHARS = /[\p{L}\p{Nd}]+/gu;

export const fold = (text: string): string => text.toLowerCase();

/** The words of a title, folded. */
export const titleWords = (title: string): string[] => fold(title).match(WORD_CHARS) ?? [];

type Token = { kind: 'word' | 'phrase'; text: string } | { kind: 'and' | 'or' | 'not' | 'open' | 'close' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/u.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close' });
      i++;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new RuleError(FIELD, 'has a quote that is not closed');
      tokens.push({ kind: 'phrase', text: text.slice(i + 1, end) });
      i = end + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s()"]/u.test(text[j]!)) j++;
      const word = text.slice(i, j);
      if (word === 'AND' || word === 'OR' || word === 'NOT')
        tokens.push({ kind: word.toLowerCase() as 'and' });
      else tokens.push({ kind: 'word', text: word });
      i = j;
    }
  }
  return tokens;
}

function phraseOf(text: string, quoted: boolean): TitleQuery {
  const words = fold(text).match(PATTERN_CHARS) ?? [];
  if (!words.length)
    throw new RuleError(
      FIELD,
      quoted ? `has an empty phrase "${text}"` : `has a term without a letter, digit or wildcard: ${text}`,
    );
  return { op: 'phrase', words };
}

/** The query's AST, or RuleError on `Title` naming the rule broken. */
export function parseTitleQuery(text: string): TitleQuery {
  const tokens = tokenize(text);
  if (!tokens.length) throw new RuleError(FIELD, 'is empty: give a word, a phrase or an expression');
  let at = 0;
  const peek = () => tokens[at];
  const describe = (token: Token | undefined) =>
    token === undefined
      ? 'the end'
      : token.kind === 'word' || token.kind === 'phrase'
        ? `"${token.text}"`
        : token.kind === 'open'
          ? '('
          : token.kind === 'close'
            ? ')'
            : token.kind.toUpperCase();

  const or = (): TitleQuery => {
    let left = and();
    while (peek()?.kind === 'or') {
      at++;
      left = { op: 'or', left, right: and() };
    }
    return left;
  };
  const startsOperand = (token: Token | undefined) =>
    token !== undefined &&
    (token.kind === 'word' || token.kind === 'phrase' || token.kind === 'open' || token.kind === 'not');
  const and = (): TitleQuery => {
    let left = not();
    for (;;) {
      const token = peek();
      if (token?.kind === 'and') {
        at++;
        left = { op: 'and', left, right: not() };
      } else if (startsOperand(token)) left = { op: 'and', left, right: not() };
      else return left;
    }
  };
  const not = (): TitleQuery => {
    if (peek()?.kind === 'not') {
      at++;
      return { op: 'not', operand: not() };
    }
    return primary();
  };
  const primary = (): TitleQuery => {
    const token = tokens[at++];
    if (token?.kind === 'open') {
      const inner = or();
      if (tokens[at]?.kind !== 'close')
        throw new RuleError(FIELD, `has a ( that is not closed (found ${describe(tokens[at])})`);
      at++;
      return inner;
    }
    if (token?.kind === 'word') return phraseOf(token.text, false);
    if (token?.kind === 'phrase') return phraseOf(token.text, true);
    throw new RuleError(FIELD, `expects a word, a phrase or ( before ${describe(token)}`);
  };
  const query = or();
  if (at < tokens.length) {
    const token = tokens[at]!;
    throw new RuleError(
      FIELD,
      token.kind === 'close' ? 'has a ) without its (' : `expects an operator before ${describe(token)}`,
    );
  }
  return query;
}

/** A word pattern as a regular expression over one word (JS). */
export function wordPatternRegExp(pattern: string): RegExp {
  const source = [...pattern]
    .map((c) =>
      c === '*'
        ? '[\\p{L}\\p{Nd}]*'
        : c === '?'
          ? '[\\p{L}\\p{Nd}]'
          : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`, 'u');
}

/** The reference matcher: does the title match the query? Word by word, no SQL. */
export function matchesTitle(query: TitleQuery, title: string): boolean {
  const words = titleWords(title);
  const test = (node: TitleQuery): boolean => {
    switch (node.op) {
      case 'and':
        return test(node.left) && test(node.right);
      case 'or':
        return test(node.left) || test(node.right);
      case 'not':
        return !test(node.operand);
      case 'phrase': {
        const patterns = node.words.map(wordPatternRegExp);
        for (let start = 0; start + patterns.length <= words.length; start++)
          if (patterns.every((pattern, k) => pattern.test(words[start + k]!))) return true;
        return false;
      }
    }
  };
  return test(query);
}
