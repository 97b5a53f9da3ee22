import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Authenticated, UnauthorizedError } from '../../app/merchants/authenticateMerchant.ts';
import type { KeyUsage } from '../../app/merchants/keyUsage.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import { mapValueOrPromise, mustWait, type ValueOrPromise } from '../../app/shared/valueOrPromise.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { parseIpAddress } from '../../domain/ipAddress.ts';
import type { BucketDecision, BucketPolicy } from '../../domain/tokenBucket.ts';
import { authenticateRequest, presentedApiKey } from './merchantAuth.ts';

export interface RateLimitDeps {
  readonly store: RateLimitStore;
  /** Per API key; null: not limited. */
  readonly perKey: BucketPolicy | null;
  /** Per client address, for requests without a valid key; null: not limited. */
  readonly perIp: BucketPolicy | null;
  readonly merchants: MerchantStore;
  readonly clock: Clock;
  readonly keyUsage?: KeyUsage | undefined;
  /** Told of each refusal, for the metrics. */
  readonly onRefused?: ((policy: PolicyName) => void) | undefined;
  /** Whether a request to the admin API carries the admin token; absent: there is no admin API. */
  readonly isAdmin?: ((request: FastifyRequest) => boolean) | undefined;
}

export type PolicyName = 'key' | 'ip';

/**
 * Rate limits on the merchant API (docs/decisions/0007-rate-limits.md): a token bucket per API key id for
 * authenticated requests, and a stricter one per client address for the rest (no key, or a wrong one), so
 * guessing keys is slow and one merchant's burst never spends another's allowance. The admin API is not limited
 * for the admin, but every request without its token spends the client address's bucket too: guessing the
 * admin token is as slow as guessing a key.
 *
 * Runs first, in onRequest (before the body is read). Every limited response carries the IETF draft's
 * `RateLimit-Policy` and `RateLimit` fields; a refusal is 429 RATE_LIMITED with `Retry-After`.
 */
export function registerRateLimiting(app: FastifyInstance, deps: RateLimitDeps): void {
  if (!deps.perKey && !deps.perIp) return;
  // Fixed per policy: written once, not per request.
  const policyFields = {
    key: deps.perKey ? policyField('key', deps.perKey) : '',
    ip: deps.perIp ? policyField('ip', deps.perIp) : '',
  };
  // Callback-style, and without a promise when every answer is at hand (a remembered key, buckets in memory):
  // this runs on every request, and its promises were a measurable share of one (docs/performance.md).
  app.addHook('onRequest', (request, reply, done) => {
    // Fastify builds a new routeOptions object at every read: read once.
    const route = request.is404 ? undefined : request.routeOptions.url;
    if (!isLimited(route)) {
      done();
      return;
    }
    const bucket = route?.startsWith('/admin/') ? adminBucket(deps, request) : chooseBucket(deps, request);
    const decided = mapValueOrPromise(bucket, (chosen) => {
      if (!chosen) return undefined;
      return mapValueOrPromise(deps.store.take(chosen.key, chosen.policy, deps.clock.now()), (decision) => {
        reply.header('ratelimit-policy', policyFields[chosen.name]);
        reply.header('ratelimit', limitField(chosen.name, decision));
        if (decision.allowed) return undefined;
        const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
        reply.header('retry-after', String(retryAfterSeconds));
        deps.onRefused?.(chosen.name);
        throw new PaylinkError('RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} s`);
      });
    });
    if (mustWait(decided)) decided.then(() => done(), done);
    else done();
  });
}

interface Bucket {
  readonly name: PolicyName;
  readonly key: string;
  readonly policy: BucketPolicy;
}

/**
 * The merchant and admin APIs, and unknown paths (scanners): `route` is the matched route's pattern, undefined
 * for no route. Health, metrics and documentation are not limited.
 */
function isLimited(route: string | undefined): boolean {
  return route === undefined || route.startsWith('/payments/') || route.startsWith('/admin/');
}

/** The admin is not limited; anyone else trying the admin API spends its address's bucket. */
function adminBucket(deps: RateLimitDeps, request: FastifyRequest): Bucket | undefined {
  if (deps.isAdmin?.(request)) return undefined;
  return addressBucket(deps, request);
}

/** The key's bucket for a request with a valid key, else its address's; at once when the key is remembered. */
function chooseBucket(deps: RateLimitDeps, request: FastifyRequest): ValueOrPromise<Bucket | undefined> {
  if (presentedApiKey(request) === undefined) return addressBucket(deps, request);
  const authentication = authenticateRequest(request, deps);
  if (!mustWait(authentication)) return keyBucket(deps, authentication);
  return authentication.then(
    (found) => keyBucket(deps, found),
    (error: unknown) =>
      // Anything but a wrong key (the database is down …) is the authentication hook's to report, unchanged.
      error instanceof UnauthorizedError ? addressBucket(deps, request) : undefined,
  );
}

/**
 * The bucket of the request's valid key (a function of the module, not a closure made per request): one per
 * merchant and mode, whichever of its keys (the secret key, restricted ones) is used, so making keys does not
 * multiply the allowance (decision 0056).
 */
function keyBucket(deps: RateLimitDeps, { key }: Authenticated): Bucket | undefined {
  return deps.perKey
    ? { name: 'key', key: `key:${key.merchantId}:${key.mode}`, policy: deps.perKey }
    : undefined;
}

function addressBucket(deps: RateLimitDeps, request: FastifyRequest): Bucket | undefined {
  return deps.perIp
    ? { name: 'ip', key: `ip:${clientPartition(request.ip)}`, policy: deps.perIp }
    : undefined;
}

/**
 * One bucket per IPv4 address, and per IPv6 /64: a single host usually owns a whole /64, so counting its
 * addresses one by one would give it 2^64 buckets.
 */
export function clientPartition(ip: string): string {
  const address = parseIpAddress(ip);
  if (!address) return ip;
  if (address.family === 4) return ip;
  // IPv4-mapped (::ffff:a.b.c.d), as dual-stack sockets report IPv4 clients: the IPv4 address itself.
  if (address.value >> 32n === 0xffffn) {
    const v4 = Number(address.value & 0xffffffffn);
    return [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
  }
  return `${(address.value >> 64n).toString(16)}::/64`;
}

/**
 * `"key";q=200;w=2`: a client sending at most q requests per w seconds is never refused. A token bucket allows
 * that: w is the time the bucket takes to refill from empty, rounded up (the draft wants whole seconds).
 */
function policyField(name: PolicyName, policy: BucketPolicy): string {
  const windowSeconds = Math.max(1, Math.ceil(policy.burst / policy.ratePerSecond));
  return `"${name}";q=${Math.floor(policy.burst)};w=${windowSeconds}`;
}

/** `"key";r=150;t=1`: requests that may be sent at once now, and seconds until the bucket is full again. */
function limitField(name: PolicyName, decision: BucketDecision): string {
  return `"${name}";r=${decision.remaining};t=${Math.ceil(decision.fullInMs / 1000)}`;
}
