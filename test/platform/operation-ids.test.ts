import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { nameOperations, type OperationIds } from '../../src/platform/http/operation-ids.ts';
import { DISCLOSE_OPERATION_IDS } from '../../src/services/disclose/routes/operation-ids.ts';
import { IPONZ_OPERATION_IDS } from '../../src/services/iponz/routes/operation-ids.ts';
import { MARKET_RENT_OPERATION_IDS } from '../../src/services/market-rent/routes/operation-ids.ts';

/**
 * A register's operation ids from its one table: every documented route named (an unnamed one fails the
 * start), no name given twice, and in the committed documents exactly the table — the offers register's
 * published draft names on their published paths.
 */
async function mounted(ids: OperationIds, routes: (app: ReturnType<typeof Fastify>) => void) {
  const app = Fastify();
  await app.register(
    async (scope) => {
      nameOperations(scope, ids);
      routes(scope as never);
    },
    { prefix: '/sandbox/example/v1' },
  );
  return app;
}

describe('nameOperations', () => {
  it('gives each route its id, by its path behind the prefix', async () => {
    const seen: Record<string, unknown> = {};
    const app = Fastify();
    app.addHook('onRoute', (route) => {
      if (route.method === 'GET') seen[route.url] = route;
    });
    await app.register(
      async (scope) => {
        nameOperations(scope, { 'GET /things/{id}': 'getThing' });
        scope.get('/things/:id', { schema: { summary: 'one' } }, async () => ({}));
        // Hidden routes are not operations of the document.
        scope.get('/openapi.json', { schema: { hide: true } }, async () => ({}));
      },
      { prefix: '/sandbox/example/v1' },
    );
    await app.ready();
    const route = seen['/sandbox/example/v1/things/:id'] as { schema: Record<string, unknown> };
    expect(route.schema).toMatchObject({ summary: 'one', operationId: 'getThing' });
    await app.close();
  });

  it('refuses a documented route the table does not name', async () => {
    const app = await mounted({ 'GET /things': 'listThings' }, (scope) => {
      scope.get('/other', async () => ({}));
    }).catch((error: Error) => error);
    const error =
      app instanceof Error
        ? app
        : await app.ready().then(
            () => undefined,
            (e: Error) => e,
          );
    expect(String(error)).toContain('GET /other has no operation id');
  });

  it('refuses a name given twice', async () => {
    const error = await mounted({ 'GET /a': 'same', 'GET /b': 'same' }, () => {}).then(
      (app) =>
        app.ready().then(
          () => undefined,
          (e: Error) => e,
        ),
      (e: Error) => e,
    );
    expect(String(error)).toContain('operation id same is given to two operations');
  });
});

const OPENAPI = path.join(import.meta.dirname, '..', '..', 'packages', 'client', 'openapi');
const idsOf = (register: string) => {
  const document = JSON.parse(readFileSync(path.join(OPENAPI, `${register}.sandbox.json`), 'utf8'));
  const ids: Record<string, string> = {};
  for (const [route, item] of Object.entries(
    document.paths as Record<string, Record<string, { operationId?: string }>>,
  ))
    for (const [method, operation] of Object.entries(item)) {
      if (['get', 'put', 'post', 'delete', 'patch'].includes(method)) {
        ids[`${method.toUpperCase()} ${route}`] = operation.operationId ?? '(none)';
      }
    }
  return ids;
};

describe('the committed documents', () => {
  it('name every operation as the registers’ tables do', () => {
    expect(idsOf('market-rent')).toEqual(MARKET_RENT_OPERATION_IDS);
    expect(idsOf('iponz')).toEqual(IPONZ_OPERATION_IDS);
    expect(idsOf('disclose')).toEqual(DISCLOSE_OPERATION_IDS);
  });

  it('give the offers register’s published draft names to their published operations', () => {
    const ids = idsOf('disclose');
    expect(ids).toMatchObject({
      'GET /offers': 'searchOffers',
      'GET /schemes': 'searchSchemes',
      'GET /offer/{offerNumber}': 'getOffer',
      'GET /offer/{offerNumber}/fund/{fundNumber}': 'getFund',
      'GET /scheme/{schemeNumber}': 'getScheme',
      'GET /new-or-changed-offers': 'getNewOrChangedOffers',
      'GET /new-or-changed-schemes': 'getNewOrChangedSchemes',
      'GET /activities': 'getActivities',
      'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance': 'submitFundCompliance',
      'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance':
        'submitFullPortfolioHoldingsCompliance',
    });
  });
});
