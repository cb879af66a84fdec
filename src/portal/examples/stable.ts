/**
 * Recording twice gives the same bytes. The sandbox clock is frozen while recording (record-cli.ts),
 * so every time an answer shows repeats; what the sandbox draws at random in each run is renumbered
 * here, the same value to the same replacement wherever it appears (so a watchlist id in a later call's
 * path still names the watchlist its creation answered):
 * - UUIDs (request ids, watchlist and authority ids, users and organisations made by the seed) become
 *   `00000000-0000-4000-8000-00000000000n`, numbered in order of first appearance, and organisation
 *   identifiers made at random (`org-` and 12 hex digits) `org-00000000000n`;
 * - what the register draws for what the recorder made (`drawn`: a financing statement's number and
 *   PINs) becomes a value of the same shape, derived from its order;
 * - Standard Webhooks secrets (`whsec_…`) and signed download URLs' `signature` keep their length with
 *   a value derived from their order, not from the run's server secret.
 */
import { createHash } from 'node:crypto';

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** An organisation identifier made at random (`org-` and 12 hex digits: identity's own organisations). */
const ORGANISATION = /\borg-[0-9a-f]{12}\b/g;
const SECRET = /\bwhsec_[A-Za-z0-9+/=_-]+/g;
const SIGNATURE = /([?&]signature=)([A-Za-z0-9_-]+)/g;

const derived = (label: string, length: number) =>
  createHash('sha256').update(label).digest('base64url').padEnd(length, 'A').slice(0, length);

/**
 * A value of the same length and kind (digits if it is all digits, else capitals and digits) in place
 * of a value the register drew at random for what the recorder made (a financing statement's number
 * and PINs); it depends only on its order, not on the value drawn.
 */
const redrawn = (value: string, n: number) => {
  const alphabet = /^[0-9]+$/.test(value) ? '0123456789' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const source = createHash('sha256').update(`drawn ${n}`).digest();
  return [...value].map((_, i) => alphabet[source[i % source.length]! % alphabet.length]).join('');
};

/**
 * `recorded` with its random values renumbered (a deep copy; the input is not changed); `drawn` are
 * further values the register drew at random, replaced wherever they appear.
 */
export function stableAnswers<T>(recorded: T, drawn: readonly string[] = []): T {
  const seen = new Map<string, string>();
  const replace = (pattern: RegExp, text: string, make: (match: string, n: number) => string) =>
    text.replace(pattern, (match) => {
      let replacement = seen.get(match);
      if (replacement === undefined) {
        replacement = make(match, seen.size + 1);
        seen.set(match, replacement);
      }
      return replacement;
    });
  let text = JSON.stringify(recorded);
  [...new Set(drawn)].forEach((value, i) => {
    text = text.replaceAll(value, redrawn(value, i + 1));
  });
  text = replace(UUID, text, (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
  text = replace(ORGANISATION, text, (_, n) => `org-${String(n).padStart(12, '0')}`);
  text = replace(SECRET, text, (match, n) => `whsec_${derived(`secret ${n}`, match.length - 6)}`);
  text = text.replace(SIGNATURE, (_, prefix: string, value: string) => {
    const key = `signature ${value}`;
    let replacement = seen.get(key);
    if (replacement === undefined) {
      replacement = derived(`signature ${seen.size + 1}`, value.length);
      seen.set(key, replacement);
    }
    return `${prefix}${replacement}`;
  });
  return JSON.parse(text) as T;
}
