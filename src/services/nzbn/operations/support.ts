/**
 * What every operation of the business number API shares: reading a business number (400 naming the
 * broken rule), the published "Object Not Found" answer, who the caller acts for, the two views of an
 * entity and their ETags, and the base address for links.
 */
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { ENVIRONMENT_PREFIX } from '../../contract.ts';
import { partVisibleTo } from '../domain/organisation-part.ts';
import { publicView } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import { NZBN_ERRORS } from '../errors.ts';
import type { DocumentSource } from '../store/document-source.ts';
import {
  entityTypesOf,
  findEntity,
  parseEntity,
  type StoredEntity,
  unchangedGeneratedEntity,
} from '../store/entities.ts';
import { CachedEntity, entityCacheOf } from '../store/entity-cache.ts';
import { grantedParts } from '../store/org-part-access.ts';
import { partsOf, type StoredPart } from '../store/org-parts.ts';

/**
 * What an operation is given: the gateway's service context and where the documents of generated
 * entities come from (the sandbox generator's `DocumentSource`, wired by the service at start: the
 * routes add it when they mount; the CLI, an import or a job hands the same).
 */
export interface NzbnContext extends ServiceContext {
  readonly documents: DocumentSource;
}

/** A business number (the path's), or 400 naming the rule it breaks (13 digits, GS1 check digit). */
export function nzbnParam(value: string, field = 'nzbn'): string {
  const problem = glnProblem(value);
  if (problem) throw badRequest(field, problem.message);
  return value;
}

/**
 * The business numbers a request lists (trimmed, each once, in the order given), each with its entity
 * type: every one of the GS1 form and held by the register, else 400 naming `field` and the numbers.
 * Asked on `db` (a transaction's connection), else on the pool.
 */
export async function registeredNzbns(
  context: NzbnContext,
  values: readonly string[],
  field = 'nzbns',
  db: Parameters<typeof entityTypesOf>[0] = context.database.pool,
): Promise<Map<string, string>> {
  const nzbns = [...new Set(values.map((value) => value.trim()))];
  for (const nzbn of nzbns) {
    const problem = glnProblem(nzbn);
    if (problem) throw badRequest(field, `"${nzbn}": ${problem.message}`);
  }
  const types = await entityTypesOf(db, nzbns);
  const unknown = nzbns.filter((nzbn) => !types.has(nzbn)).sort();
  if (unknown.length > 0) throw badRequest(field, `unknown business number "${unknown.join('", "')}"`);
  return new Map(nzbns.map((nzbn) => [nzbn, types.get(nzbn)!]));
}

export const entityNotFound = (nzbn: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no entity has the business number ${nzbn}`);

export const partNotFound = (opn: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no organisation part has the number ${opn}`);

export const roleNotFound = (id: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: the entity has no role ${id}`);

export async function loadEntity(context: NzbnContext, nzbn: string): Promise<Readonly<StoredEntity>> {
  return (await loadCachedEntity(context, nzbn)).stored;
}

/**
 * The entity's stored version with its views' ETags and bytes: from memory when this process keeps it
 * and it has not changed, made from the generator when it is a generated entity unchanged since the seed
 * (store/entity-cache.ts), otherwise read (and kept). 404 when there is none.
 */
export async function loadCachedEntity(context: NzbnContext, nzbn: string): Promise<CachedEntity> {
  const pool = context.database.pool;
  const cache = entityCacheOf(pool);
  // Only business numbers that were found (so valid) are kept.
  const kept = cache?.get(nzbn);
  if (kept) return kept;
  const mark = cache?.mark() ?? 0;
  const index = cache?.unchangedIndex(nzbn);
  const stored =
    index === undefined
      ? await findEntity(pool, context.documents, nzbnParam(nzbn))
      : unchangedGeneratedEntity(context.documents, nzbnParam(nzbn), index);
  if (!stored) throw entityNotFound(nzbn);
  const entry = new CachedEntity(stored);
  cache?.keep(mark, entry);
  return entry;
}

/** Whether the caller is a signed-in user (three-legged token) with business authority over the entity. */
export async function actsFor(
  context: NzbnContext,
  caller: Caller | undefined,
  nzbn: string,
): Promise<boolean> {
  return caller?.userId ? context.identity.mayAct(caller, 'entity', nzbn) : false;
}

/** The business numbers the caller acts for (empty without a user's token). */
export async function entitiesCallerActsFor(
  context: NzbnContext,
  caller: Caller | undefined,
): Promise<Set<string>> {
  if (!caller?.userId) return new Set();
  return new Set(await context.identity.objectsCallerMayActOn(caller, 'entity'));
}

/**
 * Whom the caller sees organisation parts as: the entities it acts for (`mine`) and the parts those were
 * given access to, with when (`granted`: approved access requests), for domain/organisation-part.ts
 * `partVisibleTo`.
 */
export async function partViewerOf(
  context: NzbnContext,
  caller: Caller | undefined,
): Promise<{ mine: Set<string>; granted: Map<string, Date> }> {
  const mine = await entitiesCallerActsFor(context, caller);
  return { mine, granted: await grantedParts(context.database.pool, [...mine]) };
}

/**
 * When a part last changed for this caller: its own last update, or the approval that let the caller
 * see it, whichever is later (a part that comes into view moves the caller's Last-Modified).
 */
export function partSeenSince(part: StoredPart, granted: ReadonlyMap<string, Date>): Date {
  const since = granted.get(part.part.opn);
  return since && since > part.lastUpdated ? since : part.lastUpdated;
}

/** The entity's organisation parts the caller sees (by number, each as of `partSeenSince`), and whom it sees them as. */
export async function partsSeenBy(context: NzbnContext, caller: Caller | undefined, nzbn: string) {
  const viewer = await partViewerOf(context, caller);
  const parts = (await partsOf(context.database.pool, nzbn))
    .filter(({ part }) => partVisibleTo(part, viewer.mine, viewer.granted))
    .map((stored) => ({ ...stored, lastUpdated: partSeenSince(stored, viewer.granted) }));
  return { ...viewer, parts };
}

/** 403 unless the signed-in user holds business authority over the entity (named by `field`). */
export async function requireAuthority(
  context: NzbnContext,
  caller: Caller | undefined,
  nzbn: string,
  field = 'nzbn',
): Promise<void> {
  if (!(await actsFor(context, caller, nzbn))) {
    throw new HttpError(
      NZBN_ERRORS.forbidden,
      `Forbidden: the signed-in user has no business authority over the entity ${nzbn}`,
      [{ field, message: 'needs business authority over this entity' }],
    );
  }
}

/** ETag of a view: the stored version's hash; the public view of an entity that hides items differs. */
export function viewEtag(stored: Readonly<StoredEntity>, authorised: boolean): string {
  return stored.hidesItems && !authorised ? `"${stored.etag}-p"` : `"${stored.etag}"`;
}

/** The entity as this caller may see it. */
export function entityView(stored: Readonly<StoredEntity>, authorised: boolean): Entity {
  const entity = parseEntity(stored);
  return authorised ? entity : publicView(entity);
}

/**
 * The latest of an entity's last update and its organisation parts' (those the caller sees: a hidden
 * part's time would tell that it exists): the Last-Modified of an answer made from them.
 */
export function latestOf(entityUpdated: Date, parts: readonly { lastUpdated: Date }[]): Date {
  let latest = entityUpdated;
  for (const part of parts) if (part.lastUpdated > latest) latest = part.lastUpdated;
  return latest;
}

/** `https://host/sandbox/nzbn/v5`: the base of links in responses (the public base URL, never the Host). */
export function baseUrl(context: NzbnContext): string {
  return context.absoluteUrl(`${ENVIRONMENT_PREFIX[context.environment]}${context.service.path}`);
}

/** The allowed value that `value` names, in any case (clients differ); undefined when none does. */
export function choice<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  const wanted = value.trim().toLowerCase();
  return allowed.find((item) => item.toLowerCase() === wanted);
}

export const link = (rel: string, href: string, methods: string[] = ['GET']) => ({ rel, href, methods });
