import { OpenApi as ServiceOpenApi } from '../../../support/openapi.ts';
import { BASE, type NzbnTest } from './api.ts';

/**
 * The register's own OpenAPI document (test/support/openapi.ts): answers are checked against it, the
 * status documented for the operation and the body valid against its schema, whose objects are closed.
 */
export type OpenApi = ServiceOpenApi;
export const OpenApi = {
  load: (t: NzbnTest): Promise<ServiceOpenApi> => ServiceOpenApi.fetch(t.gateway.app, BASE),
};
