import type { KeyMode } from '../../domain/credentials.ts';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import type { WebhookEndpoint } from '../../domain/webhookEndpoint.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Message } from '../web/i18n.ts';
import { csrfField, type SignedInPageInput, signedInPage, time } from './renderDashboard.ts';

/**
 * The merchant's webhook endpoints of one mode (decision 0058): each with its URL, the events it wants, whether it
 * is on, the end of a rotation's overlap, and its actions (on/off, rotate, delete); then the form that adds one.
 * Event types are shown by their API names in every language: they are what a receiver's code switches on.
 */
export function renderWebhookEndpoints(
  input: SignedInPageInput & {
    readonly mode: KeyMode;
    readonly endpoints: readonly WebhookEndpoint[];
    readonly now: Date;
  },
): string {
  const { signedIn, ctx, mode } = input;
  const e = ctx.t.endpoints;
  const action = (endpoint: WebhookEndpoint, path: string, label: string, named: Message) =>
    html`<form method="post" action="/dashboard/developers/webhooks/${endpoint.id}/${path}">${csrfField(signedIn)}<input type="hidden" name="mode" value="${mode}"><button type="submit" class="link" aria-label="${format(named, { url: endpoint.url })}">${label}</button></form>`;
  const rows = input.endpoints.map((endpoint) => {
    const overlap = endpoint.previousSecret;
    return html`<tr>
  <td><code>${endpoint.url}</code>${endpoint.description ? html`<br><span class="muted">${endpoint.description}</span>` : null}</td>
  <td>${endpoint.eventTypes === 'all' ? e.allEvents : endpoint.eventTypes.map((type, i) => html`${i > 0 ? ', ' : null}<code>${type}</code>`)}</td>
  <td>${endpoint.enabled ? e.enabled : e.disabled}</td>
  <td>${overlap && overlap.until > input.now ? html`${e.oldSecretUntil} ${time(overlap.until)}` : '—'}</td>
  <td><div class="actions">${endpoint.enabled ? action(endpoint, 'disable', e.disable, e.disableNamed) : action(endpoint, 'enable', e.enable, e.enableNamed)} ${action(endpoint, 'rotate', e.rotate, e.rotateNamed)} ${action(endpoint, 'delete', e.delete, e.deleteNamed)}</div></td>
</tr>`;
  });
  const modeLink = (other: KeyMode, label: string) =>
    other === mode
      ? html`<strong>${label}</strong>`
      : html`<a href="/dashboard/developers/webhooks?mode=${other}">${label}</a>`;
  const table: SafeHtml =
    input.endpoints.length === 0
      ? html`<p class="muted">${e.none}</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${e.title}"><table><thead><tr><th scope="col">${e.url}</th><th scope="col">${e.events}</th><th scope="col">${e.state}</th><th scope="col">${e.overlap}</th><th scope="col"><span class="visually-hidden">${ctx.t.developers.action}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const body = html`<h1>${e.title}</h1>
<p class="muted">${e.hint}</p>
<p>${modeLink('live', ctx.t.list.live)} · ${modeLink('test', ctx.t.list.test)}</p>
${table}
<form class="stack card" method="post" action="/dashboard/developers/webhooks">
  ${csrfField(signedIn)}
  <input type="hidden" name="mode" value="${mode}">
  <h2>${e.add}</h2>
  <label for="endpoint-url">${e.url}</label>
  <input id="endpoint-url" name="url" type="url" required maxlength="2048" placeholder="https://">
  <label for="endpoint-description">${e.description}</label>
  <input id="endpoint-description" name="description" maxlength="200">
  <fieldset>
    <legend>${e.events} <span class="muted">${e.eventsHint}</span></legend>
    ${PAYMENT_EVENT_TYPES.map(
      (type) =>
        html`<label class="choice"><input type="checkbox" name="event-${type}" value="on"> <code>${type}</code></label>`,
    )}
  </fieldset>
  <button type="submit">${e.addButton}</button>
</form>
<p><a href="/dashboard/developers">${ctx.t.nav.developers}</a></p>`;
  return signedInPage(signedIn, ctx, e.title, body);
}
