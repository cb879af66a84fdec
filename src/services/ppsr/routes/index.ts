import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { convertToCurrentKey } from '../store/key-conversion.ts';
import { accountRoutes } from './account.ts';
import { Processing } from './processing.ts';
import { searchRoutes } from './search.ts';
import { statementRoutes } from './statements.ts';
import { answerHeaders } from './support.ts';

/** The secured interests register's operations in one environment. */
export const ppsrRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  // What is kept in an old form or under a previous server key is brought under the current key before
  // serving. A failure (the database away) does not stop the start: verifying still accepts every form
  // whose keys are configured, and the next start converts the rest.
  try {
    const done = await convertToCurrentKey(context.database.pool, context.serverKeys);
    if (done.verifiers + done.answers > 0) {
      // A new sandbox's seeded verifiers are unkeyed by design: wrapping them is routine, not news.
      const level = done.answers > 0 || done.underPreviousKeys > 0 ? 'info' : 'debug';
      app.log[level](
        { environment: context.environment, ...done, serverKey: context.serverKeys.current.id },
        'ppsr: PIN verifiers and kept answers converted to the current server key',
      );
    }
    if (done.unopenable > 0) {
      app.log.warn(
        { environment: context.environment, unopenable: done.unopenable },
        'ppsr: kept answers sealed with a server key no longer configured: give it back in RSG_SERVER_SECRET_PREVIOUS',
      );
    }
  } catch (error) {
    app.log.warn(
      { environment: context.environment, err: error },
      'ppsr: converting to the current server key failed; the next start tries again',
    );
  }
  // Published (version 1): every answer's Service-Version, correlation id and echoed request id.
  app.addHook('onSend', async (request, reply, payload) => {
    answerHeaders(request, reply);
    return payload;
  });
  const processing = new Processing(context, {
    platformTimeoutMs: context.settings.platformTimeoutMs ?? 180_000,
    sandboxDelayMs: context.settings.sandboxDelayMs ?? 0,
  });
  statementRoutes(app, context, processing);
  searchRoutes(app, context, processing);
  accountRoutes(app, context, processing);
};
