import type { PaymentRequestData } from '../../app/email/paymentRequests.ts';
import type { EmailTemplate } from '../../app/email/ports.ts';
import { fill, LANGUAGES } from '../web/i18n.ts';
import { isLanguage } from '../web/language.ts';
import { formatMoment, formatPriceAmount, formatUsdcAmount } from '../web/localeFormat.ts';
import { renderEmailLayout } from './layout.ts';
import { EMAIL_MESSAGES } from './messages/index.ts';

/** A merchant's payment request to a customer: merchant, amount, expiry, and the button to the checkout page. */
export const paymentRequestEmail: EmailTemplate<PaymentRequestData> = {
  kind: 'payment_request',
  languages: LANGUAGES,
  render(data, requested) {
    const language = isLanguage(requested) ? requested : 'en';
    const m = EMAIL_MESSAGES[language].request;
    const amount = formatPriceAmount(data.amount, language);
    const expires = formatMoment(data.expiresAt, language, 'date');
    const args = { merchant: data.merchantName, amount, currency: data.currency };
    return renderEmailLayout({
      language,
      subject: fill(m.subject, args),
      heading: fill(m.heading, args),
      paragraphs: [fill(m.body, { ...args, time: expires })],
      facts: [
        { label: m.amount, value: `${amount} ${data.currency}` },
        ...(data.currency === 'USDC'
          ? []
          : [{ label: m.usdc, value: `${formatUsdcAmount(data.usdcAmount, language)} USDC` }]),
        ...(data.orderId ? [{ label: m.order, value: data.orderId }] : []),
        { label: m.expires, value: expires },
      ],
      action: { label: fill(m.pay, args), url: data.paymentUrl },
      footer: [fill(m.footer, args)],
    });
  },
};
