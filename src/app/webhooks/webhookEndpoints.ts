import type { KeyMode } from '../../domain/credentials.ts';
import { newWebhookSecret } from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import {
  MAX_WEBHOOK_ENDPOINTS,
  newWebhookEndpointId,
  parseEndpointDescription,
  parseEventTypes,
  type WebhookEndpoint,
} from '../../domain/webhookEndpoint.ts';
import { parseWebhookUrl } from '../../domain/webhookUrl.ts';
import type { Clock } from '../shared/ports.ts';
import { checkWebhookHost, type WebhookUrlRules } from './checkWebhookHost.ts';
import type { WebhookEndpointChanges, WebhookEndpointStore } from './endpointPorts.ts';
import { DEFAULT_SECRET_OVERLAP_MS, MAX_SECRET_OVERLAP_MS } from './rotateWebhookSecret.ts';

/**
 * A merchant's webhook endpoints (decision 0058), managed from the API (scope `webhooks:manage`) and the
 * dashboard: both call these, so they accept and refuse the same input. Each call stays within one mode.
 */
export interface WebhookEndpointDeps extends WebhookUrlRules {
  readonly webhookEndpoints: WebhookEndpointStore;
  readonly clock: Clock;
}

/** An endpoint as asked for; absent fields of an update stay as they are. */
export interface WebhookEndpointInput {
  readonly url?: string | undefined;
  readonly description?: string | undefined;
  /** `["*"]` or absent (on create): every event type. */
  readonly eventTypes?: readonly string[] | undefined;
  readonly enabled?: boolean | undefined;
}

export class WebhookEndpointNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'Webhook endpoint not found');
  }
}

/**
 * The URL checked as a payment's `webhook_url` is: https, no credentials, no internal address or name (SSRF);
 * its host's addresses are checked next (checkWebhookHost), and again at every connection.
 */
function parseUrl(deps: WebhookEndpointDeps, input: string | undefined): string {
  if (input === undefined || input.trim() === '') throw new ValidationError('url', 'is required');
  return parseWebhookUrl('url', input, { allowInsecure: deps.webhookAllowPrivate });
}

/** A new endpoint of `mode`, enabled unless asked otherwise: its record and its secret, shown this once. */
export async function createWebhookEndpoint(
  deps: WebhookEndpointDeps,
  merchantId: string,
  mode: KeyMode,
  input: WebhookEndpointInput,
): Promise<WebhookEndpoint> {
  const [url, description, eventTypes] = checkEvery<[string, string, WebhookEndpoint['eventTypes']]>([
    () => parseUrl(deps, input.url),
    () => parseEndpointDescription(input.description),
    () => parseEventTypes(input.eventTypes),
  ]);
  await checkWebhookHost(deps, 'url', url);
  if ((await deps.webhookEndpoints.list(merchantId, mode)).length >= MAX_WEBHOOK_ENDPOINTS) {
    throw new PaylinkError(
      'CONFLICT',
      `At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per mode: delete one first`,
    );
  }
  const now = deps.clock.now();
  const endpoint: WebhookEndpoint = {
    id: newWebhookEndpointId(),
    merchantId,
    mode,
    url,
    description,
    eventTypes,
    enabled: input.enabled ?? true,
    secret: newWebhookSecret(),
    previousSecret: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.webhookEndpoints.insert(endpoint);
  return endpoint;
}

export async function getWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, 'webhookEndpoints'>,
  merchantId: string,
  mode: KeyMode,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.webhookEndpoints.find(merchantId, mode, endpointId);
  if (!endpoint) throw new WebhookEndpointNotFoundError();
  return endpoint;
}

/** Changes what is given; disabling keeps what the endpoint is owed for when it is enabled again. */
export async function updateWebhookEndpoint(
  deps: WebhookEndpointDeps,
  merchantId: string,
  mode: KeyMode,
  endpointId: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpoint> {
  await getWebhookEndpoint(deps, merchantId, mode, endpointId);
  const [url, description, eventTypes] = checkEvery<
    [string | undefined, string | undefined, WebhookEndpoint['eventTypes'] | undefined]
  >([
    () => (input.url === undefined ? undefined : parseUrl(deps, input.url)),
    () => (input.description === undefined ? undefined : parseEndpointDescription(input.description)),
    () => (input.eventTypes === undefined ? undefined : parseEventTypes(input.eventTypes)),
  ]);
  if (url !== undefined) await checkWebhookHost(deps, 'url', url);
  const changes: WebhookEndpointChanges = {
    url,
    description,
    eventTypes,
    enabled: input.enabled,
  };
  const updated = await deps.webhookEndpoints.update(merchantId, mode, endpointId, changes, deps.clock.now());
  if (!updated) throw new WebhookEndpointNotFoundError();
  return updated;
}

/**
 * A new secret for the endpoint, shown once. Until the overlap ends every webhook to it carries two signatures
 * (new and old, space-separated), so its receiver can switch at any moment within; a rotation during an overlap
 * ends the older secret at once.
 */
export async function rotateEndpointSecret(
  deps: Pick<WebhookEndpointDeps, 'webhookEndpoints' | 'clock'>,
  merchantId: string,
  mode: KeyMode,
  endpointId: string,
  overlapMs: number = DEFAULT_SECRET_OVERLAP_MS,
): Promise<WebhookEndpoint> {
  if (!Number.isSafeInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw new ValidationError('overlap', 'must be a duration from 0 to 30d');
  }
  const now = deps.clock.now();
  const rotated = await deps.webhookEndpoints.rotateSecret(
    merchantId,
    mode,
    endpointId,
    newWebhookSecret(),
    new Date(now.getTime() + overlapMs),
    now,
  );
  if (!rotated) throw new WebhookEndpointNotFoundError();
  return rotated;
}

/** Deleted: listed no more, and sent nothing more, not even what it was still owed. */
export async function deleteWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, 'webhookEndpoints' | 'clock'>,
  merchantId: string,
  mode: KeyMode,
  endpointId: string,
): Promise<void> {
  if (!(await deps.webhookEndpoints.delete(merchantId, mode, endpointId, deps.clock.now()))) {
    throw new WebhookEndpointNotFoundError();
  }
}
