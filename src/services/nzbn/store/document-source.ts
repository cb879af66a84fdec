/**
 * The seam between the register's rows and the sandbox generator: what a read needs of it. The seed
 * stores a generated entity's columns only (rows.ts `storeDocument: false`), not its document; a read
 * of such a row, or of a generated entity known to be unchanged since the seed (entity-cache.ts), gets
 * the document from a `DocumentSource`, which makes it again from (seed, index) — the generator is
 * deterministic — with the ETag the hash of that text, as for a stored document.
 *
 * Filings are the same: the seed stores none for the generated companies, and a read of a company's
 * filings (`GET /entities/{nzbn}/filings`) gets them from the source, made again from (seed, company).
 *
 * The store never imports the generator: the service wires the sandbox's source (sandbox/documents.ts)
 * at start — into its service context (`NzbnContext.documents`) when the routes mount, into the entity
 * cache it opens there, and into its jobs and bulk export — and the store's functions take it from their
 * caller.
 */

import type { GeneratedFiling } from '../domain/filings.ts';

/** A generated entity as the seed made it: its document and the columns the seed wrote beside it. */
export interface GeneratedVersion {
  document: string;
  /** The hash of `document` (rows.ts `documentEtag`). */
  etag: string;
  /** The seed's `hides_items` and `last_updated` (rows.ts `toEntityRow`). */
  hidesItems: boolean;
  lastUpdatedMs: number;
}

export interface DocumentSource {
  /** The seed whose loaded chunks `nzbn_seed_chunks` records (the register's generated entities). */
  readonly seed: string;
  /** The generator index behind a generated business number; undefined for any other number. */
  indexOf(nzbn: string): number | undefined;
  /** The stored version of generated entity `index` as the seed would have written it whole. */
  version(index: number): GeneratedVersion;
  /** The seed's `previous_names` of generated entity `index`. */
  previousNames(index: number): string[];
  /**
   * The filings the generator gives a business number (a generated or fixed company; none for any
   * other number), oldest first, each with its document.
   */
  filings(nzbn: string): GeneratedFiling[];
}
