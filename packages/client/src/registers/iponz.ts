/**
 * The IP office (v5), its REST operations under their operation ids (named after the functions the
 * register publishes: client search, patent detail, renewal check, …), and the WSDLs of its SOAP
 * endpoints. The SOAP envelopes themselves (`…Soap`) are `iponz-soap.ts`'s typed methods, one per WSDL
 * operation, not raw methods here.
 */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, etagOf, mediaTypes, operationIds, type paths } from '../generated/iponz.ts';

export type IponzPaths = paths;
type Rest = {
  [Name in keyof typeof operationIds as Name extends `${string}Soap`
    ? never
    : Name]: (typeof operationIds)[Name];
};
export const iponzOperations = Object.fromEntries(
  Object.entries(operationIds).filter(([name]) => !name.endsWith('Soap')),
) as Rest satisfies Record<string, KnownOperation<paths>>;
export const iponz = {
  basePath,
  mediaTypes,
  etagOf,
  operations: iponzOperations,
  paging: pagingOf(1, ['clients'], ['totalResults']),
};
