import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * Each request's logger (`request.log`), made only when something logs through it. Fastify asks for a child
 * logger per request, bound to the request id, and making a pino child is not free; most
 * requests log nothing but their one line, which `OneLinePerRequest` writes through the parent with the request
 * id in it (`plainParent`). A route or hook that logs gets the real child, made then.
 */
export class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  fatal(...args: LogArguments): void {
    this.made().fatal(...args);
  }
  error(...args: LogArguments): void {
    this.made().error(...args);
  }
  warn(...args: LogArguments): void {
    this.made().warn(...args);
  }
  info(...args: LogArguments): void {
    this.made().info(...args);
  }
  debug(...args: LogArguments): void {
    this.made().debug(...args);
  }
  trace(...args: LogArguments): void {
    this.made().trace(...args);
  }
  silent(...args: LogArguments): void {
    this.made().silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }

  /**
   * The parent, while nothing (a line logged through the child, a route's own log level or serializers) sets the
   * child apart from it: a line written there with the request id in it reads as the child's would.
   */
  plainParent(): FastifyBaseLogger | undefined {
    const plain =
      this.#child === undefined && this.options.level === undefined && this.options.serializers === undefined;
    return plain ? this.parent : undefined;
  }

  private made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }
}

/** Fastify's `childLoggerFactory`: a lazy child per request. */
export const lazyChildLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
