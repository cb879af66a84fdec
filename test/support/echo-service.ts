import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../src/gateway/service-context.ts';
import { badRequest } from '../../src/platform/http/errors.ts';
import type { ServiceDefinition, ServiceId } from '../../src/services/contract.ts';
import { SERVICES } from '../../src/services/registry.ts';

/** A fixed JSON answer behind the real gateway: key check, rate limit, usage, metrics. */
export const echoRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  app.get('/echo', async (request) => ({
    ok: true,
    environment: context.environment,
    caller: request.caller,
  }));
  app.get('/me', { config: { threeLegged: true } }, async (request) => ({
    userId: request.caller?.userId,
    mayActOnFixture: await context.identity.mayAct(request.caller, 'entity', '9429041925676'),
  }));
  // Any body or none: what a register's write declares (the gateway audits every route's input).
  app.post('/write', { schema: { body: Type.Union([Type.Object({}), Type.Null()]) } }, async (request) => ({
    ok: true,
    userId: request.caller?.userId ?? null,
  }));
  app.get('/bad', async () => {
    throw badRequest('thing', 'must be a thing');
  });
  app.get('/boom', async () => {
    throw new Error('an unexpected failure with a secret stack');
  });
};

/** The five services, with the echo routes mounted in the ones named. */
export function servicesWithEcho(ids: ServiceId[] = ['nzbn', 'market-rent']): ServiceDefinition[] {
  return SERVICES.map((service) => (ids.includes(service.id) ? { ...service, routes: echoRoutes } : service));
}
