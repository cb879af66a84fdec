/**
 * The ETags a case is answered under, and which of them a renewal's `If-Match` may name. Every answer
 * about a case carries one: the bibliographic read one per representation (`"patent-500001-v3-xml"`,
 * `-json`), the renewal check one per day (`"patent-500001-v3-on-2026-07-15"`: the check's fee and
 * state move at midnight although the case does not). A renewal guards against a change of the case, so
 * its `If-Match` holds when it names any of these of the case's current version (ours); a weak tag never
 * does (RFC 9110 §13.1.1: strong comparison).
 */
import type { CaseRecord } from './model.ts';
import { caseEtag } from './model.ts';

type Versioned = Pick<CaseRecord, 'kind' | 'caseNumber' | 'version'>;

const tagOf = (record: Versioned, suffix: string) => `${caseEtag(record).slice(0, -1)}-${suffix}"`;

/** The bibliographic document's ETag, per representation. */
export const documentEtag = (record: Versioned, format: 'xml' | 'json'): string => tagOf(record, format);

/** The renewal check's ETag on a New Zealand date. */
export const renewalCheckEtag = (record: Versioned, on: string): string => tagOf(record, `on-${on}`);

/**
 * The current ETag the request's `If-Match` names (the case's own when it names none of them), for the
 * kit's precondition check to compare: a tag of an earlier version, or a weak one, then fails it.
 */
export function renewalEtagHeld(record: Versioned, ifMatch: string | undefined): string {
  const own = caseEtag(record);
  if (ifMatch === undefined) return own;
  const checkPrefix = `${own.slice(0, -1)}-on-`;
  const current = (tag: string) =>
    tag === own ||
    tag === documentEtag(record, 'xml') ||
    tag === documentEtag(record, 'json') ||
    (tag.startsWith(checkPrefix) && /^[0-9]{4}-[0-9]{2}-[0-9]{2}"$/.test(tag.slice(checkPrefix.length)));
  return (ifMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).find(current) ?? own;
}
