import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { freePort } from '../../support/ports.ts';

/**
 * The scale-out set-up: N `rsg start` gateways (jobs off), M `rsg worker` processes, one PostgreSQL, one
 * Redis, and nginx as the load balancer, every process a child of this one on 127.0.0.1. Used by
 * scale-out.test.ts; see test/scale/README.md.
 */
export const NGINX = process.env.RSG_NGINX ?? '/usr/sbin/nginx';
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/rsg.js');

export { freePort };

export interface Child {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
}

function spawnChild(name: string, file: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { name, child, output: () => output, exited };
}

/** Waits (vi.waitFor) until `probe` gives a value; a timeout names what was awaited. */
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe().catch(() => undefined);
      if (value === undefined) throw new Error(`timed out waiting for ${what}`);
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

/** A plain GET on a fresh connection; resolves with the status (never throws). */
export function get(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
    request.setTimeout(5000, () => request.destroy());
  });
}

export function rsgEnv(urls: DatabaseUrls, redisUrl: string, extra: Record<string, string> = {}) {
  return {
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: urls.gateway,
    SANDBOX_DATABASE_URL: urls.sandbox,
    PRODUCTION_DATABASE_URL: urls.production,
    REDIS_URL: redisUrl,
    // Five processes of three pools each on a server other test files use at the same time: at the
    // default 10 a pool they could open up to 150 connections, past the machine's PostgreSQL's
    // max_connections (100), and a gateway refused a connection answers 503 (seen in a rolling restart,
    // as the restarted gateway opened its pools). Four a pool is more than the load keeps busy.
    RSG_DB_POOL_SIZE: '4',
    ...extra,
  };
}

/** Sends `signal` to a gateway's or worker's process and resolves with how it ended. */
async function stopChild(
  holder: { process: Child | undefined },
  signal: NodeJS.Signals,
): Promise<number | string> {
  const running = holder.process;
  if (!running) return 'not running';
  running.child.kill(signal);
  const result = await running.exited;
  holder.process = undefined;
  return result;
}

export class Gateway {
  process: Child | undefined;
  /** Every process this gateway has been, oldest first (a restart adds one): their output, for a failure's message. */
  readonly lives: Child[] = [];
  constructor(
    readonly index: number,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** `rsg start --port P` with jobs off; resolves once /readyz answers 200. */
  async start(): Promise<void> {
    const started = spawnChild(
      `gateway ${this.index}`,
      process.execPath,
      [bin, 'start', '--port', String(this.port)],
      {
        ...this.env,
        RSG_JOBS: 'off',
        RSG_METRICS_PORT: '0',
      },
    );
    this.process = started;
    this.lives.push(started);
    let ended = false;
    void started.exited.then(() => {
      ended = true;
    });
    await until(
      `gateway ${this.index} to be ready`,
      async () => {
        if (ended) throw new Error(`gateway ${this.index} exited:\n${started.output()}`);
        return (await get(`http://${this.address}/readyz`)) === 200 ? true : undefined;
      },
      90_000,
    ).catch((error: Error) => {
      throw ended ? new Error(`gateway ${this.index} exited:\n${started.output()}`) : error;
    });
  }

  /** The lines of every life's output that speak of a refusal or a failure (warn level and above). */
  troubles(): string {
    return this.lives
      .flatMap((life, i) =>
        life
          .output()
          .split('\n')
          .filter((line) => /"level":(40|50|60)|503|unavailable|error/i.test(line))
          .map((line) => `gateway ${this.index} (life ${i + 1}): ${line.slice(0, 400)}`),
      )
      .join('\n');
  }

  /** Sends `signal` and resolves with how the process ended. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
    return stopChild(this, signal);
  }
}

export class Worker {
  process: Child | undefined;
  constructor(
    readonly index: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** `rsg worker`; resolves once it reports its sandbox delivery worker. */
  async start(): Promise<void> {
    const started = spawnChild(`worker ${this.index}`, process.execPath, [bin, 'worker'], this.env);
    this.process = started;
    await until(
      `worker ${this.index} to start`,
      async () => {
        if (started.child.exitCode !== null) throw new Error(`worker exited:\n${started.output()}`);
        return /sandbox-nzbn: .*push delivery worker \d+/.test(started.output()) ? true : undefined;
      },
      90_000,
    );
  }

  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
    return stopChild(this, signal);
  }
}

/** The pids whose parent is `pid` (nginx's worker processes), from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * nginx as a non-daemon child with a generated configuration in a temporary folder. The upstream's
 * retry policy is nginx's default, kept on purpose: `proxy_next_upstream error timeout` passes a request
 * to the next gateway when connecting fails or times out, and a non-idempotent one (POST, PATCH, LOCK)
 * only if it was never sent — a POST that may have reached a gateway is never sent twice.
 */
export class Nginx {
  process: Child | undefined;
  readonly down = new Set<number>();
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly gateways: Gateway[],
  ) {}

  static async create(gateways: Gateway[]): Promise<Nginx> {
    const dir = await mkdtemp(path.join(tmpdir(), 'rsg-nginx-'));
    await chmod(dir, 0o755);
    return new Nginx(dir, await freePort(), gateways);
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  config(): string {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    const group = existsSync('/etc/group') && /^nogroup:/m.test(readFileSync('/etc/group', 'utf8'));
    const servers = this.gateways
      .map(
        (g) => `    server ${g.address} max_fails=1 fail_timeout=2s${this.down.has(g.index) ? ' down' : ''};`,
      )
      .join('\n');
    return `# Generated by test/scale/cluster.ts
${root ? `user nobody${group ? ' nogroup' : ''};` : ''}
worker_processes 2;
pid ${this.dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${this.dir}/client_body;
  proxy_temp_path ${this.dir}/proxy;
  fastcgi_temp_path ${this.dir}/fastcgi;
  uwsgi_temp_path ${this.dir}/uwsgi;
  scgi_temp_path ${this.dir}/scgi;
  upstream gateways {
${servers}
  }
  server {
    listen 127.0.0.1:${this.port};
    client_max_body_size 1m;
    client_body_buffer_size 1m;
    location / {
      proxy_pass http://gateways;
      # nginx's default, written out: idempotent requests go to the next gateway on a connection error
      # or time-out; a POST is passed on only if it was never sent (no "non_idempotent").
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      proxy_max_temp_file_size 0;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
  }

  async start(): Promise<void> {
    const file = path.join(this.dir, 'nginx.conf');
    await writeFile(file, this.config());
    const started = spawnChild(
      'nginx',
      NGINX,
      ['-e', 'stderr', '-p', this.dir, '-c', file, '-g', 'daemon off;'],
      process.env,
    );
    this.process = started;
    await until(
      'nginx to listen',
      async () => {
        if (started.child.exitCode !== null) throw new Error(`nginx exited:\n${started.output()}`);
        return (await get(`${this.base}/healthz`)) === 200 ? true : undefined;
      },
      20_000,
    );
  }

  /**
   * Writes the configuration with `down` gateways marked and reloads (SIGHUP). Resolves once every old
   * worker process has exited: from then on no request can reach a gateway marked down.
   */
  async reload(): Promise<void> {
    const master = this.process?.child.pid;
    if (!master) throw new Error('nginx is not running');
    await writeFile(path.join(this.dir, 'nginx.conf'), this.config());
    const old = childrenOf(master);
    process.kill(master, 'SIGHUP');
    await until(
      'nginx to reload',
      async () => {
        const now = childrenOf(master);
        return now.length > 0 && !now.some((pid) => old.includes(pid)) ? true : undefined;
      },
      30_000,
    );
  }

  async stop(): Promise<void> {
    const running = this.process;
    if (!running) return;
    running.child.kill('SIGQUIT');
    await running.exited;
    this.process = undefined;
    await rm(this.dir, { recursive: true, force: true });
  }
}
