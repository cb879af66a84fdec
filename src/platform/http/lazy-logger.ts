import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const call = (logger: FastifyBaseLogger, level: Level, args: unknown[]): void =>
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);

/**
 * Fastify gives every request a child of the app's logger with the request id bound in (pino's `child`:
 * a new logger object and the bindings serialised), yet request logging is off below `debug` and most
 * requests never write a line. This child is made only when the request first logs: the lines, their
 * fields and their redaction are those of `parent.child(bindings, options)`, made then. It is Fastify's
 * `childLoggerFactory` option (`requestLoggerFactory` below).
 */
export class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bound: Bindings,
    private readonly options: object,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bound, this.options);
    return this.made;
  }

  get level(): string {
    return this.made ? this.made.level : ((this.options as { level?: string }).level ?? this.parent.level);
  }
  set level(level: string) {
    this.real.level = level;
  }

  // Methods on the prototype, not arrow fields: nothing is allocated per request but this object.
  fatal(...args: unknown[]): void {
    call(this.real, 'fatal', args);
  }
  error(...args: unknown[]): void {
    call(this.real, 'error', args);
  }
  warn(...args: unknown[]): void {
    call(this.real, 'warn', args);
  }
  info(...args: unknown[]): void {
    call(this.real, 'info', args);
  }
  debug(...args: unknown[]): void {
    call(this.real, 'debug', args);
  }
  trace(...args: unknown[]): void {
    call(this.real, 'trace', args);
  }
  silent(...args: unknown[]): void {
    call(this.real, 'silent', args);
  }

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

export function requestLoggerFactory(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: object,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
