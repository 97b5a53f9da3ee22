import type { EmailTemplate } from '../../app/email/ports.ts';
import type { ReceiptData } from '../../app/email/receipts.ts';
import { fill, type Language } from '../web/i18n.ts';
import { formatMoment, formatPriceAmount, formatUsdcAmount } from '../web/localeFormat.ts';
import { emailTemplate } from './emailTemplate.ts';
import { renderEmailLayout } from './layout.ts';
import { EMAIL_MESSAGES } from './messages/index.ts';

/** A line of a receipt; a transaction's also names its hash and explorer link, which the page sets apart. */
export interface ReceiptFact {
  readonly label: string;
  readonly value: string;
  readonly transaction?: { readonly amount: string; readonly hash: string; readonly url: string | null };
}

/**
 * A receipt's facts in the reader's language: what the e-mail's table and the receipt page both show. The price
 * in the currency it was set in (USDC beside it), what arrived in all, then every transfer that counted and every
 * refund (decision 0050).
 */
export function receiptFacts(data: ReceiptData, language: Language) {
  const m = EMAIL_MESSAGES[language].receipt;
  const amount = formatPriceAmount(data.amount, language);
  const usdc = (value: string) => `${formatUsdcAmount(value, language)} USDC`;
  const price =
    data.currency === 'USDC' ? usdc(data.usdcPrice) : `${amount} ${data.currency} (${usdc(data.usdcPrice)})`;
  const money = (decimal: string) => `${formatPriceAmount(decimal, language)} ${data.currency}`;
  const { title, description, lines } = data.sold;
  const facts: ReceiptFact[] = [
    { label: m.merchant, value: data.merchantName },
    // Where the merchant set them, its address (one line here) and tax id: what an accountant looks for (0057).
    ...(data.merchantAddress === null
      ? []
      : [{ label: m.merchantAddress, value: data.merchantAddress.split('\n').join(', ') }]),
    ...(data.merchantTaxId === null ? [] : [{ label: m.taxId, value: data.merchantTaxId }]),
    // What was bought, then each line: quantity × the price of one = its total, in the price's currency.
    ...(title === null ? [] : [{ label: m.purchase, value: title }]),
    ...(description === null ? [] : [{ label: m.details, value: description }]),
    ...lines.map((line) => ({
      label: line.name,
      value: fill(m.line, {
        quantity: String(line.quantity),
        price: money(line.unitPrice),
        total: money(line.total),
      }),
    })),
    { label: m.amount, value: price },
    { label: m.usdcPaid, value: usdc(data.usdcPaid) },
    ...data.transfers.map((t) => ({
      label: m.transaction,
      value: `${usdc(t.amount)} · ${t.txHash}`,
      transaction: { amount: usdc(t.amount), hash: t.txHash, url: t.explorerTxUrl },
    })),
    ...data.refunds.map((r) => ({
      label: m.refunded,
      value: r.txHash ? `${usdc(r.amount)} · ${r.txHash}` : usdc(r.amount),
    })),
    { label: m.date, value: formatMoment(data.paidAt, language, 'date') },
    ...(data.orderId ? [{ label: m.order, value: data.orderId }] : []),
  ];
  return { amount, facts };
}

/** The receipt's PDF, beside its page, in the reader's language (checkout/receiptRoutes.ts). */
export function receiptPdfUrl(receiptUrl: string, language: Language): string {
  return `${receiptUrl}/pdf?lang=${language}`;
}

/**
 * The receipt a customer who gave an address gets when the payment is paid: merchant, amount, the USDC paid,
 * the transaction (a link to the explorer where the network has one), date with its zone, order, and the
 * public receipt page.
 */
export const receiptEmail: EmailTemplate<ReceiptData> = emailTemplate(
  'receipt',
  'receipt',
  (data: ReceiptData, language, m) => {
    const { amount, facts } = receiptFacts(data, language);
    const args = { merchant: data.merchantName, amount, currency: data.currency };
    return renderEmailLayout({
      language,
      subject: fill(m.subject, args),
      preheader: fill(m.preheader, args),
      heading: m.heading,
      paragraphs: [
        fill(m.body, args),
        ...data.transfers.flatMap((t) => (t.explorerTxUrl ? [`${m.transaction}: ${t.explorerTxUrl}`] : [])),
      ],
      facts,
      action: { label: m.view, url: data.receiptUrl },
      links: [{ label: m.pdfLink, url: receiptPdfUrl(data.receiptUrl, language) }],
      footer: [fill(m.footer, args)],
      accent: data.colour ?? undefined,
    });
  },
);
