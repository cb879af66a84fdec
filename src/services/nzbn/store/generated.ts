/**
 * Documents of generated entities that have not changed since the seed. The seed stores only their
 * columns; a read generates the document again from (seed, index) — the generator is deterministic —
 * and its ETag is the hash of that text, as for a stored document. Documents read more than once
 * recently are kept in memory (the last few thousand), so repeated reads and searches do not generate
 * them again; one read once is not kept (recently-seen.ts says why).
 */
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { hidesItems } from '../domain/privacy.ts';
import { generatePreviousNames } from '../sandbox/history.ts';
import { RecentlySeen } from './recently-seen.ts';
import { documentEtag } from './rows.ts';
import { generatedEntity, SANDBOX_SEED, sandboxGeography } from './seed-rows.ts';

/** A generated entity as the seed made it: its document and the columns the seed wrote beside it. */
export interface GeneratedVersion {
  document: string;
  /** The hash of `document` (rows.ts `documentEtag`). */
  etag: string;
  /** The seed's `hides_items` and `last_updated` (rows.ts `toEntityRow`). */
  hidesItems: boolean;
  lastUpdatedMs: number;
}

const CACHE_SIZE = 5_000;
const cache = new Map<number, GeneratedVersion>();
const seen = new RecentlySeen<number>(CACHE_SIZE * 4);

export function generatedDocument(index: number): GeneratedVersion {
  const cached = cache.get(index);
  if (cached) {
    cache.delete(index);
    cache.set(index, cached);
    return cached;
  }
  const entity = generatedEntity(index);
  const document = JSON.stringify(entity);
  const made: GeneratedVersion = {
    document,
    etag: documentEtag(document),
    hidesItems: hidesItems(entity),
    lastUpdatedMs: parseNzDateTime(entity.lastUpdatedDate)!,
  };
  if (seen.again(index)) {
    cache.set(index, made);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as number);
  }
  return made;
}

/** The seed's `previous_names` of a generated entity (seed-rows.ts `chunkText`); generates it again. */
export function generatedPreviousNames(index: number): string[] {
  const entity = generatedEntity(index);
  return generatePreviousNames(SANDBOX_SEED, index, entity, sandboxGeography()).map((name) => name.name);
}
