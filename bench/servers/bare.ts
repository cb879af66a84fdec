import { createServer } from 'node:http';
import { FIXED_ANSWER } from '../fixed-answer.ts';

// The ceiling: node:http answering the fixed JSON with nothing in between.
const server = createServer((_request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(FIXED_ANSWER),
  });
  response.end(FIXED_ANSWER);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
