import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { PaymentLink } from '../../domain/paymentLink.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { textField } from './formFields.ts';
import {
  csrfField,
  type PageContext,
  problemBox,
  type SignedInPageInput,
  signedInPage,
} from './renderDashboard.ts';

/** The edit form's fields, as posted: what a refused form shows again. */
export const EDIT_FIELDS = ['title', 'description', 'max_uses', 'ends_on'] as const;
export type EditFields = Readonly<Partial<Record<(typeof EDIT_FIELDS)[number], string>>>;

/** A link's editable fields as the form shows them first: its end as the UTC day it falls on. */
export function editFieldsOf(link: PaymentLink): EditFields {
  return {
    title: link.title,
    description: link.description ?? '',
    max_uses: link.maxUses === null ? '' : String(link.maxUses),
    ends_on: link.endsAt ? link.endsAt.toISOString().slice(0, 10) : '',
  };
}

const modeQuery = (link: PaymentLink) => (link.mode === 'test' ? '?mode=test' : '');

/**
 * A link's edit form (decision 0053): its title, description, number of payments and last day. Its price is not
 * there: the page says why.
 */
export function renderEditLink(
  input: SignedInPageInput & {
    link: PaymentLink;
    fields: EditFields;
    problem?: string | undefined;
    problemField?: string | undefined;
  },
): string {
  const { ctx, link, fields } = input;
  const e = ctx.t.linkEdit;
  const k = ctx.t.links;
  const form = { fields, problemField: input.problemField };
  const body = html`<div class="card narrow">
  <h1>${e.title}</h1>
  <p class="muted">${e.hint}</p>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/links/${link.id}/edit${modeQuery(link)}">
    ${csrfField(input.signedIn)}
    ${textField(form, 'title', k.linkTitle, html`required maxlength="200"`)}
    <label for="description">${k.description} <span class="muted">${k.optional}</span></label>
    <textarea id="description" name="description" maxlength="2000" rows="3">${fields.description ?? ''}</textarea>
    ${textField(form, 'max_uses', k.maxUses, html`inputmode="numeric" pattern="[0-9]*" autocomplete="off" placeholder="${e.noLimit}"`, e.maxUsesHint)}
    ${textField(form, 'ends_on', k.endsOn, html`type="date"`, k.endsOnHint)}
    <button type="submit">${e.save}</button>
  </form>
  <p><a href="/dashboard/links/${link.id}${modeQuery(link)}">${e.cancel}</a></p>
</div>`;
  return signedInPage(input.signedIn, ctx, e.title, body);
}

/** On a link's page: a way to edit it, and to re-activate it once deactivated. */
export function linkActions(ctx: PageContext, signedIn: SignedIn, link: PaymentLink): SafeHtml {
  const e = ctx.t.linkEdit;
  return html`<p class="actions"><a class="button secondary" href="/dashboard/links/${link.id}/edit${modeQuery(link)}">${e.edit}</a></p>
${
  link.deactivatedAt === null
    ? null
    : html`<form class="card" method="post" action="/dashboard/links/${link.id}/reactivate">
  ${csrfField(signedIn)}
  <input type="hidden" name="mode" value="${link.mode}">
  <p>${e.reactivateHint}</p>
  <button type="submit">${e.reactivate}</button>
</form>`
}`;
}
