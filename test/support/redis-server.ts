import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

/** The `redis-server` binary on this machine, if any (tests that need one skip without it). */
export const redisServerBinary: string | undefined = (() => {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
})();

/** A port nobody listens on right now. */
export { freePort } from './ports.ts';

/** Sends one inline command on a fresh connection; resolves with the first reply line, or undefined. */
function send(port: number, command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const finish = (reply: string | undefined) => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(1000, () => finish(undefined));
    socket.once('error', () => finish(undefined));
    socket.once('close', () => finish(undefined));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => finish(data.toString('utf8').split('\r\n')[0]));
  });
}

/**
 * A throwaway redis-server of the test's own, on its own port, with nothing persisted: the tests stop
 * and start it at will (never the machine's shared Redis).
 */
export class TestRedis {
  private child: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (!redisServerBinary) throw new Error('redis-server is not installed');
    const child = spawn(
      redisServerBinary,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    const exited = once(child, 'exit');
    for (let i = 0; i < 200; i++) {
      if ((await send(this.port, 'PING')) === '+PONG') return;
      const early = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50, 'wait'))]);
      if (early !== 'wait') throw new Error(`redis-server on port ${this.port} exited at start`);
    }
    throw new Error(`redis-server on port ${this.port} did not answer PING`);
  }

  /** Ends the server with a signal (SIGKILL: nothing is closed cleanly) and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
    this.child = undefined;
  }

  /** A clean `SHUTDOWN NOSAVE`: Redis closes every client connection and exits. */
  async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    await send(this.port, 'SHUTDOWN NOSAVE');
    await exited;
    this.child = undefined;
  }

  /** Stops answering without closing anything (SIGSTOP); `resume` continues it. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    await this.kill('SIGKILL');
  }
}
