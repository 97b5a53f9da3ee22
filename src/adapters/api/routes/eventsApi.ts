import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { EventRecord, EventStore } from '../../../app/webhooks/endpointPorts.ts';
import { getEvent, listEvents } from '../../../app/webhooks/listEvents.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { EventList, EventParams, EventResponse, ListEventsQuery } from '../endpointSchemas.ts';
import { merchantPlugin, merchantRoutes, pageOf } from '../merchantRoutes.ts';

/** An event as the API shows it: its webhook body, parsed from the very bytes every delivery sends. */
export function eventResponse(event: EventRecord) {
  return {
    id: event.id,
    event: event.type,
    created_at: event.createdAt.toISOString(),
    payment_id: event.paymentId,
    subscription_id: event.subscriptionId,
    livemode: event.mode === 'live',
    data: JSON.parse(event.payload) as Record<string, unknown>,
  };
}

const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/**
 * The events API (decision 0058), scope `events:read`: the events of the calling key's mode, to reconcile what a
 * receiver missed; each event's id is its webhooks' `webhook-id`.
 */
export function eventsApi(deps: ApiDeps & { readonly events: EventStore }): FastifyPluginAsyncZod {
  return merchantPlugin(deps, (app) => {
    const routes = merchantRoutes(app, 'events');
    routes.get(
      '/payments/api/events/',
      'events:read',
      'List events',
      {
        description: 'Newest first; kept 30 days at least (nothing prunes them today).',
        querystring: ListEventsQuery,
        response: { 200: EventList },
      },
      async ({ query }, { merchant, mode }) => {
        const { events, nextCursor } = await listEvents(deps, merchant.id, mode, {
          type: query.type,
          createdAfter: dateOf(query.created_after),
          createdBefore: dateOf(query.created_before),
          ...pageOf(query),
        });
        return { events: events.map(eventResponse), next_cursor: nextCursor };
      },
    );
    routes.get(
      '/payments/api/events/:event_id/',
      'events:read',
      'Show an event',
      { params: EventParams, response: { 200: EventResponse } },
      async ({ params }, { merchant, mode }) =>
        eventResponse(await getEvent(deps, merchant.id, mode, params.event_id)),
    );
  });
}
