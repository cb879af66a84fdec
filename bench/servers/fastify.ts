import Fastify from 'fastify';
import { FIXED_ANSWER } from '../fixed-answer.ts';

// For reference: the framework alone, no gateway work. Separates Fastify's cost from ours.
const app = Fastify({ logger: false });
app.get('/sandbox/nzbn/v5/fixed', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(FIXED_ANSWER),
);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
