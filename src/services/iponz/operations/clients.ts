/**
 * The register's clients (answered by `GET /clients` and `GET /clients/{client-id}`): the search by name
 * and address (domain/client-search.ts: the five rules), a page of it in the register's one paged
 * envelope, and one client by id; each client in its answer form.
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { parsePage } from '../../../platform/http/pagination.ts';
import { ADDRESS_TYPES, parseClientQuery } from '../domain/client-search.ts';
import { parseClientId } from '../domain/identifiers.ts';
import type { Client } from '../domain/model.ts';
import { PAGING } from '../schemas/operations.ts';
import { findClient, searchClients } from '../store/clients.ts';
import { notFound, pagedAnswer } from './support.ts';

/** A client as answered. */
export function clientJson(client: Client) {
  return {
    clientId: String(client.clientId),
    name: client.name,
    clientType: client.clientType,
    nzbn: client.nzbn,
    addresses: ADDRESS_TYPES.flatMap((type) => {
      const a = client.addresses[type];
      return a
        ? [
            {
              addressType: type,
              addressLine1: a.line1 ?? null,
              addressLine2: a.line2 ?? null,
              addressLine3: a.line3 ?? null,
              city: a.city ?? null,
              postcode: a.postcode ?? null,
              countryCode: a.countryCode ?? 'NZ',
            },
          ]
        : [];
    }),
  };
}

/** The search's parameters as sent: `name`, `address`, `page`, `page-size` (checked here). */
export type ClientSearch = Record<string, unknown> & { name?: unknown; address?: unknown };

/** One page of the clients the search finds, in the register's paged envelope. */
export async function searchClientPage(context: ServiceContext, input: ClientSearch) {
  const query = parseClientQuery(input);
  const paging = parsePage(input, PAGING);
  const found = await searchClients(context.database.pool, query, {
    offset: paging.offset,
    limit: paging.pageSize,
  });
  return pagedAnswer(paging, found.total, 'clients', found.items.map(clientJson));
}

/** One client by its id as sent (`client-id`: the domain's rule names it), or 404. */
export async function clientDetail(context: ServiceContext, input: { clientId: string }) {
  const id = parseClientId(input.clientId);
  const client = await findClient(context.database.pool, id);
  if (!client) throw notFound(`client with id ${id}`);
  return clientJson(client);
}
