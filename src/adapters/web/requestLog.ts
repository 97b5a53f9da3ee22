import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { LazyChildLogger } from './requestLogger.ts';

/**
 * Query parameters whose values a log line may show: the ones the API and the checkout read, none of them
 * secret. Any other parameter's value is replaced — a caller that puts its API key or the admin token in the URL
 * (`?api_key=sk_live_…`, `?token=…`) is refused, and its secret must not be kept in the log either.
 */
const LOGGABLE_PARAMS = new Set([
  'amount',
  'currency',
  'status',
  'order_id',
  'created_after',
  'limit',
  'cursor',
  'payment_id',
  'merchant_id',
  'lang',
  'kind',
  'delayed',
  'from',
  'to',
]);

const REDACTED = '[redacted]';

/** The URL as a log line may show it: the path, and the query with every unlisted parameter's value redacted. */
export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  // The usual URL (no query, or only listed parameters) is returned as it is: this runs on every request.
  if (at < 0 || everyParamLoggable(url, at + 1)) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => (isLoggablePair(pair) ? pair : redacted(pair)))
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}

function everyParamLoggable(url: string, from: number): boolean {
  for (let start = from; start <= url.length; ) {
    const end = url.indexOf('&', start);
    const stop = end < 0 ? url.length : end;
    if (!isLoggablePair(url.slice(start, stop))) return false;
    start = stop + 1;
  }
  return true;
}

function isLoggablePair(pair: string): boolean {
  const equals = pair.indexOf('=');
  // A bare word (`?sk_live_…`) may be the secret itself.
  if (equals < 0) return pair === '' || LOGGABLE_PARAMS.has(safeDecode(pair));
  return LOGGABLE_PARAMS.has(safeDecode(pair.slice(0, equals)));
}

function redacted(pair: string): string {
  const equals = pair.indexOf('=');
  return equals < 0 ? REDACTED : `${pair.slice(0, equals)}=${REDACTED}`;
}

function safeDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * One log line per request, on completion, with what the incoming line would have said (Fastify's two lines
 * per request were a large share of a request's CPU: docs/performance.md), and the URL stripped of anything secret.
 * What else must see every completed response (the latency histogram) is told here too: Fastify calls this for
 * every response, and a hook of its own would cost another pass per request.
 */
export class OneLinePerRequest extends LogController {
  constructor(private readonly alsoOnCompletion?: (request: FastifyRequest, reply: FastifyReply) => void) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    this.alsoOnCompletion?.(request, reply);
    const log = reply.log;
    // Through the parent while the request's own logger was never needed (requestLogger.ts): the request id is
    // then in the line, as the child's bindings would have put it (Fastify's label for it, `reqId`).
    const parent = log instanceof LazyChildLogger ? log.plainParent() : undefined;
    const line = {
      reqId: parent ? request.id : undefined,
      method: request.method,
      url: loggableUrl(request.url),
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      merchant: request.merchant?.id,
      mode: request.keyMode,
    };
    const to = parent ?? log;
    if (error) to.error({ ...line, err: error }, 'request errored');
    else to.info(line, 'request completed');
  }
}
