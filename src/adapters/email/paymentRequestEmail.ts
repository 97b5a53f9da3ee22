import type { PaymentRequestData } from '../../app/email/paymentRequests.ts';
import type { EmailTemplate } from '../../app/email/ports.ts';
import { fill } from '../web/i18n.ts';
import { formatMoment, formatPriceAmount, formatUsdcAmount } from '../web/localeFormat.ts';
import { emailTemplate } from './emailTemplate.ts';
import { renderEmailLayout } from './layout.ts';

/** A merchant's payment request to a customer: merchant, amount, expiry, and the button to the checkout page. */
export const paymentRequestEmail: EmailTemplate<PaymentRequestData> = emailTemplate(
  'payment_request',
  'request',
  (data: PaymentRequestData, language, m) => {
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
      ...(data.portalUrl ? { links: [{ label: m.manage, url: data.portalUrl }] } : {}),
      footer: [fill(m.footer, args)],
    });
  },
);
