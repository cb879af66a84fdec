/**
 * Documents of generated entities that have not changed since the seed. The seed stores only their
 * columns; a read generates the document again from (seed, index) — the generator is deterministic —
 * and its ETag is the hash of that text, as for a stored document. The last few thousand are kept in
 * memory, so a client polling one entity costs one indexed lookup per request.
 */
import { documentEtag } from './rows.ts';
import { generatedEntity } from './seed-rows.ts';

const CACHE_SIZE = 5_000;
const cache = new Map<number, { document: string; etag: string }>();

export function generatedDocument(index: number): { document: string; etag: string } {
  const cached = cache.get(index);
  if (cached) {
    cache.delete(index);
    cache.set(index, cached);
    return cached;
  }
  const document = JSON.stringify(generatedEntity(index));
  const made = { document, etag: documentEtag(document) };
  cache.set(index, made);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as number);
  return made;
}
