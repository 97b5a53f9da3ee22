import type { RenderedEmail } from '../../app/email/ports.ts';
import { html } from '../web/html.ts';

/**
 * What every e-mail to a customer is made of, in the reader's language already (the template translated it):
 * one skeleton for all kinds, so each template is its words and its data, and every message gets the same
 * guarantees — every value escaped, styles inline (mail readers drop <style> and external sheets), nothing
 * loaded from anywhere (decision 0021), and a plain-text part that says everything the HTML says.
 */
export interface EmailContent {
  /** The `lang` of the HTML: the language the message was rendered in. */
  readonly language: string;
  readonly subject: string;
  /** Shown by most inboxes beside the subject; hidden in the body. */
  readonly preheader?: string | undefined;
  readonly heading: string;
  readonly paragraphs: readonly string[];
  /** Label and value pairs: amount, order, date, transaction; a data table (its labels are row headers). */
  readonly facts?: readonly { readonly label: string; readonly value: string }[] | undefined;
  /** The one thing to do: a link (never a form, never a script) to one of our pages. */
  readonly action?: { readonly label: string; readonly url: string } | undefined;
  /** Further links below the action, plainer (the receipt's PDF): our pages too. */
  readonly links?: readonly { readonly label: string; readonly url: string }[] | undefined;
  /** Why the reader gets this message and from whom: a merchant gave their address. */
  readonly footer: readonly string[];
  /**
   * The merchant's brand colour (`#rrggbb`, dark enough for white text: decision 0052) for the button, the links
   * and the card's top rule; absent: Paylink's blue.
   */
  readonly accent?: string | undefined;
}

const COLORS = {
  text: '#1f2933',
  muted: '#52606d',
  rule: '#d9e2ec',
  button: '#1f4fd1',
  background: '#f5f7fa',
};
const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

/** An action's URL must be a web address: a `javascript:` or `data:` URL in a customer's mail is an attack. */
function webUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new Error('an e-mail action must link to an http(s) URL');
  return parsed.toString();
}

/** The accent if it is a plain `#rrggbb` (it goes into a style attribute), else Paylink's blue. */
function accentOf(accent: string | undefined): string {
  return accent !== undefined && /^#[0-9a-fA-F]{6}$/.test(accent) ? accent : COLORS.button;
}

export function renderEmailLayout(content: EmailContent): RenderedEmail {
  const accent = accentOf(content.accent);
  // A merchant's colour also rules the card's top, so its receipt is recognisably its own.
  const topRule = accent === COLORS.button ? '' : `border-top:4px solid ${accent};`;
  const action = content.action && { label: content.action.label, url: webUrl(content.action.url) };
  const facts = content.facts ?? [];
  const links = (content.links ?? []).map((link) => ({ label: link.label, url: webUrl(link.url) }));
  const body = html`<!doctype html>
<html lang="${content.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light">
<title>${content.subject}</title>
</head>
<body style="margin:0;padding:0;background:${COLORS.background};">
${content.preheader ? html`<div style="display:none;max-height:0;overflow:hidden;">${content.preheader}</div>` : ''}
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${COLORS.background};">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid ${COLORS.rule};${topRule}border-radius:8px;">
<tr><td style="padding:28px 28px 8px 28px;${FONT}color:${COLORS.text};">
<h1 style="margin:0 0 16px 0;font-size:22px;line-height:1.3;">${content.heading}</h1>
${content.paragraphs.map((p) => html`<p style="margin:0 0 14px 0;font-size:16px;line-height:1.5;">${p}</p>`)}
</td></tr>
${
  facts.length > 0
    ? html`<tr><td style="padding:0 28px 8px 28px;">
<table width="100%" cellpadding="0" cellspacing="0" style="${FONT}font-size:15px;color:${COLORS.text};border-top:1px solid ${COLORS.rule};">
${facts.map(
  (f) =>
    html`<tr><th scope="row" align="left" style="padding:8px 12px 8px 0;font-weight:normal;color:${COLORS.muted};border-bottom:1px solid ${COLORS.rule};">${f.label}</th><td align="right" style="padding:8px 0;border-bottom:1px solid ${COLORS.rule};word-break:break-all;">${f.value}</td></tr>`,
)}
</table>
</td></tr>`
    : ''
}
${
  action
    ? html`<tr><td align="center" style="padding:16px 28px 24px 28px;">
<a href="${action.url}" style="display:inline-block;padding:12px 24px;background:${accent};color:#ffffff;text-decoration:none;border-radius:6px;${FONT}font-size:16px;font-weight:bold;">${action.label}</a>
<p style="margin:12px 0 0 0;${FONT}font-size:13px;color:${COLORS.muted};word-break:break-all;">${action.url}</p>
</td></tr>`
    : ''
}
${links.map(
  (link) => html`<tr><td align="center" style="padding:0 28px 20px 28px;${FONT}font-size:15px;">
<a href="${link.url}" style="color:${accent};">${link.label}</a>
</td></tr>`,
)}
<tr><td style="padding:16px 28px 24px 28px;border-top:1px solid ${COLORS.rule};${FONT}font-size:13px;line-height:1.5;color:${COLORS.muted};">
${content.footer.map((line) => html`<p style="margin:0 0 6px 0;">${line}</p>`)}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(facts.length > 0 ? [...facts.map((f) => `${f.label}: ${f.value}`), ''] : []),
    ...(action ? [`${action.label}: ${action.url}`, ''] : []),
    ...links.flatMap((link) => [`${link.label}: ${link.url}`, '']),
    '--',
    ...content.footer,
  ].join('\n');
  return { subject: content.subject, text, html: body.toString() };
}
