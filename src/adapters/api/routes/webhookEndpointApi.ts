import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebhookEndpointStore } from '../../../app/webhooks/endpointPorts.ts';
import { DEFAULT_SECRET_OVERLAP_MS } from '../../../app/webhooks/rotateWebhookSecret.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateEndpointSecret,
  updateWebhookEndpoint,
  type WebhookEndpointInput,
} from '../../../app/webhooks/webhookEndpoints.ts';
import { parseDuration } from '../../../domain/duration.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { ALL_EVENT_TYPES, type WebhookEndpoint } from '../../../domain/webhookEndpoint.ts';
import type { ApiDeps } from '../apiDeps.ts';
import {
  CreateEndpointBody,
  DeletedEndpoint,
  EndpointList,
  EndpointParams,
  EndpointWithSecret,
  RotateSecretBody,
  UpdateEndpointBody,
  WebhookEndpointResponse,
} from '../endpointSchemas.ts';
import { merchantPlugin, merchantRoutes } from '../merchantRoutes.ts';
import { ErrorBody } from '../schemas.ts';

/** An endpoint as the API shows it: never its secret, which is answered once, on create and rotate. */
export function endpointResponse(endpoint: WebhookEndpoint, now: Date) {
  const overlap = endpoint.previousSecret;
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes === 'all' ? [ALL_EVENT_TYPES] : [...endpoint.eventTypes],
    enabled: endpoint.enabled,
    livemode: endpoint.mode === 'live',
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
    previous_secret_expires_at:
      overlap && overlap.until.getTime() > now.getTime() ? overlap.until.toISOString() : null,
  };
}

function inputOf(body: {
  url?: string | undefined;
  description?: string | undefined;
  event_types?: string[] | undefined;
  enabled?: boolean | undefined;
}): WebhookEndpointInput {
  return {
    url: body.url,
    description: body.description,
    eventTypes: body.event_types,
    enabled: body.enabled,
  };
}

/** The rotation's overlap as the body gives it (`"24h"`, `"30m"`, `"0"`), by default 24 hours. */
export function overlapOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SECRET_OVERLAP_MS;
  const ms = parseDuration(text);
  if (ms === undefined) throw new ValidationError('overlap', 'must be a duration such as 0, 30m or 24h');
  return ms;
}

/**
 * A merchant's webhook endpoints (decision 0058), scope `webhooks:manage`, each call within the calling key's
 * mode: made, listed, shown, changed (URL, description, event types, enabled), secret rotated, deleted.
 */
export function webhookEndpointApi(
  deps: ApiDeps & { readonly webhookEndpoints: WebhookEndpointStore },
): FastifyPluginAsyncZod {
  const rules = { ...deps, webhookAllowPrivate: deps.config.webhookAllowPrivate };
  return merchantPlugin(deps, (app) => {
    const routes = merchantRoutes(app, 'webhook endpoints');
    const path = '/payments/api/webhook_endpoints/';
    routes.post(
      path,
      'webhooks:manage',
      'Create a webhook endpoint',
      {
        description:
          "Its signing secret (whsec_…) is answered this once. The endpoint receives the events of the calling key's mode.",
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecret, 409: ErrorBody, 415: ErrorBody },
      },
      async ({ body, log }, { merchant, mode }, reply) => {
        const endpoint = await createWebhookEndpoint(rules, merchant.id, mode, inputOf(body));
        log.info({ endpoint: endpoint.id }, 'webhook endpoint created');
        const now = deps.clock.now();
        return reply.status(201).send({ ...endpointResponse(endpoint, now), secret: endpoint.secret });
      },
    );
    routes.get(
      path,
      'webhooks:manage',
      'List webhook endpoints',
      { response: { 200: EndpointList } },
      async (_request, { merchant, mode }) => {
        const now = deps.clock.now();
        const endpoints = await deps.webhookEndpoints.list(merchant.id, mode);
        return { webhook_endpoints: endpoints.map((endpoint) => endpointResponse(endpoint, now)) };
      },
    );
    routes.get(
      `${path}:endpoint_id/`,
      'webhooks:manage',
      'Show a webhook endpoint',
      { params: EndpointParams, response: { 200: WebhookEndpointResponse } },
      async ({ params }, { merchant, mode }) =>
        endpointResponse(
          await getWebhookEndpoint(deps, merchant.id, mode, params.endpoint_id),
          deps.clock.now(),
        ),
    );
    routes.patch(
      `${path}:endpoint_id/`,
      'webhooks:manage',
      'Change a webhook endpoint',
      {
        description:
          'Only the fields given change. Disabling keeps what it is owed until it is enabled again.',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: WebhookEndpointResponse, 415: ErrorBody },
      },
      async ({ params, body, log }, { merchant, mode }) => {
        const updated = await updateWebhookEndpoint(
          rules,
          merchant.id,
          mode,
          params.endpoint_id,
          inputOf(body),
        );
        log.info({ endpoint: updated.id, enabled: updated.enabled }, 'webhook endpoint changed');
        return endpointResponse(updated, deps.clock.now());
      },
    );
    routes.post(
      `${path}:endpoint_id/rotate-secret/`,
      'webhooks:manage',
      "Rotate a webhook endpoint's signing secret",
      {
        description:
          "The new secret is answered this once. Until the overlap ends, webhooks to the endpoint carry two signatures: the new and the old secret's.",
        params: EndpointParams,
        body: RotateSecretBody,
        response: { 200: EndpointWithSecret, 415: ErrorBody },
      },
      async ({ params, body, log }, { merchant, mode }) => {
        const overlapMs = overlapOf(body?.overlap);
        const rotated = await rotateEndpointSecret(deps, merchant.id, mode, params.endpoint_id, overlapMs);
        log.info({ endpoint: rotated.id }, 'webhook endpoint secret rotated');
        return { ...endpointResponse(rotated, deps.clock.now()), secret: rotated.secret };
      },
    );
    routes.delete(
      `${path}:endpoint_id/`,
      'webhooks:manage',
      'Delete a webhook endpoint',
      {
        description:
          'Nothing more is sent to it, not even retries still owed; the events stay in the events API.',
        params: EndpointParams,
        response: { 200: DeletedEndpoint },
      },
      async ({ params, log }, { merchant, mode }) => {
        await deleteWebhookEndpoint(deps, merchant.id, mode, params.endpoint_id);
        log.info({ endpoint: params.endpoint_id }, 'webhook endpoint deleted');
        return { id: params.endpoint_id, deleted: true as const };
      },
    );
  });
}
