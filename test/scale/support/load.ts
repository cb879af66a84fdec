import http from 'node:http';

/**
 * A bounded closed-loop load through the load balancer: `concurrency` loops, each a new connection per
 * request (as many short-lived clients would), until stopped, `maxRequests` are sent or `maxMs` pass.
 */
export interface Sent {
  kind: string;
  method: string;
  status: number;
  /** The gateway nginx used (its X-Upstream header: several when it passed the request on). */
  upstream: string;
  error?: string;
  body: string;
}

export interface Call {
  kind: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** The statuses that count as success. */
  ok: number[];
}

export function send(base: string, key: string, call: Call): Promise<Sent> {
  return new Promise((resolve) => {
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    const request = http.request(
      `${base}${call.path}`,
      {
        method: call.method,
        agent: false,
        headers: {
          'Ocp-Apim-Subscription-Key': key,
          connection: 'close',
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            kind: call.kind,
            method: call.method,
            status: response.statusCode ?? 0,
            upstream: String(response.headers['x-upstream'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) =>
          resolve({
            kind: call.kind,
            method: call.method,
            status: 0,
            upstream: '',
            error: error.message,
            body: '',
          }),
        );
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error('timed out')));
    request.on('error', (error) =>
      resolve({
        kind: call.kind,
        method: call.method,
        status: 0,
        upstream: '',
        error: error.message,
        body: '',
      }),
    );
    request.end(payload);
  });
}

export class Load {
  readonly results: Array<Sent & { ok: boolean }> = [];
  inFlight = 0;
  private stopped = false;
  private sent = 0;
  private done: Promise<void> | undefined;

  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly next: (n: number) => Call,
    private readonly options: { concurrency: number; maxRequests: number; maxMs: number },
  ) {}

  start(): this {
    const deadline = Date.now() + this.options.maxMs;
    const loop = async () => {
      while (!this.stopped && this.sent < this.options.maxRequests && Date.now() < deadline) {
        const call = this.next(this.sent++);
        this.inFlight++;
        const result = await send(this.base, this.key, call);
        this.inFlight--;
        this.results.push({ ...result, ok: call.ok.includes(result.status) });
      }
    };
    this.done = Promise.all(Array.from({ length: this.options.concurrency }, loop)).then(() => {});
    return this;
  }

  /** Resolves once `count` more answers have come back (or the load ended). */
  async waitForMore(count: number): Promise<void> {
    const target = this.results.length + count;
    while (this.results.length < target && !this.stopped && this.sent < this.options.maxRequests) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  get failed() {
    return this.results.filter((r) => !r.ok);
  }
}
