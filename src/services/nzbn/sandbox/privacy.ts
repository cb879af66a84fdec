/**
 * Privacy settings of generated entities: which items each keeps private. Sole traders and family
 * businesses hide more (home addresses, personal phones); companies rarely. The items stay in the
 * record; the read layer leaves them out for callers without authority.
 */
import { type EntityTypeCode, PRIVACY_FLAGS, type PrivacyFlag } from '../domain/codes.ts';
import type { PrivacySettings } from '../domain/schema.ts';
import type { EntityBuild } from './build.ts';

/** Which items an entity keeps private; sole traders and family businesses hide more. */
export function generatePrivacy(build: EntityBuild, forcePrivate: boolean): PrivacySettings {
  const chances = privacyChances(build.type, build.group === 'optIn');
  const settings = {} as Record<PrivacyFlag | 'publicSuggestChangesYn', boolean>;
  for (let i = 0; i < PRIVACY_FLAGS.length; i++)
    settings[PRIVACY_FLAGS[i]!] = build.random.chance(chances[i]!);
  if (forcePrivate) {
    settings.phonePrivateInformation = true;
    settings.emailPrivateInformation = true;
    settings.gstNumberPrivateInformation = true;
    settings.paymentBankAccountNumbersPrivateInformation = true;
  }
  settings.publicSuggestChangesYn = build.random.chance(0.7);
  return settings;
}

const chancesByType = new Map<EntityTypeCode, readonly number[]>();

function privacyChances(type: EntityTypeCode, optIn: boolean): readonly number[] {
  const cached = chancesByType.get(type);
  if (cached) return cached;
  const chances: Partial<Record<PrivacyFlag, number>> = {
    namePrivateInformation: type === 'Sole_Trader' ? 0.03 : 0,
    tradingNamePrivateInformation: 0.01,
    businessClassificationPrivateInformation: 0.03,
    phonePrivateInformation: optIn ? 0.4 : 0.08,
    emailPrivateInformation: optIn ? 0.3 : 0.05,
    partnersPrivateInformation: type === 'Partnership' ? 0.3 : 0,
    trusteesPrivateInformation: type === 'Trading_Trust' ? 0.3 : 0,
    gstNumberPrivateInformation: optIn ? 0.2 : 0.1,
    paymentBankAccountNumbersPrivateInformation: optIn ? 0.6 : 0.3,
    postalAddressPrivateInformation: optIn ? 0.3 : 0.02,
    officeAddressPrivateInformation: optIn ? 0.5 : 0.02,
    deliveryAddressPrivateInformation: 0.02,
    invoiceAddressPrivateInformation: 0.05,
    businessEthnicityPrivateInformation: 0.2,
  };
  const list = PRIVACY_FLAGS.map((flag) => chances[flag] ?? 0);
  chancesByType.set(type, list);
  return list;
}
