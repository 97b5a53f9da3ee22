import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ApiKeyRecord } from '../../app/merchants/ports.ts';
import { API_KEY_SCOPES } from '../../domain/apiKeyScopes.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { csrfField, type PageContext, time } from './renderDashboard.ts';

/**
 * The developer page's restricted keys (decision 0056): those that work, each with its scopes, when it was last
 * used and a revoke button, then the form that makes one. Scopes are shown by their API names, in every
 * language: they are what the API reference and an integration's documentation call them.
 */
export function restrictedKeysSection(
  ctx: PageContext,
  signedIn: SignedIn,
  keys: readonly ApiKeyRecord[],
): SafeHtml {
  const k = ctx.t.keys;
  const d = ctx.t.developers;
  const rows = keys.map(
    (key) => html`<tr>
  <td>${key.name}</td>
  <td><code>${key.keyPrefix}…</code></td>
  <td>${key.mode}</td>
  <td>${key.scopes.map((scope, i) => html`${i > 0 ? ', ' : null}<code>${scope}</code>`)}</td>
  <td>${key.lastUsedAt ? time(key.lastUsedAt) : k.never}</td>
  <td>${key.expiresAt ? time(key.expiresAt) : k.noEnd}</td>
  <td><form method="post" action="/dashboard/developers/keys/${key.id}/revoke">${csrfField(signedIn)}<button type="submit" class="link" aria-label="${format(k.revokeNamed, { name: key.name ?? '' })}">${k.revoke}</button></form></td>
</tr>`,
  );
  const table =
    keys.length === 0
      ? html`<p class="muted">${k.none}</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${k.restricted}"><table><thead><tr><th scope="col">${k.name}</th><th scope="col">${d.key}</th><th scope="col">${d.mode}</th><th scope="col">${k.scopes}</th><th scope="col">${k.lastUsed}</th><th scope="col">${k.expires}</th><th scope="col"><span class="visually-hidden">${d.action}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return html`<h2>${k.restricted}</h2>
<p class="muted">${k.hint}</p>
${table}
<form class="stack card" method="post" action="/dashboard/developers/keys">
  ${csrfField(signedIn)}
  <h3>${k.create}</h3>
  <label for="key-name">${k.name}</label>
  <input id="key-name" name="name" required maxlength="100">
  <label for="key-mode">${d.mode}</label>
  <select id="key-mode" name="mode"><option value="live">${ctx.t.list.live}</option><option value="test">${ctx.t.list.test}</option></select>
  <fieldset>
    <legend>${k.scopes}</legend>
    ${API_KEY_SCOPES.map(
      (scope) =>
        html`<label class="choice"><input type="checkbox" name="scope-${scope}" value="on"> <code>${scope}</code></label>`,
    )}
  </fieldset>
  <label for="key-expires">${k.expires} <span class="muted">${k.expiresHint}</span></label>
  <input id="key-expires" name="expires_on" type="date">
  <button type="submit">${k.createButton}</button>
</form>`;
}
