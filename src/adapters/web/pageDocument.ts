import { html, type SafeHtml } from './html.ts';
import { LANGUAGE_NAMES } from './i18n.ts';
import { LANGUAGES, type Language } from './language.ts';

/**
 * The HTML document every page of the service is (the checkout's and the dashboard's): never indexed, light only,
 * its stylesheets and scripts from the service's own origin (the strict CSP allows nothing else), the page's
 * `head` extras after them.
 */
export function pageDocument(input: {
  readonly language: Language;
  readonly title: SafeHtml | string;
  /** `<link rel="icon">`'s attributes: an asset's URL and type, or `data:,` (no icon, no request). */
  readonly icon: { readonly href: string; readonly type?: string | undefined };
  readonly stylesheets: readonly string[];
  readonly scripts: readonly string[];
  readonly body: SafeHtml;
}): string {
  return html`<!doctype html>
<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${input.title}</title>
<link rel="icon" href="${input.icon.href}"${input.icon.type ? html` type="${input.icon.type}"` : null}>
${input.stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">\n`)}${input.scripts.map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body>
${input.body}
</body>
</html>
`.toString();
}

/**
 * The language switcher on every page: links to the same page with its query kept (a list's filters, a chosen
 * network) and `lang=` (remembered in a cookie, decision 0026), each language named in itself; the current one is
 * not a link.
 */
export function languageSwitcher(current: Language, label: string, query?: string): SafeHtml {
  const kept = query ? `${query}&` : '';
  const links = LANGUAGES.map((language) =>
    language === current
      ? html`<li><span aria-current="true">${LANGUAGE_NAMES[language]}</span></li>`
      : html`<li><a href="?${kept}lang=${language}" hreflang="${language}" lang="${language}">${LANGUAGE_NAMES[language]}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${label}"><ul>${links}</ul></nav>`;
}
