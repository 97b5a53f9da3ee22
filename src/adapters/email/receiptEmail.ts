import type { EmailTemplate } from '../../app/email/ports.ts';
import type { ReceiptData } from '../../app/email/receipts.ts';
import { fill, type Language } from '../web/i18n.ts';
import { formatMoment, formatPriceAmount, formatUsdcAmount } from '../web/localeFormat.ts';
import { emailTemplate } from './emailTemplate.ts';
import { renderEmailLayout } from './layout.ts';
import { EMAIL_MESSAGES } from './messages/index.ts';

/** A receipt's facts in the reader's language: what the e-mail's table and the receipt page both show. */
export function receiptFacts(data: ReceiptData, language: Language) {
  const m = EMAIL_MESSAGES[language].receipt;
  const amount = formatPriceAmount(data.amount, language);
  return {
    amount,
    facts: [
      { label: m.merchant, value: data.merchantName },
      { label: m.amount, value: `${amount} ${data.currency}` },
      { label: m.usdcPaid, value: `${formatUsdcAmount(data.usdcPaid, language)} USDC` },
      ...(data.txid ? [{ label: m.transaction, value: data.txid }] : []),
      { label: m.date, value: formatMoment(data.paidAt, language, 'date') },
      ...(data.orderId ? [{ label: m.order, value: data.orderId }] : []),
    ],
  };
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
        ...(data.explorerTxUrl ? [`${m.transaction}: ${data.explorerTxUrl}`] : []),
      ],
      facts,
      action: { label: m.view, url: data.receiptUrl },
      footer: [fill(m.footer, args)],
    });
  },
);
