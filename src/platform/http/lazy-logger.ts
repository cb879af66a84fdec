import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const call = (logger: FastifyBaseLogger, level: Level, args: unknown[]): void =>
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);

/** pino's own `child` (on its prototype), which a lazy child calls when its request first logs. */
type MakeChild = (this: FastifyBaseLogger, bindings: Bindings, options?: object) => FastifyBaseLogger;

/**
 * Fastify gives every request a child of the app's logger with the request id bound in (pino's `child`:
 * a new logger object and the bindings serialised), yet request logging is off below `debug` and most
 * requests never write a line. This child is made only when the request first logs: the lines, their
 * fields and their redaction are those of `parent.child(bindings, options)`, made then. It is installed
 * on the app's logger by `makeChildrenLazy` below.
 */
export class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bound: Bindings,
    private readonly options: object,
    private readonly makeChild: MakeChild,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.makeChild.call(this.parent, this.bound, this.options);
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

/**
 * Makes `logger.child(...)` return a `LazyRequestLogger`, for this logger and every logger pino derives
 * from it (a pino child is an object whose prototype is its parent, so it inherits the replaced method;
 * the real child is made with pino's own). Call it on the app's logger (`app.log`) right after Fastify
 * made it: Fastify's default child factory then gets a lazy child for each request.
 *
 * Why here and not Fastify's `childLoggerFactory` option: with a factory of one's own Fastify checks
 * the logger it returns on every request (`validateLogger`: an array of method names and a filter over
 * it), which costs more than the lazy child saves (docs/decisions/0002-gateway-per-request-costs.md).
 */
export function makeChildrenLazy(logger: FastifyBaseLogger): void {
  const makeChild = logger.child as MakeChild;
  Object.defineProperty(logger, 'child', {
    configurable: true,
    writable: true,
    value: function lazyChild(this: FastifyBaseLogger, bindings: Bindings, options?: object) {
      return new LazyRequestLogger(this, bindings, options ?? {}, makeChild);
    },
  });
}
