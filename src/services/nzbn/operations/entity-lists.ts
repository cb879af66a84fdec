/**
 * POST /entities/{nzbn}/{list}: adds one item to a Primary Business Data list (business authority). The
 * register sets the item's identifier and, unless given, its start date. A new address of a type the
 * entity already has replaces it: the old one ends and goes to the history. Each addition records a
 * change event whose new value is the item. `ENTITY_LISTS` is the table of the lists: the published
 * path, the schemas of what is sent and answered, the change event and the rule of each.
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
  add(entity: Entity, body: never, context: ItemContext): Added;
}

const flag = (entity: Entity, name: PrivacyFlag) => entity.privacySettings[name];

/** Adds `item` to `list` unless `same` finds one already there. */
function addOnce<T>(list: T[], item: T, same: (a: T) => boolean, field: string, what: string): T {
  if (list.some(same)) throw new RuleError(field, `the entity already has this ${what}`);
  list.push(item);
  return item;
}

export const ENTITY_LISTS: readonly ListPart[] = [
  {
    path: 'addresses',
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
      ),
      private: flag(entity, 'phonePrivateInformation'),
    }),
  },
  {
    path: 'email-addresses',
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
      ),
      private: flag(entity, 'emailPrivateInformation'),
    }),
  },
  {
    path: 'websites',
    input: Input.WebsiteInput,
    item: Website,
    event: 'WEBSITE',
    add: (entity, body: Input.WebsiteInput, context) => ({
      item: addOnce(entity.websites, websiteItem(body, context), (w) => w.url === body.url, 'url', 'website'),
      private: false,
    }),
  },
  {
    path: 'trading-names',
    input: Input.TradingNameInput,
    item: TradingName,
    event: 'TRADINGNAME',
    add(entity, body: Input.TradingNameInput, context) {
      const item = tradingNameItem(body, context);
      const same = (t: typeof item) => t.endDate === null && t.name.toLowerCase() === item.name.toLowerCase();
      addOnce(entity.tradingNames, item, same, 'name', 'trading name');
      return { item, private: flag(entity, 'tradingNamePrivateInformation') };
    },
  },
  {
    path: 'industry-classifications',
    input: Input.ClassificationInput,
    item: IndustryClassification,
    event: 'INDUSTRYCLASSIFICATION',
    add(entity, body: Input.ClassificationInput, context) {
      const item = classificationItem(body, context);
      const same = (c: typeof item) => c.classificationCode === item.classificationCode;
      addOnce(entity.industryClassifications, item, same, 'classificationCode', 'classification');
      entity.classifications.push({ ...item });
      return { item, private: flag(entity, 'businessClassificationPrivateInformation') };
    },
  },
  {
    path: 'gst-numbers',
    input: Input.GstInput,
    item: GstNumber,
    event: 'GSTNUMBER',
    add(entity, body: Input.GstInput, context) {
      const item = gstItem(body, context);
      addOnce(entity.gstNumbers, item, (g) => g.gstNumber === item.gstNumber, 'gstNumber', 'GST number');
      return { item, private: flag(entity, 'gstNumberPrivateInformation') };
    },
  },
  {
    path: 'trading-areas',
    input: Input.TradingAreaInput,
    item: TradingArea,
    event: 'TRADINGAREA',
    add(entity, body: Input.TradingAreaInput, context) {
      const item = tradingAreaItem(body, context);
      const same = (t: typeof item) => t.endDate === null && t.tradingArea === item.tradingArea;
      addOnce(entity.tradingAreas, item, same, 'tradingArea', 'trading area');
      return { item, private: false };
    },
  },
  {
    path: 'payment-bank-accounts',
    input: Input.BankAccountInput,
    item: PaymentBankAccount,
    event: 'PAYMENTBANKACCOUNT',
    add(entity, body: Input.BankAccountInput, context) {
      const item = bankAccountItem(body, context);
      const same = (b: typeof item) => b.bankAccountNumber === item.bankAccountNumber;
      addOnce(entity.paymentBankAccounts, item, same, 'bankAccountNumber', 'bank account');
      return { item, private: flag(entity, 'paymentBankAccountNumbersPrivateInformation') };
    },
  },
  {
    path: 'business-ethnicity-identifiers',
    input: Input.EthnicityInput,
    item: BusinessEthnicityIdentifier,
    event: 'BUSINESSETHNICITYIDENTIFIER',
    add(entity, body: Input.EthnicityInput, context) {
      const item = ethnicityItem(body, context);
      const same = (e: typeof item) => e.ethnicity === item.ethnicity;
      addOnce(entity.businessEthnicityIdentifiers, item, same, 'ethnicity', 'ethnicity');
      return { item, private: flag(entity, 'businessEthnicityPrivateInformation') };
    },
  },
];

/**
 * Adds `item` (valid against `list.input`: the route's schema has checked it, a tool must) to the list.
 * Answers the item as the register stored it.
 */
export async function addListItem(
  context: NzbnContext,
  input: EntityWrite & { list: ListPart; item: unknown },
): Promise<EntityUpdate<unknown>> {
  const { list } = input;
  return updateFor(context, input, async (entity, tools) => {
    const added = list.add(entity, input.item as never, { id: await tools.nextItemId(), now: tools.stamp });
    return {
      result: added.item,
      events: [{ changeEventType: list.event, newValue: added.item, isPrivate: added.private }],
      ended: added.ended ?? [],
    };
  });
}
