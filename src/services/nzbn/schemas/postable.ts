/**
 * The published PostableEntity as the body of POST /entities (NZBN_003): the entity a sole trader,
 * partnership or trust registers, in the definition's field names. Fields the register sets (the
 * business number, statuses, descriptions, dates, source register, identifiers of items) are named so a
 * client generated from the definition can send its whole object; domain/postable.ts refuses a value in
 * the ones the applicant cannot choose and maps the rest onto the registration.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Strict } from '../domain/schema.ts';
import * as Input from './inputs.ts';

const List = <T extends TSchema>(item: T) => Type.Optional(Type.Array(item, { maxItems: 20 }));
const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** A value the register sets: named, so a whole generated object can be sent; domain/postable.ts refuses a value. */
const SetByRegister = Maybe(Type.Unknown());
const Identifier = Maybe(
  Type.String({ maxLength: 40, description: 'set by the register; any value is ignored' }),
);
const EndDate = Maybe(
  Type.String({ maxLength: 40, description: 'must be empty: a new entity’s details are current' }),
);

const { addressType: _type, ...addressFields } = Input.AddressInput.properties;
const PostableAddress = Type.Object(
  { ...addressFields, uniqueIdentifier: Identifier, endDate: EndDate },
  Strict,
);
const PostableOtherAddress = Type.Object(
  {
    ...addressFields,
    uniqueIdentifier: Identifier,
    endDate: EndDate,
    description: Type.String({
      maxLength: 40,
      description: 'the address type: SERVICE, INVOICE, RECORDS or SHAREREGISTER (ours)',
    }),
  },
  Strict,
);
const PostablePostalAddress = Type.Object(
  {
    ...addressFields,
    uniqueIdentifier: Identifier,
    endDate: EndDate,
    postalIsPhysicalAddress: Maybe(Type.Boolean()),
    postalIsRegisteredAddress: Maybe(Type.Boolean()),
  },
  Strict,
);
const PostableEMail = Type.Object(
  { ...Input.EmailInput.properties, uniqueIdentifier: Identifier, emailPurposeDescription: SetByRegister },
  Strict,
);
const PostablePhoneNumber = Type.Object(
  { ...Input.PhoneInput.properties, uniqueIdentifier: Identifier, phonePurposeDescription: SetByRegister },
  Strict,
);
const PostableWebsite = Type.Object(
  {
    url: Input.WebsiteInput.properties.url,
    startDate: Input.WebsiteInput.properties.startDate,
    uniqueIdentifier: Identifier,
  },
  Strict,
);
const PostableTradingName = Type.Object(
  { ...Input.TradingNameInput.properties, uniqueIdentifier: Identifier, endDate: EndDate },
  Strict,
);
const PostableIndustryClassification = Type.Object(
  {
    ...Input.ClassificationInput.properties,
    uniqueIdentifier: Identifier,
    classificationDescription: SetByRegister,
  },
  Strict,
);
const { roleAddress: _roleAddress, ...roleFields } = Input.RoleInput.properties;
const PostableRole = Type.Object(
  {
    ...roleFields,
    uniqueIdentifier: Identifier,
    roleAddress: Type.Optional(Type.Array(PostableAddress, { maxItems: 5 })),
    asicDirectorshipYn: SetByRegister,
    asicName: SetByRegister,
    acn: SetByRegister,
    roleAsicAddress: SetByRegister,
  },
  Strict,
);

export const PostableEntityInput = Type.Object(
  {
    entityTypeCode: Type.String({ maxLength: 40, description: 'Sole_Trader, Partnership or Trading_Trust' }),
    entityName: Type.String({ minLength: 1, maxLength: 200 }),
    emailAddress: List(PostableEMail),
    registeredAddress: List(PostableAddress),
    postalAddress: List(PostablePostalAddress),
    physicalAddress: List(PostableAddress),
    principalPlaceOfActivity: List(PostableAddress),
    otherAddress: List(PostableOtherAddress),
    phoneNumber: List(PostablePhoneNumber),
    website: List(PostableWebsite),
    tradingNames: List(PostableTradingName),
    industryClassification: List(PostableIndustryClassification),
    privacySettings: Type.Optional(Input.PrivacyInput),
    roles: List(PostableRole),
    // Set by the register (domain/postable.ts REGISTER_SETS): named, refused with a value.
    nzbn: SetByRegister,
    entityStatusCode: SetByRegister,
    entityTypeDescription: SetByRegister,
    entityStatusDescription: SetByRegister,
    registrationDate: SetByRegister,
    startDate: SetByRegister,
    sourceRegister: SetByRegister,
    sourceRegisterUniqueIdentifier: SetByRegister,
    gstStatus: SetByRegister,
    gstEffectiveDate: SetByRegister,
    lastUpdatedDate: SetByRegister,
    locationIdentifier: SetByRegister,
    australianBusinessNumber: SetByRegister,
    australianCompanyNumber: SetByRegister,
    australianServiceAddress: SetByRegister,
    entityNames: SetByRegister,
    entityStatus: SetByRegister,
    company: SetByRegister,
    supportingInformation: SetByRegister,
  },
  {
    ...Strict,
    examples: [
      {
        entityTypeCode: 'Sole_Trader',
        entityName: 'Sandbox Example Trader',
        phoneNumber: [{ phonePurpose: 'Primary', phoneAreaCode: '9', phoneNumber: '3771234' }],
        roles: [{ roleType: 'Sole Trader', rolePerson: { firstName: 'Aroha', lastName: 'Example' } }],
      },
    ],
  },
);
export type PostableEntityInput = Static<typeof PostableEntityInput>;
