import type { WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { type PageContext, time } from './renderDashboard.ts';

/**
 * An event's deliveries to the merchant's webhook endpoints (decision 0058: each a row of its own), as rows under
 * the event's in a webhook log: the endpoint's URL, its last attempt and its delivery state, in the columns the
 * table names (`url`, `attempt`, `answer`, `status`); the others are left empty.
 */
export function endpointDeliveryRows(
  ctx: PageContext,
  entry: WebhookEventWithAttempts,
  columns: readonly ('url' | 'attempt' | 'answer' | 'status' | 'empty')[],
): SafeHtml[] {
  const p = ctx.t.payment;
  return entry.endpointDeliveries.map((delivery) => {
    const last = delivery.lastAttempt;
    const answer = last ? (last.statusCode !== null ? `HTTP ${last.statusCode}` : last.error) : null;
    const cells = columns.map((column) => {
      switch (column) {
        case 'url':
          return html`<td class="endpoint-delivery"><span aria-hidden="true">↳ </span><span class="visually-hidden">${ctx.t.endpoints.deliveryTo} </span><code>${delivery.url}</code></td>`;
        case 'attempt':
          return html`<td>${last ? html`${time(last.startedAt)} · ${answer ?? p.noAnswer}` : html`<span class="muted">${p.noAttempt}</span>`}</td>`;
        case 'answer':
          return html`<td>${last ? (answer ?? p.noAnswer) : '—'}</td>`;
        case 'status':
          return html`<td><span class="status status-delivery-${delivery.deliveryStatus}">${ctx.t.deliveryStatus[delivery.deliveryStatus]}</span></td>`;
        default:
          return html`<td></td>`;
      }
    });
    return html`<tr data-endpoint-delivery="${delivery.endpointId}">${cells}</tr>`;
  });
}
