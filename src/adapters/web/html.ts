import { Message } from './i18n.ts';

/**
 * HTML that cannot be injected into. Every page of checkout is built with the `html` tag: each interpolated
 * string is escaped by `escapeHtml`, the one escaping function, so a merchant name such as
 * `<script>…` or `" onmouseover="…` is shown as text wherever it lands (element content or a quoted
 * attribute). Only SafeHtml values — built by this tag or by `format` — pass through as markup.
 */

/**
 * Markup that is safe to emit as is. The class is not exported, so only `html` and `format` below make
 * one: a plain string can never become markup by accident.
 */
class Markup {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}
export type SafeHtml = Markup;

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/**
 * Escapes text for HTML element content and for quoted attribute values. Quotes of both kinds are escaped so
 * the result is safe whichever quote an attribute uses; the backtick is escaped for old IE-style parsers.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => REPLACEMENTS[char] ?? char);
}

export type HtmlValue =
  | SafeHtml
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Markup) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: literal parts are trusted (they are our source code), interpolations are escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Markup(out);
}

/**
 * A translated message filled in as markup (the escaping rule of web/i18n.ts): its words and its string
 * parameters are escaped, SafeHtml parameters (an amount in <strong>, say) are inserted as markup. A plain
 * string is read as an English ICU message. An unknown placeholder is a bug in the message table, so it throws
 * rather than printing `{name}` to a customer.
 */
export function format(
  message: Message | string,
  params: Readonly<Record<string, HtmlValue>> = {},
): SafeHtml {
  const filled = typeof message === 'string' ? new Message('en', message) : message;
  return new Markup(filled.parts(params).map(render).join(''));
}
