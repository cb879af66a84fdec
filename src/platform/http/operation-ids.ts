import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * A register's operation ids, from one table of its own (`'METHOD /path'` to the name, the path as the
 * OpenAPI document spells it): an `onRoute` hook on the register's scope gives each route its
 * `operationId`, so the document names every operation and generated clients name their methods after
 * them. A documented route the table does not name fails at start-up (and so does the export), as does
 * a name given twice: no operation goes unnamed, none is named by accident.
 */
export type OperationIds = Readonly<
  Record<`${'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'} /${string}`, string>
>;

const NAMED_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);

/** Fastify's `/offer/:offerNumber` as OpenAPI spells it: `/offer/{offerNumber}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function nameOperations(scope: FastifyInstance, ids: OperationIds): void {
  const names = Object.values(ids);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new Error(`operation id ${twice} is given to two operations`);
  // The register's own path: the scope's prefix (`/sandbox/ppsr/v2`) is not the operation's.
  const base = scope.prefix;
  scope.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    if (methods.length !== 1 || !NAMED_METHODS.has(methods[0]!)) return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    if (schema.hide === true) return;
    const key =
      `${methods[0]} ${openApiPath(route.url.startsWith(base) ? route.url.slice(base.length) : route.url)}` as keyof OperationIds;
    const id = ids[key];
    if (id === undefined) throw new Error(`${key} has no operation id: name it in the register's table`);
    // A new schema object: routes may share one (two paths of the same operation).
    route.schema = { ...schema, operationId: id };
  });
}
