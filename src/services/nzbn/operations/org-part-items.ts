/**
 * The items of an organisation part, one at a time — its addresses, phone numbers, email addresses,
 * purposes and `custom-data` (add, change, remove) — and its share list (`nzbn-list`: add and remove
 * business numbers). Each is a change of the part (operations/org-part-change.ts): business authority
 * over the parent entity, the part's preconditions, one transaction with its ORGANISATIONPART change
 * event, the part's new validators on the answer. `PART_ITEM_LISTS` is the table of the lists: the
 * published path, the part's field, the builder (domain/organisation-part-items.ts), the most a part
 * holds and what makes two items the same (a second one is refused, naming the field).
 */
import { RuleError } from '../../../platform/errors.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import type { ItemContext } from '../domain/items.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import {
  MAX_CUSTOM_DATA,
  MAX_PART_ITEMS,
  partAddress,
  partEmail,
  partMetadata,
  partPhone,
  partPurpose,
  shareWith,
  stopSharing,
} from '../domain/organisation-part-items.ts';
import { NZBN_ERRORS } from '../errors.ts';
import { changePart, type PartWrite } from './org-part-change.ts';
import { type NzbnContext, registeredNzbns } from './support.ts';

type Lists = Pick<
  OrganisationPart,
  'addresses' | 'custom-data' | 'emailAddresses' | 'phoneNumbers' | 'purposes'
>;
type ListField = keyof Lists;
type ItemOf<F extends ListField> = Lists[F][number];
type Item = ItemOf<ListField>;

/** One list of a part's items, as its entry in `PART_ITEM_LISTS` describes it. */
interface ListEntry<F extends ListField> {
  /** The published path under the part: `…/organisation-parts/{opn}/<path>[/{uid}]`. */
  path: 'addresses' | 'custom-data' | 'email-addresses' | 'phone-numbers' | 'purpose';
  /** The part's field that holds the list. */
  field: F;
  /** One item, in messages. */
  what: string;
  /** The most items a part holds in this list. */
  max: number;
  /** The item from what a client sends (the route's schema has checked its shape). */
  build(input: never, context: ItemContext): ItemOf<F>;
  /** Two items are the same when `same` says so; a second one is refused, naming `field` of the item. */
  duplicate: { field: string; same(a: ItemOf<F>, b: ItemOf<F>): boolean };
}

/** A list, its items' own types left behind once its entry is checked. */
export type PartItemList = Omit<ListEntry<ListField>, 'build' | 'duplicate'> & {
  build(input: never, context: ItemContext): Item;
  duplicate: { field: string; same(a: Item, b: Item): boolean };
};

const list = <F extends ListField>(entry: ListEntry<F>): PartItemList => entry as unknown as PartItemList;
const fold = (text: string | null) => (text ?? '').trim().toLowerCase();

export const PART_ITEM_LISTS = {
  addresses: list({
    path: 'addresses',
    field: 'addresses',
    what: 'address',
    max: MAX_PART_ITEMS,
    build: partAddress,
    duplicate: {
      field: 'address1',
      same: (a, b) =>
        a.addressType === b.addressType &&
        [a.address1, a.address2, a.address3, a.address4, a.postCode, a.countryCode]
          .join('\n')
          .toLowerCase() ===
          [b.address1, b.address2, b.address3, b.address4, b.postCode, b.countryCode]
            .join('\n')
            .toLowerCase(),
    },
  }),
  'custom-data': list({
    path: 'custom-data',
    field: 'custom-data',
    what: 'custom data item',
    max: MAX_CUSTOM_DATA,
    build: partMetadata,
    duplicate: { field: 'key', same: (a, b) => a.key === b.key },
  }),
  'email-addresses': list({
    path: 'email-addresses',
    field: 'emailAddresses',
    what: 'email address',
    max: MAX_PART_ITEMS,
    build: partEmail,
    duplicate: { field: 'emailAddress', same: (a, b) => fold(a.emailAddress) === fold(b.emailAddress) },
  }),
  'phone-numbers': list({
    path: 'phone-numbers',
    field: 'phoneNumbers',
    what: 'phone number',
    max: MAX_PART_ITEMS,
    build: partPhone,
    duplicate: {
      field: 'phoneNumber',
      same: (a, b) =>
        a.phoneCountryCode === b.phoneCountryCode &&
        (a.phoneAreaCode ?? '') === (b.phoneAreaCode ?? '') &&
        a.phoneNumber === b.phoneNumber,
    },
  }),
  purpose: list({
    path: 'purpose',
    field: 'purposes',
    what: 'purpose',
    max: MAX_PART_ITEMS,
    build: partPurpose,
    duplicate: {
      field: 'purpose',
      same: (a, b) => a.purpose === b.purpose && fold(a.purposeDescription) === fold(b.purposeDescription),
    },
  }),
} as const;

/** A change of one item: which list, and for a change or removal which item (`{uid}`). */
export interface ItemWrite extends PartWrite {
  list: PartItemList;
}

/** An item's JSON as answered, and the part's new validators (for the next If-Match). */
export interface ItemAnswer {
  body: string;
  validators: ResourceValidators;
}

const itemNotFound = (opn: string, what: string, uid: string) =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: the organisation part ${opn} has no ${what} ${uid}`);

/** 400 naming the item's field when another of the list's items is the same item. */
function refuseDuplicate(entry: PartItemList, others: readonly Item[], item: Item) {
  if (others.some((other) => entry.duplicate.same(other, item))) {
    throw new RuleError(entry.duplicate.field, `the organisation part already has this ${entry.what}`);
  }
}

const itemsOf = (part: OrganisationPart, entry: PartItemList): Item[] => part[entry.field];
const withItems = (part: OrganisationPart, entry: PartItemList, items: Item[]): OrganisationPart => ({
  ...part,
  [entry.field]: items,
});
const answer = (changed: { result: unknown; validators: ResourceValidators }): ItemAnswer => ({
  body: JSON.stringify(changed.result),
  validators: changed.validators,
});

/** Adds an item (a new identifier; its start date, unless given, now); answers the item. */
export async function addPartItem(
  context: NzbnContext,
  input: ItemWrite & { item: unknown },
): Promise<ItemAnswer> {
  const entry = input.list;
  const changed = await changePart(context, input, async ({ found, nowText, newId }) => {
    const items = itemsOf(found.part, entry);
    if (items.length >= entry.max) {
      throw new RuleError(entry.field, `the organisation part holds ${entry.max} already, the most it may`);
    }
    // Checked before an identifier is taken: a refused item uses none.
    const made = entry.build(input.item as never, { id: '', now: nowText });
    refuseDuplicate(entry, items, made);
    const item = { ...made, uniqueIdentifier: await newId() };
    return { part: withItems(found.part, entry, [...items, item]), result: item };
  });
  return answer(changed);
}

/** The `uniqueIdentifier` a body sends, if any. */
const identifierSent = (item: unknown): unknown =>
  typeof item === 'object' && item !== null && 'uniqueIdentifier' in item ? item.uniqueIdentifier : undefined;

/** Replaces the item `uid` (it keeps its identifier and, unless given, its start date); answers it. */
export async function replacePartItem(
  context: NzbnContext,
  input: ItemWrite & { uid: string; item: unknown },
): Promise<ItemAnswer> {
  const { list: entry, uid } = input;
  const changed = await changePart(context, input, ({ found, nowText }) => {
    const items = itemsOf(found.part, entry);
    const at = items.findIndex((item) => item.uniqueIdentifier === uid);
    if (at < 0) throw itemNotFound(found.part.opn, entry.what, uid);
    const given = identifierSent(input.item);
    if (given && given !== uid) throw new RuleError('uniqueIdentifier', `cannot change (the item is ${uid})`);
    const current = items[at]!;
    const since = 'startDate' in current ? current.startDate : nowText;
    const item = entry.build(input.item as never, { id: uid, now: since });
    refuseDuplicate(entry, items.toSpliced(at, 1), item);
    return { part: withItems(found.part, entry, items.with(at, item)), result: item };
  });
  return answer(changed);
}

/** Removes the item `uid`. */
export async function removePartItem(
  context: NzbnContext,
  input: ItemWrite & { uid: string },
): Promise<{ validators: ResourceValidators }> {
  const { list: entry, uid } = input;
  const changed = await changePart(context, input, ({ found }) => {
    const items = itemsOf(found.part, entry);
    if (!items.some((item) => item.uniqueIdentifier === uid))
      throw itemNotFound(found.part.opn, entry.what, uid);
    const kept = items.filter((item) => item.uniqueIdentifier !== uid);
    return { part: withItems(found.part, entry, kept), result: undefined };
  });
  return { validators: changed.validators };
}

/** The published ShareNzbns of a part: the business numbers it is shared with. */
const shareList = (part: OrganisationPart) => ({ nzbns: part['nzbn-list'].map((item) => item.nzbn) });

/**
 * Changes the part's share list by `nzbns` (each a business number the register holds, else 400 naming
 * `nzbns`); answers the list as it then stands.
 */
async function changeShares(
  context: NzbnContext,
  input: PartWrite & { nzbns: string[] },
  change: (part: OrganisationPart, nzbns: string[]) => OrganisationPart,
): Promise<ItemAnswer> {
  const changed = await changePart(context, input, async ({ client, found }) => {
    const nzbns = [...(await registeredNzbns(context, input.nzbns, 'nzbns', client)).keys()];
    const part = change(found.part, nzbns);
    return { part, result: shareList(part) };
  });
  return answer(changed);
}

/** Shares the part with more entities (a PRIVATE part becomes SHARED; a PUBLIC one is refused). */
export const sharePartWith = (context: NzbnContext, input: PartWrite & { nzbns: string[] }) =>
  changeShares(context, input, shareWith);

/** Stops sharing the part with these entities (a SHARED part left with none is PRIVATE). */
export const stopSharingPart = (context: NzbnContext, input: PartWrite & { nzbns: string[] }) =>
  changeShares(context, input, stopSharing);
