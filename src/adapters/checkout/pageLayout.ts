import { type HtmlValue, html, type SafeHtml } from '../web/html.ts';
import { LANGUAGE_NAMES } from '../web/i18n.ts';
import { LANGUAGES, type Language } from '../web/language.ts';
import { formatMoment, type MomentStyle } from '../web/localeFormat.ts';
import { MESSAGES } from './messages/index.ts';

/** The files every page of the checkout origin links, each with its content hash in the URL. */
export interface PageAssets {
  readonly stylesheet: string;
  /** The payment page's script. */
  readonly script: string;
  /** The refund claim page's script. */
  readonly refundScript: string;
  readonly favicon: string;
}

/** The document around a page's body: language, title, icon, stylesheet, and the page's script if it has one. */
export function layout(input: {
  language: Language;
  title: SafeHtml | string;
  assets: PageAssets;
  body: SafeHtml;
  /** The script's URL; null for a page that needs none. */
  script: string | null;
}): string {
  const script = input.script ? html`<script src="${input.script}" defer></script>` : null;
  return html`<!doctype html>
<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${input.title}</title>
<link rel="icon" href="${input.assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${input.assets.stylesheet}">
${script}
</head>
<body>
${input.body}
</body>
</html>
`.toString();
}

/** A moment the script rewrites in the customer's own time zone (the server writes UTC). */
export function moment(date: Date, language: Language, style: MomentStyle): SafeHtml {
  return html`<time datetime="${date.toISOString()}" data-moment="${style}">${formatMoment(date, language, style)}</time>`;
}

export function languageSwitcher(current: Language): SafeHtml {
  const links = LANGUAGES.map((language) =>
    language === current
      ? html`<li><span aria-current="true">${LANGUAGE_NAMES[language]}</span></li>`
      : html`<li><a href="?lang=${language}" hreflang="${language}" lang="${language}">${LANGUAGE_NAMES[language]}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${MESSAGES[current].language}"><ul>${links}</ul></nav>`;
}

const BADGES = {
  done: { tone: 'ok', path: 'M14 25l7 7 13-15' },
  closed: { tone: 'muted', path: 'M17 17l14 14M31 17L17 31' },
  clock: { tone: 'muted', path: 'M24 12v13l8 5' },
  warning: { tone: 'warn', path: 'M24 13v14M24 33v2' },
} as const;

/** The round icon at the top of an end screen: a tick, a cross, a clock or an exclamation mark. */
export function badge(kind: keyof typeof BADGES): SafeHtml {
  const { tone, path } = BADGES[kind];
  return html`<svg class="badge ${tone}" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="${path}"/></svg>`;
}

export function hiddenAttr(isHidden: boolean): SafeHtml | null {
  return isHidden ? html` hidden` : null;
}

/** A page that only says something: a title and a sentence (404, 500, a refund not found). */
export function messagePage(language: Language, assets: PageAssets, title: string, text: string): string {
  const body = html`<main class="card">
<section class="stage end" aria-labelledby="title">
  ${badge('closed')}
  <h1 id="title">${title}</h1>
  <p>${text}</p>
</section>
<footer>${languageSwitcher(language)}</footer>
</main>`;
  return layout({ language, title, assets, body, script: null });
}

/**
 * The frame of a page the script drives (the payment page, the refund claim page): the card whose data
 * attributes tell the script where to poll and what it works with, the merchant's header, the live region the
 * script speaks through, every stage of the page, the notice of a lost connection, and the footer.
 */
export function scriptedPage(input: {
  language: Language;
  /** The card's id, which the page's stylesheet and script look for. */
  id: string;
  title: SafeHtml | string;
  assets: PageAssets;
  script: string;
  /** The script's settings, as `data-` attributes of the card, in this order. */
  data: readonly (readonly [string, string | number])[];
  header: {
    eyebrow: string;
    merchant: string;
    priceLabel: string;
    price: SafeHtml;
    /** A line under the price (the payment's exchange rate); absent: no line. */
    note?: SafeHtml | null;
  };
  /** What the page shows above its stages, whatever the stage; absent: nothing. */
  facts?: SafeHtml;
  stages: readonly SafeHtml[];
  /** What the script clones or copies from the page (a template, the sentences it may show). */
  scripted: SafeHtml;
  connectionLost: string;
  reference: { label: string; id: string };
  nonCustodial: string;
}): string {
  const { header } = input;
  const data = input.data.map(
    ([name, value]) => html`
  data-${name}="${value}"`,
  );
  const note =
    header.note === undefined
      ? null
      : html`
  ${header.note}`;
  const facts =
    input.facts === undefined
      ? null
      : html`${input.facts}
`;
  const stages = input.stages.map((stage, i) =>
    i === 0
      ? stage
      : html`

${stage}`,
  );
  const body = html`<main id="${input.id}" class="card"${data}>
<header class="merchant">
  <p class="eyebrow">${header.eyebrow}</p>
  <h1>${header.merchant}</h1>
  <p class="price"><span class="label">${header.priceLabel}</span> ${header.price}</p>${note}
</header>
<p class="visually-hidden" role="status" aria-live="polite" data-live></p>
${facts}
${stages}

${input.scripted}
<p class="notice error" data-connection-lost hidden>${input.connectionLost}</p>
<footer>
  <p class="reference"><span>${input.reference.label}</span> <code>${input.reference.id}</code></p>
  <p class="muted small">${input.nonCustodial}</p>
  ${languageSwitcher(input.language)}
</footer>
</main>`;
  return layout({
    language: input.language,
    title: input.title,
    assets: input.assets,
    body,
    script: input.script,
  });
}

/**
 * One stage of a scripted page: all are in the page, only the current one visible (the script switches
 * them). Each line of its content is indented under the section.
 */
export function stage<S extends string>(
  name: S,
  current: S,
  kind: 'step' | 'end',
  lines: readonly HtmlValue[],
): SafeHtml {
  return html`<section class="${kind === 'end' ? 'stage end' : 'stage'}" data-stage="${name}" aria-labelledby="title-${name}"${hiddenAttr(name !== current)}>${lines.map(
    (line) => html`
  ${line}`,
  )}
</section>`;
}

/** A stage on the way (waiting for a payment, a confirmation, a refund): its title beside a spinner. */
export function waitingStage<S extends string>(
  name: S,
  current: S,
  title: string,
  lines: readonly HtmlValue[],
  /** Shown beside the title (the payment's countdown). */
  beside?: SafeHtml,
): SafeHtml {
  const statusLine = html`<div class="status-line">
    <span class="spinner" aria-hidden="true"></span>
    ${stageTitle(name, title)}${
      beside === undefined
        ? null
        : html`
    ${beside}`
    }
  </div>`;
  return stage(name, current, 'step', [statusLine, ...lines]);
}

/** An end screen: its badge, its title, what it says. */
export function endStage<S extends string>(
  name: S,
  current: S,
  icon: keyof typeof BADGES,
  title: string,
  lines: readonly HtmlValue[],
): SafeHtml {
  return stage(name, current, 'end', [badge(icon), stageTitle(name, title), ...lines]);
}

/** A stage's title, which the section is labelled by. */
export function stageTitle(name: string, title: string): SafeHtml {
  return html`<h2 id="title-${name}">${title}</h2>`;
}
