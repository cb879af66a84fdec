/**
 * The sandbox's `DocumentSource` (store/document-source.ts): the documents of generated entities that
 * have not changed since the seed, made again from (seed, index) by the deterministic generator. The
 * service wires it at start (index.ts); the store reads rows without a document through it and never
 * imports the generator. The filings of the generated companies come through it too (filings.ts).
 * Documents made more than once recently are kept in memory (the last few thousand), so repeated reads
 * and searches do not generate them again; one made once is not kept (store/recently-seen.ts says why).
 */
import { nzGeography } from '../../../platform/geography.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { hidesItems } from '../domain/privacy.ts';
import type { DocumentSource, GeneratedVersion } from '../store/document-source.ts';
import { RecentlySeen } from '../store/recently-seen.ts';
import { documentEtag } from '../store/rows.ts';
import { sandboxFilings } from './filings.ts';
import { generatePreviousNames } from './history.ts';
import { indexForNzbn } from './numbers.ts';
import { generatedEntity, SANDBOX_SEED } from './seed-rows.ts';

const CACHE_SIZE = 5_000;
const cache = new Map<number, GeneratedVersion>();
const seen = new RecentlySeen<number>(CACHE_SIZE * 4);

function version(index: number): GeneratedVersion {
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
function previousNames(index: number): string[] {
  const entity = generatedEntity(index);
  return generatePreviousNames(SANDBOX_SEED, index, entity, nzGeography()).map((name) => name.name);
}

/** The generated documents of the sandbox register (seed `nzbn-sandbox-v1`), and its companies' filings. */
export const sandboxDocuments: DocumentSource = {
  seed: SANDBOX_SEED,
  indexOf: indexForNzbn,
  version,
  previousNames,
  filings: sandboxFilings,
};
