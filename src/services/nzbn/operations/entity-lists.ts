/**
 * POST /entities/{nzbn}/{list}: adds to a Primary Business Data list (business authority), as the
 * published definition shapes each: an address is sent and answered alone (201); every other list takes
 * an array of items and answers the list as it then stands (200), or nothing (payment bank accounts:
 * 204). The register sets each item's identifier and, unless given, its start date. A new address of a
 * type the entity already has replaces it: the old one ends and goes to the history. Each item added
 * records a change event whose new value is the item. `ENTITY_LISTS` is the table of the lists: the
 * published path, the schemas of what is sent and answered, the change event and the rule of each.
 */
import type { TSchema } from '@sinclair/typebox';
import { RuleError } from '../../../platform/errors.ts';
import type { PrivacyFlag } from '../domain/codes.ts';
import {
  addressItem,
  bankAccountItem,
  classificationItem,
  emailItem,
  ethnicityItem,
  gstItem,
  type ItemContext,
  phoneItem,
  tradingAreaItem,
  tradingNameItem,
  websiteItem,
} from '../domain/items.ts';
import {
  Address,
  BusinessEthnicityIdentifier,
  EmailAddress,
  type Entity,
  GstNumber,
  IndustryClassification,
  PaymentBankAccount,
  PhoneNumber,
  TradingArea,
  TradingName,
  Website,
} from '../domain/schema.ts';
import * as Input from '../schemas/inputs.ts';
import { addAddress } from '../store/edits.ts';
import type { EndedItem } from '../store/update.ts';
import { type EntityUpdate, type EntityWrite, updateFor } from './entity-updates.ts';
import type { NzbnContext } from './support.ts';

interface Added {
  item: unknown;
  private: boolean;
  ended?: EndedItem[];
}

export interface ListPart {
  path: string;
  input: TSchema;
  item: TSchema;
  event: string;
  /**
   * What the published operation answers: the item added (an address, sent alone), the entity's list as
   * it then stands (the body is an array of items) or nothing (204; the body is an array).
   */
  answer: 'item' | 'list' | 'none';
  /** The entity's list after the additions (what `list` answers). */
  current(entity: Entity): unknown[];
  add(entity: Entity, body: never, context: ItemContext): Added;
}

const flag = (entity: Entity, name: PrivacyFlag) => entity.privacySettings[name];

/** Adds `item` to `list` unless `same` finds one already there. */
function addOnce<T>(
  list: T[],
  item: T,
  same: (a: T) => boolean,
  field: string,
  what: string,
  context: ItemContext,
): T {
  if (list.some(same))
    throw new RuleError(`${context.at ?? ''}${field}`, `the entity already has this ${what}`);
  list.push(item);
  return item;
}

export const ENTITY_LISTS: readonly ListPart[] = [
  {
    path: 'addresses',
    answer: 'item',
    current: (entity) => entity.addresses.addressList,
    input: Input.AddressInput,
    item: Address,
    event: 'ADDRESS',
    add(entity, body: Input.AddressInput, context) {
      const item = addressItem(body, context);
      const { ended, isPrivate } = addAddress(entity, item);
      return { item, private: isPrivate, ended };
    },
  },
  {
    path: 'phone-numbers',
    answer: 'list',
    current: (entity) => entity.phoneNumbers,
    input: Input.PhoneInput,
    item: PhoneNumber,
    event: 'PHONENUMBER',
    add: (entity, body: Input.PhoneInput, context) => ({
      item: addOnce(
        entity.phoneNumbers,
        phoneItem(body, context),
        (p) => p.phoneNumber === body.phoneNumber && p.phoneAreaCode === (body.phoneAreaCode ?? null),
        'phoneNumber',
        'phone number',
        context,
      ),
      private: flag(entity, 'phonePrivateInformation'),
    }),
  },
  {
    path: 'email-addresses',
    answer: 'list',
    current: (entity) => entity.emailAddresses,
    input: Input.EmailInput,
    item: EmailAddress,
    event: 'EMAILADDRESS',
    add: (entity, body: Input.EmailInput, context) => ({
      item: addOnce(
        entity.emailAddresses,
        emailItem(body, context),
        (e) => e.emailAddress.toLowerCase() === body.emailAddress.toLowerCase(),
        'emailAddress',
        'email address',
        context,
      ),
      private: flag(entity, 'emailPrivateInformation'),
    }),
  },
  {
    path: 'websites',
    answer: 'list',
    current: (entity) => entity.websites,
    input: Input.WebsiteInput,
    item: Website,
    event: 'WEBSITE',
    add: (entity, body: Input.WebsiteInput, context) => ({
      item: addOnce(
        entity.websites,
        websiteItem(body, context),
        (w) => w.url === body.url,
        'url',
        'website',
        context,
      ),
      private: false,
    }),
  },
  {
    path: 'trading-names',
    answer: 'list',
    current: (entity) => entity.tradingNames,
    input: Input.TradingNameInput,
    item: TradingName,
    event: 'TRADINGNAME',
    add(entity, body: Input.TradingNameInput, context) {
      const item = tradingNameItem(body, context);
      const same = (t: typeof item) => t.endDate === null && t.name.toLowerCase() === item.name.toLowerCase();
      addOnce(entity.tradingNames, item, same, 'name', 'trading name', context);
      return { item, private: flag(entity, 'tradingNamePrivateInformation') };
    },
  },
  {
    path: 'industry-classifications',
    answer: 'list',
    current: (entity) => entity.industryClassifications,
    input: Input.ClassificationInput,
    item: IndustryClassification,
    event: 'INDUSTRYCLASSIFICATION',
    add(entity, body: Input.ClassificationInput, context) {
      const item = classificationItem(body, context);
      const same = (c: typeof item) => c.classificationCode === item.classificationCode;
      addOnce(entity.industryClassifications, item, same, 'classificationCode', 'classification', context);
      entity.classifications.push({ ...item });
      return { item, private: flag(entity, 'businessClassificationPrivateInformation') };
    },
  },
  {
    path: 'gst-numbers',
    answer: 'list',
    current: (entity) => entity.gstNumbers,
    input: Input.GstInput,
    item: GstNumber,
    event: 'GSTNUMBER',
    add(entity, body: Input.GstInput, context) {
      const item = gstItem(body, context);
      addOnce(
        entity.gstNumbers,
        item,
        (g) => g.gstNumber === item.gstNumber,
        'gstNumber',
        'GST number',
        context,
      );
      return { item, private: flag(entity, 'gstNumberPrivateInformation') };
    },
  },
  {
    path: 'trading-areas',
    answer: 'list',
    current: (entity) => entity.tradingAreas,
    input: Input.TradingAreaInput,
    item: TradingArea,
    event: 'TRADINGAREA',
    add(entity, body: Input.TradingAreaInput, context) {
      const item = tradingAreaItem(body, context);
      const same = (t: typeof item) => t.endDate === null && t.tradingArea === item.tradingArea;
      addOnce(entity.tradingAreas, item, same, 'tradingArea', 'trading area', context);
      return { item, private: false };
    },
  },
  {
    path: 'payment-bank-accounts',
    answer: 'none',
    current: (entity) => entity.paymentBankAccounts,
    input: Input.BankAccountInput,
    item: PaymentBankAccount,
    event: 'PAYMENTBANKACCOUNT',
    add(entity, body: Input.BankAccountInput, context) {
      const item = bankAccountItem(body, context);
      const number = (b: typeof item) => `${b.bankId}-${b.bankBranch}-${b.accountBase}-${b.accountSuffix}`;
      const same = (b: typeof item) => number(b) === number(item);
      addOnce(entity.paymentBankAccounts, item, same, 'accountBase', 'bank account', context);
      return { item, private: flag(entity, 'paymentBankAccountNumbersPrivateInformation') };
    },
  },
  {
    path: 'business-ethnicity-identifiers',
    answer: 'list',
    current: (entity) => entity.businessEthnicityIdentifiers,
    input: Input.EthnicityInput,
    item: BusinessEthnicityIdentifier,
    event: 'BUSINESSETHNICITYIDENTIFIER',
    add(entity, body: Input.EthnicityInput, context) {
      const item = ethnicityItem(body, context);
      const same = (e: typeof item) => e.ethnicity === item.ethnicity;
      addOnce(entity.businessEthnicityIdentifiers, item, same, 'ethnicity', 'ethnicity', context);
      return { item, private: flag(entity, 'businessEthnicityPrivateInformation') };
    },
  },
];

/**
 * Adds `items` (each valid against `list.input`: the route's schema has checked them, a tool must) to
 * the list, in order, all or none. Answers what the published operation answers (`ListPart.answer`):
 * the item as the register stored it, or the list as it now stands.
 */
export async function addListItems(
  context: NzbnContext,
  input: EntityWrite & { list: ListPart; items: readonly unknown[] },
): Promise<EntityUpdate<unknown>> {
  const { list, items } = input;
  return updateFor(context, input, async (entity, tools) => {
    const added: Added[] = [];
    for (const [i, item] of items.entries()) {
      const at = list.answer === 'item' ? '' : `${i}.`;
      added.push(list.add(entity, item as never, { id: await tools.nextItemId(), now: tools.stamp, at }));
    }
    return {
      result: list.answer === 'item' ? added[0]!.item : list.answer === 'list' ? list.current(entity) : null,
      events: added.map((one) => ({
        changeEventType: list.event,
        newValue: one.item,
        isPrivate: one.private,
      })),
      ended: added.flatMap((one) => one.ended ?? []),
    };
  });
}
