import type { EmailTemplate } from '../../app/email/ports.ts';
import type { RefundNoticeData } from '../../app/email/refundNotices.ts';
import { fill, LANGUAGES } from '../web/i18n.ts';
import { isLanguage } from '../web/language.ts';
import { formatMoment, formatUsdcAmount } from '../web/localeFormat.ts';
import { renderEmailLayout } from './layout.ts';
import { EMAIL_MESSAGES } from './messages/index.ts';

/**
 * A refund's notices to the customer: when it waits for their address (with the claim page's link and its
 * deadline), and when it was sent (amount, address, transaction).
 */
export const refundNoticeEmail: EmailTemplate<RefundNoticeData> = {
  kind: 'refund_notice',
  languages: LANGUAGES,
  render(data, requested) {
    const language = isLanguage(requested) ? requested : 'en';
    const m = EMAIL_MESSAGES[language].refund;
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
};
