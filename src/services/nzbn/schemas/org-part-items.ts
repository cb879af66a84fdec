/**
 * The items of an organisation part as a client sends them — the published OrganisationPartPurpose,
 * OrganisationPartAddress, OrganisationPartPhoneNumber, OrganisationPartEmail and
 * OrganisationPartMetadata, whose `uniqueIdentifier` is the register's to give (a PUT of the whole part
 * that sends one back keeps it) and whose published values are read in any case — and the published
 * ShareNzbns of a part's share list. A part's create and replace take these in its lists; the operations
 * on one item take one alone.
 */
import { Type } from '@sinclair/typebox';
import { MAX_SHARED_WITH } from '../domain/organisation-part-items.ts';
import { Nzbn, Strict } from '../domain/schema.ts';
import * as Input from './inputs.ts';

const Text = (maxLength: number) => Type.String({ maxLength });
const OptionalText = (maxLength: number) => Type.Optional(Type.Union([Text(maxLength), Type.Null()]));
const Id = Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()]));
const Values = 'published values, any case';

export const PartPurposeInput = Type.Object(
  {
    uniqueIdentifier: Id,
    purpose: Type.String({ maxLength: 40, description: `E_INVOICING, OTHER or LOCATIONARRIVAL (${Values})` }),
    purposeDescription: OptionalText(200),
  },
  { ...Strict, examples: [{ purpose: 'LOCATIONARRIVAL', purposeDescription: 'Goods inwards' }] },
);

export const PartAddressInput = Type.Object(
  {
    ...Input.AddressInput.properties,
    uniqueIdentifier: Id,
    addressType: Type.String({
      maxLength: 20,
      description: `POSTAL, PHYSICAL, DELIVERY or INVOICE (${Values})`,
    }),
  },
  {
    ...Strict,
    examples: [{ addressType: 'DELIVERY', address1: '12 Wharf Road', address3: 'Napier', postCode: '4110' }],
  },
);

export const PartPhoneInput = Type.Object(
  { ...Input.PhoneInput.properties, uniqueIdentifier: Id },
  { ...Strict, examples: [{ phoneAreaCode: '6', phoneNumber: '8351234' }] },
);

export const PartEmailInput = Type.Object(
  {
    uniqueIdentifier: Id,
    emailAddress: Input.EmailInput.properties.emailAddress,
    emailPurpose: Type.Optional(
      Type.Union([
        Type.String({ maxLength: 40, description: `INVOICE_ADDRESS or OTHER (${Values})` }),
        Type.Null(),
      ]),
    ),
    emailPurposeDescription: OptionalText(200),
    startDate: Input.EmailInput.properties.startDate,
  },
  {
    ...Strict,
    examples: [
      {
        emailAddress: 'invoices@organisation-parts.sandbox.example',
        emailPurpose: 'INVOICE_ADDRESS',
        emailPurposeDescription: 'Invoices',
      },
    ],
  },
);

export const PartMetadataInput = Type.Object(
  {
    uniqueIdentifier: Id,
    key: Type.String({ minLength: 1, maxLength: 100 }),
    value: Text(500),
    startDate: Input.EmailInput.properties.startDate,
  },
  { ...Strict, examples: [{ key: 'dock', value: '7' }] },
);

/** The published ShareNzbns as a request: business numbers to share the part with, or to stop sharing it with. */
export const ShareNzbnsInput = Type.Object(
  {
    nzbns: Type.Array(Type.String({ maxLength: 20 }), {
      minItems: 1,
      maxItems: MAX_SHARED_WITH,
      description: 'Business numbers of entities the register holds',
    }),
  },
  { ...Strict, examples: [{ nzbns: ['9429000001007'] }] },
);

/** The published ShareNzbns as answered: the part's share list as it then stands. */
export const ShareNzbns = Type.Object({ nzbns: Type.Array(Nzbn) }, Strict);
