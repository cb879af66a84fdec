/**
 * Which Primary Business Data items an entity keeps private, and the public view of an entity. The
 * register keeps private items in the record; callers without business authority over the entity get
 * the public view, in which each item covered by a set privacy flag is left out (a list loses its
 * items, a single value becomes null). Pure: no Fastify, no SQL.
 *
 * | flag                                         | leaves out                                                |
 * |----------------------------------------------|-----------------------------------------------------------|
 * | namePrivateInformation                       | the `Sole Trader` role (it names the person)              |
 * | tradingNamePrivateInformation                | tradingNames                                              |
 * | businessClassificationPrivateInformation     | industryClassifications and classifications               |
 * | phonePrivateInformation                      | phoneNumbers                                              |
 * | emailPrivateInformation                      | emailAddresses                                            |
 * | partnersPrivateInformation                   | roles `Partner`, `General Partner`, `Limited Partner`     |
 * | trusteesPrivateInformation                   | roles `Trustee`                                           |
 * | abnPrivateInformation                        | australianBusinessNumber (null)                           |
 * | gstNumberPrivateInformation                  | gstNumbers                                                |
 * | paymentBankAccountNumbersPrivateInformation  | paymentBankAccounts                                       |
 * | <type>AddressPrivateInformation              | addresses of that type (REGISTERED … OFFICE)              |
 * | businessEthnicityPrivateInformation          | businessEthnicityIdentifiers                              |
 *
 * The privacy settings themselves are public: they say that something is withheld, not what.
 */
import { ADDRESS_PRIVACY_FLAG, PRIVACY_FLAGS, type PrivacyFlag } from './codes.ts';
import type { Address, Entity, PrivacySettings, Role } from './schema.ts';

const PARTNER_ROLES = new Set(['Partner', 'General Partner', 'Limited Partner']);

/** The flag that makes a role private, if any. */
export function rolePrivacyFlag(roleType: string): PrivacyFlag | undefined {
  if (roleType === 'Sole Trader') return 'namePrivateInformation';
  if (PARTNER_ROLES.has(roleType)) return 'partnersPrivateInformation';
  if (roleType === 'Trustee') return 'trusteesPrivateInformation';
  return undefined;
}

export function isPrivateAddress(settings: PrivacySettings, address: Pick<Address, 'addressType'>): boolean {
  const flag = address.addressType ? ADDRESS_PRIVACY_FLAG[address.addressType] : undefined;
  return flag !== undefined && settings[flag];
}

export function isPrivateRole(settings: PrivacySettings, role: Pick<Role, 'roleType'>): boolean {
  const flag = rolePrivacyFlag(role.roleType);
  return flag !== undefined && settings[flag];
}

/** The privacy flags an entity has set, for the typed column and for quick checks. */
export function setPrivacyFlags(settings: PrivacySettings): PrivacyFlag[] {
  return PRIVACY_FLAGS.filter((flag) => settings[flag]);
}

/** Whether the public view of the entity differs from the full record (some present item is private). */
export function hidesItems(entity: Entity): boolean {
  const p = entity.privacySettings;
  return (
    (p.tradingNamePrivateInformation && entity.tradingNames.length > 0) ||
    (p.businessClassificationPrivateInformation && entity.industryClassifications.length > 0) ||
    (p.phonePrivateInformation && entity.phoneNumbers.length > 0) ||
    (p.emailPrivateInformation && entity.emailAddresses.length > 0) ||
    (p.abnPrivateInformation && entity.australianBusinessNumber !== null) ||
    (p.gstNumberPrivateInformation && entity.gstNumbers.length > 0) ||
    (p.paymentBankAccountNumbersPrivateInformation && entity.paymentBankAccounts.length > 0) ||
    (p.businessEthnicityPrivateInformation && entity.businessEthnicityIdentifiers.length > 0) ||
    entity.addresses.addressList.some((address) => isPrivateAddress(p, address)) ||
    entity.roles.some((role) => isPrivateRole(p, role))
  );
}

/** The entity as a caller without business authority sees it. Returns the same object when nothing is hidden. */
export function publicView(entity: Entity): Entity {
  if (!hidesItems(entity)) return entity;
  const p = entity.privacySettings;
  return {
    ...entity,
    australianBusinessNumber: p.abnPrivateInformation ? null : entity.australianBusinessNumber,
    addresses: {
      ...entity.addresses,
      addressList: entity.addresses.addressList.filter((address) => !isPrivateAddress(p, address)),
    },
    emailAddresses: p.emailPrivateInformation ? [] : entity.emailAddresses,
    phoneNumbers: p.phonePrivateInformation ? [] : entity.phoneNumbers,
    tradingNames: p.tradingNamePrivateInformation ? [] : entity.tradingNames,
    industryClassifications: p.businessClassificationPrivateInformation ? [] : entity.industryClassifications,
    classifications: p.businessClassificationPrivateInformation ? [] : entity.classifications,
    roles: entity.roles.filter((role) => !isPrivateRole(p, role)),
    gstNumbers: p.gstNumberPrivateInformation ? [] : entity.gstNumbers,
    paymentBankAccounts: p.paymentBankAccountNumbersPrivateInformation ? [] : entity.paymentBankAccounts,
    businessEthnicityIdentifiers: p.businessEthnicityPrivateInformation
      ? []
      : entity.businessEthnicityIdentifiers,
  };
}
