import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import type { ReceiptDocument } from '../../app/email/receiptDocument.ts';
import type { BrandLogo } from '../../domain/brand.ts';
import { EMAIL_MESSAGES } from '../email/messages/index.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { formatMoment, formatPriceAmount, formatRateValue, formatUsdcAmount } from '../web/localeFormat.ts';

/**
 * Noto Sans, embedded (subset) rather than the PDF's built-in Latin-1 fonts: its `latin` file holds every
 * letter of the four languages and €, its `latin-ext` file the rest of Europe's letters (a merchant named
 * "Łódź Café" still prints). The WOFF files, not WOFF2: pdfkit's subsetter breaks on WOFF2's composite glyphs
 * (é is one).
 */
const FONT_PACKAGE = createRequire(import.meta.url)
  .resolve('@fontsource/noto-sans/package.json')
  .replace(/package\.json$/, '');
const FONT_DIR = `${FONT_PACKAGE}files/`;
const FONTS = {
  regular: readFileSync(`${FONT_DIR}noto-sans-latin-400-normal.woff`),
  bold: readFileSync(`${FONT_DIR}noto-sans-latin-700-normal.woff`),
  regularExt: readFileSync(`${FONT_DIR}noto-sans-latin-ext-400-normal.woff`),
  boldExt: readFileSync(`${FONT_DIR}noto-sans-latin-ext-700-normal.woff`),
};
/** The code points of the latin file, as the package states them (`unicode.json`: "U+0000-00FF,U+0131,…"). */
const LATIN_RANGES: readonly [number, number][] = (
  JSON.parse(readFileSync(`${FONT_PACKAGE}unicode.json`, 'utf8')) as { latin: string }
).latin
  .split(',')
  .map((range) => {
    const [from, to = from] = range.replace('U+', '').split('-') as [string, string?];
    return [Number.parseInt(from, 16), Number.parseInt(to, 16)];
  });

function inLatinFile(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return LATIN_RANGES.some(([from, to]) => code >= from && code <= to);
}

type Weight = 'regular' | 'bold';

/**
 * The text cut into runs each of one file: latin's where it has the character, else latin-ext's (pdfkit has no
 * font fallback, and neither file alone holds "Café Łódź"). Spaces stay in the run they follow.
 */
function fontRuns(text: string, weight: Weight): { font: keyof typeof FONTS; text: string }[] {
  const runs: { font: keyof typeof FONTS; text: string }[] = [];
  for (const character of text) {
    const last = runs.at(-1);
    const ext = !inLatinFile(character);
    const font = ext ? (weight === 'bold' ? 'boldExt' : 'regularExt') : weight;
    if (last && (last.font === font || (character === ' ' && !ext))) last.text += character;
    else runs.push({ font, text: character });
  }
  return runs;
}

/** Writes one paragraph in as many runs as its letters need, where pdfkit's cursor is or at `at`. */
function put(
  doc: PDFKit.PDFDocument,
  text: string,
  style: {
    readonly size: number;
    readonly weight?: Weight;
    readonly width?: number;
    readonly color?: string;
  },
  at?: { readonly x: number; readonly y: number },
): void {
  doc.fontSize(style.size).fillColor(style.color ?? '#000000');
  const runs = fontRuns(text, style.weight ?? 'regular');
  runs.forEach((run, i) => {
    const options = { width: style.width ?? innerWidth(doc), continued: i < runs.length - 1 };
    doc.font(run.font);
    if (i === 0 && at) doc.text(run.text, at.x, at.y, options);
    else doc.text(run.text, options);
  });
}

const MARGIN = 56;
const LABEL_WIDTH = 150;

/** How the PDF names a network: the checkout's names ("Polygon"), passed in by chain id. */
export type NetworkName = (chainId: number) => string;

/** The merchant's look on its receipt (decision 0052): the title in its colour, its logo above it. */
export interface ReceiptLook {
  /** `#rrggbb`; null: black. */
  readonly colour: string | null;
  readonly logo: BrandLogo | null;
}

const NO_LOOK: ReceiptLook = { colour: null, logo: null };
/** The logo's box at the top of the page, in points: about as large as the checkout shows it. */
const LOGO_BOX: [number, number] = [180, 56];

/**
 * The logo drawn at the top, where pdfkit can embed it: PNG and JPEG. pdfkit cannot read WebP (nor a file its
 * decoders refuse), and the receipt then names the merchant in words alone, as it always does below the title
 * (decision 0057). Returns whether it was drawn.
 */
function drawLogo(doc: PDFKit.PDFDocument, logo: BrandLogo | null): boolean {
  if (logo === null || logo.extension === 'webp') return false;
  try {
    // `fit` scales the image to the box, keeping its proportions, up or down.
    const scale = Math.min(LOGO_BOX[0] / logo.width, LOGO_BOX[1] / logo.height);
    const height = logo.height * scale;
    doc.image(Buffer.from(logo.bytes), MARGIN, MARGIN, { fit: LOGO_BOX });
    doc.x = MARGIN;
    doc.y = MARGIN + height + 12;
    return true;
  } catch {
    doc.x = MARGIN;
    doc.y = MARGIN;
    return false;
  }
}

/**
 * A paid payment's receipt as a PDF (A4) in the reader's language: the merchant, the reference, the price in its
 * currency, the USDC price and the locked rate, every transfer that arrived and every refund sent back.
 */
export function renderReceiptPdf(
  receipt: ReceiptDocument,
  language: Language,
  networkName: NetworkName,
  look: ReceiptLook = NO_LOOK,
): Promise<Buffer> {
  const m = EMAIL_MESSAGES[language].receipt;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    lang: language,
    info: {
      Title: `${m.pdfTitle} ${receipt.reference}`,
      Author: receipt.merchantName,
      CreationDate: receipt.paidAt,
    },
  });
  for (const [name, data] of Object.entries(FONTS)) doc.registerFont(name, data);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const write = (text: string, size: number, weight: Weight = 'regular', color?: string) =>
    put(doc, text, { size, weight, ...(color ? { color } : {}) });

  // The seller as an accountant reads it: logo, name, address and tax id, the title in the merchant's colour.
  drawLogo(doc, look.logo);
  write(m.pdfTitle, 24, 'bold', look.colour ?? undefined);
  write(receipt.merchantName, 14, 'bold');
  for (const line of receipt.merchantAddress?.split('\n') ?? []) write(line, 10);
  if (receipt.merchantTaxId !== null) write(`${m.taxId}: ${receipt.merchantTaxId}`, 10);
  doc.moveDown();

  const usdc = (decimal: string) => `${formatUsdcAmount(decimal, language)} USDC`;
  const facts: [string, string][] = [
    [m.reference, receipt.reference],
    [m.paymentId, receipt.paymentId],
    ...(receipt.orderId ? [[m.order, receipt.orderId] as [string, string]] : []),
    ...(receipt.title === null ? [] : [[m.purchase, receipt.title] as [string, string]]),
    ...(receipt.description === null ? [] : [[m.details, receipt.description] as [string, string]]),
    [m.paid, formatMoment(receipt.paidAt, language, 'date')],
    [m.amount, `${formatPriceAmount(receipt.amount, language)} ${receipt.currency}`],
    ...(receipt.rate === null
      ? []
      : [
          [m.rate, `1 ${receipt.currency} = ${formatRateValue(receipt.rate, language)} USDC`] as [
            string,
            string,
          ],
          [m.usdcPrice, usdc(receipt.usdcPrice)] as [string, string],
        ]),
    [m.usdcPaid, usdc(receipt.usdcPaid)],
  ];
  for (const [label, value] of facts) row(doc, label, value);

  // What was bought, line by line, in the price's currency: the lines add up to the amount above.
  if (receipt.lines.length > 0) {
    section(m.items);
    const money = (decimal: string) => `${formatPriceAmount(decimal, language)} ${receipt.currency}`;
    for (const line of receipt.lines)
      row(
        doc,
        line.name,
        fill(m.line, {
          quantity: String(line.quantity),
          price: money(line.unitPrice),
          total: money(line.total),
        }),
      );
  }

  section(m.transfers);
  for (const transfer of receipt.transfers)
    entry(
      `${usdc(transfer.amount)} · ${networkName(transfer.chainId)} · ${formatMoment(transfer.at, language, 'date')}`,
      transfer.txHash,
    );

  if (receipt.refunds.length > 0) {
    section(m.refunds);
    for (const refund of receipt.refunds)
      entry(
        `${m.refunded}: ${usdc(refund.amount)}${refund.at ? ` · ${formatMoment(refund.at, language, 'date')}` : ''}`,
        refund.txHash,
      );
  }

  doc.moveDown(2);
  write(fill(m.pdfNote, { merchant: receipt.merchantName }), 9);
  doc.end();
  return done;

  function section(title: string) {
    doc.moveDown();
    write(title, 13, 'bold');
    doc.moveDown(0.3);
  }

  function entry(line: string, hash: string | null) {
    write(line, 10);
    if (hash) write(hash, 8);
    doc.moveDown(0.4);
  }
}

function innerWidth(doc: PDFKit.PDFDocument): number {
  return doc.page.width - 2 * MARGIN;
}

/** A label and its value side by side; the value wraps in its own column. */
function row(doc: PDFKit.PDFDocument, label: string, value: string): void {
  const y = doc.y;
  put(doc, label, { size: 10, width: LABEL_WIDTH, color: '#555555' }, { x: MARGIN, y });
  const labelBottom = doc.y;
  const width = innerWidth(doc) - LABEL_WIDTH;
  put(doc, value, { size: 10, width }, { x: MARGIN + LABEL_WIDTH, y });
  doc.x = MARGIN;
  doc.y = Math.max(doc.y, labelBottom) + 4;
}
