import type { DailyPaid } from '../../app/dashboard/ports.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { LOCALES } from '../web/localeFormat.ts';
import { usdcText, usdcWithUnit } from './dashboardFormat.ts';
import type { PageContext } from './renderDashboard.ts';

/**
 * The home page's revenue chart (decision 0053): the USDC received per UTC day over the last 30 days, drawn on
 * the server as SVG (no script, nothing the CSP would refuse), in USDC because that is what every payment
 * settles in whatever its price's currency. Bar heights are whole pixels out of a bigint ratio: no money is
 * ever a JS number. It is an image with a title and a description that say what it shows, and the same
 * figures follow as a table for whoever cannot see it.
 */

/** The drawing's own units (viewBox): the stylesheet scales it to the page's width. */
const WIDTH = 720;
const HEIGHT = 240;
const PLOT = { left: 8, right: 712, top: 28, bottom: 204 } as const;
const BAR_GAP = 4;

/** A bar's height in drawing units: `value / max` of the plot's height, rounded down, at least 1 for a paid day. */
function barHeight(value: bigint, max: bigint): number {
  if (value === 0n || max === 0n) return 0;
  const plot = BigInt(PLOT.bottom - PLOT.top);
  return Math.max(1, Number((value * plot) / max));
}

/** A day (`YYYY-MM-DD`) as "5 Dec" in the page's language. */
function shortDay(ctx: PageContext, day: string): string {
  return new Intl.DateTimeFormat(LOCALES[ctx.lang], {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).format(new Date(`${day}T00:00:00Z`));
}

function bars(ctx: PageContext, days: readonly DailyPaid[], max: bigint): SafeHtml[] {
  const step = (PLOT.right - PLOT.left) / days.length;
  return days.map((entry, i) => {
    const height = barHeight(entry.receivedBaseUnits, max);
    const x = (PLOT.left + i * step + BAR_GAP / 2).toFixed(1);
    return html`<rect class="bar${height === 0 ? ' empty' : ''}" x="${x}" y="${PLOT.bottom - Math.max(height, 1)}" width="${(step - BAR_GAP).toFixed(1)}" height="${Math.max(height, 1)}"><title>${shortDay(ctx, entry.day)}: ${usdcWithUnit(ctx, entry.receivedBaseUnits)}</title></rect>`;
  });
}

/** The first, middle and last days under the bars. */
function dayLabels(ctx: PageContext, days: readonly DailyPaid[]): SafeHtml[] {
  const step = (PLOT.right - PLOT.left) / days.length;
  const marks = [0, Math.floor(days.length / 2), days.length - 1];
  return marks.map((i) => {
    const anchor = i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle';
    const x = i === 0 ? PLOT.left : i === days.length - 1 ? PLOT.right : PLOT.left + (i + 0.5) * step;
    return html`<text class="axis" x="${x.toFixed(1)}" y="${HEIGHT - 12}" text-anchor="${anchor}">${shortDay(ctx, days[i]!.day)}</text>`;
  });
}

/** The chart, its description and its table, or an empty state with a next step when nothing was paid. */
export function revenueChart(ctx: PageContext, days: readonly DailyPaid[]): SafeHtml {
  const c = ctx.t.chart;
  let max = 0n;
  let total = 0n;
  let count = 0;
  for (const entry of days) {
    if (entry.receivedBaseUnits > max) max = entry.receivedBaseUnits;
    total += entry.receivedBaseUnits;
    count += entry.count;
  }
  const heading = html`<h2 id="chart-heading">${c.title}</h2>`;
  if (count === 0) {
    return html`<section class="chart card" aria-labelledby="chart-heading">${heading}
<div class="empty-state"><p>${c.empty}</p><p><a class="button" href="/dashboard/links/new">${c.newLink}</a> <a class="button secondary" href="/dashboard/payments/new">${c.newPayment}</a></p></div></section>`;
  }
  const best = days.reduce((a, b) => (b.receivedBaseUnits > a.receivedBaseUnits ? b : a));
  const description = format(c.description, {
    total: usdcWithUnit(ctx, total),
    count,
    best: usdcWithUnit(ctx, best.receivedBaseUnits),
    day: shortDay(ctx, best.day),
  });
  return html`<section class="chart card" aria-labelledby="chart-heading">${heading}
<svg class="revenue" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">${c.title}</title>
<desc id="chart-desc">${description}</desc>
<line class="grid" x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.top}" y2="${PLOT.top}"></line>
<line class="grid" x1="${PLOT.left}" x2="${PLOT.right}" y1="${(PLOT.top + PLOT.bottom) / 2}" y2="${(PLOT.top + PLOT.bottom) / 2}"></line>
<line class="baseline" x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}"></line>
<text class="axis" x="${PLOT.left}" y="${PLOT.top - 8}">${usdcWithUnit(ctx, max)}</text>
${bars(ctx, days, max)}
${dayLabels(ctx, days)}
</svg>
<p class="muted">${description}</p>
<details><summary>${c.asTable}</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="${c.title}"><table>
<thead><tr><th scope="col">${c.day}</th><th scope="col" class="amount">${c.paid}</th><th scope="col" class="amount">${c.payments}</th></tr></thead>
<tbody>${days.map((entry) => html`<tr><td>${shortDay(ctx, entry.day)}</td><td class="amount">${usdcText(ctx, entry.receivedBaseUnits)}</td><td class="amount">${entry.count}</td></tr>`)}</tbody>
</table></div></details>
</section>`;
}
