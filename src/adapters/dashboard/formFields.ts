import type { KeyMode } from '../../domain/credentials.ts';
import { html, type SafeHtml } from '../web/html.ts';
import type { PageContext } from './renderDashboard.ts';

/** A form as the person filled it, and the field its problem is about (marked invalid, described by it). */
export interface FilledForm {
  readonly fields: Readonly<Record<string, string | undefined>>;
  readonly problemField?: string | undefined;
}

/** The attributes that mark a field as the one the form's problem is about. */
export function invalidMark(form: FilledForm, name: string): SafeHtml | null {
  return form.problemField === name ? html` aria-invalid="true" aria-describedby="form-problem"` : null;
}

/** A labelled input holding what was typed, with an optional hint beside its label. */
export function textField(
  form: FilledForm,
  name: string,
  label: string,
  attributes: SafeHtml | null,
  hint?: string,
): SafeHtml {
  return html`<label for="${name}">${label}${hint ? html` <span class="muted">${hint}</span>` : null}</label>
    <input id="${name}" name="${name}" value="${form.fields[name] ?? ''}" ${attributes}${invalidMark(form, name)}>`;
}

/**
 * How "New payment" and "New link" end: where the payer goes after paying (success and cancel URLs), the mode
 * where the merchant has a test key, and the form's button.
 */
export function formEnd(
  ctx: PageContext,
  form: FilledForm & { readonly mode: KeyMode; readonly testAvailable: boolean },
  submitLabel: string,
): SafeHtml {
  const n = ctx.t.newPayment;
  const l = ctx.t.list;
  const option = (mode: KeyMode, label: string) =>
    html`<option value="${mode}"${form.mode === mode ? html` selected` : null}>${label}</option>`;
  return html`${textField(form, 'success_url', n.successUrl, html`type="url" maxlength="2048"`, n.urlHint)}
    ${textField(form, 'cancel_url', n.cancelUrl, html`type="url" maxlength="2048"`, n.urlHint)}
    ${
      form.testAvailable
        ? html`<label for="mode">${n.mode}</label>
    <select id="mode" name="mode">${option('live', l.live)}${option('test', l.test)}</select>`
        : html`<input type="hidden" name="mode" value="live">`
    }
    <button type="submit">${submitLabel}</button>`;
}
