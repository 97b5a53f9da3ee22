import type { EmailTemplate } from '../../app/email/ports.ts';
import type { RefundNoticeData } from '../../app/email/refundNotices.ts';
import { fill } from '../web/i18n.ts';
import { formatMoment, formatUsdcAmount } from '../web/localeFormat.ts';
import { emailTemplate } from './emailTemplate.ts';
import { renderEmailLayout } from './layout.ts';

/**
 * A refund's notices to the customer: when it waits for their address (with the claim page's link and its
 * deadline), and when it was sent (amount, address, transaction).
 */
export const refundNoticeEmail: EmailTemplate<RefundNoticeData> = emailTemplate(
  'refund_notice',
  'refund',
  (data: RefundNoticeData, language, m) => {
    const amount = formatUsdcAmount(data.amount, language);
    const args = { merchant: data.merchantName, amount };
    const amountFact = { label: m.amount, value: `${amount} USDC` };
    if (data.stage === 'claim')
      return renderEmailLayout({
        language,
        subject: fill(m.claimSubject, args),
        heading: m.claimHeading,
        paragraphs: [fill(m.claimBody, { ...args, time: formatMoment(data.claimBefore, language, 'date') })],
        facts: [amountFact],
        action: { label: m.claimAction, url: data.claimUrl },
        footer: [fill(m.footer, args)],
      });
    return renderEmailLayout({
      language,
      subject: fill(m.sentSubject, args),
      heading: m.sentHeading,
      paragraphs: [
        fill(m.sentBody, args),
        ...(data.explorerTxUrl ? [`${m.transaction}: ${data.explorerTxUrl}`] : []),
      ],
      facts: [
        amountFact,
        ...(data.address ? [{ label: m.address, value: data.address }] : []),
        ...(data.txid ? [{ label: m.transaction, value: data.txid }] : []),
      ],
      footer: [fill(m.footer, args)],
    });
  },
);
