import { format, type HtmlValue, html, type SafeHtml } from '../web/html.ts';
import type { Message } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { badge, hiddenAttr, languageSwitcher, layout, type PageAssets } from './pageLayout.ts';

/**
 * The frame of a page the script drives (the payment page, the refund claim page): the card whose data
 * attributes tell the script where to poll and what it works with, the merchant's header, the live region the
 * script speaks through, every stage of the page, the notice of a lost connection, and the footer.
 */
export function scriptedPage(input: {
  language: Language;
  /** The card's id, which the page's stylesheet and script look for. */
  id: string;
  /** The tab's title, a message with `{merchant}`: the header's merchant is put in it. */
  documentTitle: Message;
  assets: PageAssets;
  script: string;
  /** The script's settings, as `data-` attributes of the card, in this order. */
  data: readonly (readonly [string, string | number])[];
  header: {
    /** The merchant's logo (brandRoutes.ts); absent: none. */
    logo?: SafeHtml | null | undefined;
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
  /** What the language links keep of the page's query (`network=8453`, a choice made without the script). */
  languageQuery?: string | undefined;
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
  ${header.logo ?? null}
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
  ${languageSwitcher(input.language, input.languageQuery)}
</footer>
</main>`;
  return layout({
    language: input.language,
    title: format(input.documentTitle, { merchant: header.merchant }),
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
  icon: Parameters<typeof badge>[0],
  title: string,
  lines: readonly HtmlValue[],
): SafeHtml {
  return stage(name, current, 'end', [badge(icon), stageTitle(name, title), ...lines]);
}

/** A stage's title, which the section is labelled by. */
export function stageTitle(name: string, title: string): SafeHtml {
  return html`<h2 id="title-${name}">${title}</h2>`;
}

/** An amount of USDC the script keeps up to date: it finds the number by its `data-field`. */
export function usdcField(text: string, field: string): SafeHtml {
  return html`<strong class="nowrap"><span data-field="${field}">${text}</span> USDC</strong>`;
}
