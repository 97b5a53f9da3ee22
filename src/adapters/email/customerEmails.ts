import type { PaymentRequestSettings } from '../../app/email/paymentRequests.ts';
import type { ReceiptSettings } from '../../app/email/receipts.ts';
import type { RefundNoticeSettings } from '../../app/email/refundNotices.ts';
import type { MailConfig } from '../../config/mail.ts';
import { paymentUrl, portalUrl } from '../web/checkoutUrls.ts';
import { paymentRequestEmail } from './paymentRequestEmail.ts';
import { receiptEmail } from './receiptEmail.ts';
import { refundNoticeEmail } from './refundNoticeEmail.ts';

/**
 * What the use cases need to queue e-mail to customers, or undefined where e-mail is not configured (then none
 * is queued: decision 0021). `explorerUrl` gives a chain's explorer, '' or undefined where it has none.
 */
export function customerEmails(
  config: { readonly mail?: MailConfig | undefined; readonly checkoutUrl: string },
  explorerUrl: (chainId: number) => string | undefined,
):
  | {
      receipts: ReceiptSettings;
      refundNotices: RefundNoticeSettings;
      paymentRequests: PaymentRequestSettings;
    }
  | undefined {
  const { mail, checkoutUrl } = config;
  if (!mail) return undefined;
  const shared = {
    messageDomain: mail.messageDomain,
    checkoutUrl,
    // The sandbox's preset has none (''): the e-mail shows the hash alone.
    explorerUrl: (chainId: number) => explorerUrl(chainId) || undefined,
  };
  return {
    receipts: { ...shared, template: receiptEmail },
    refundNotices: { ...shared, template: refundNoticeEmail },
    paymentRequests: {
      template: paymentRequestEmail,
      messageDomain: mail.messageDomain,
      paymentUrl: (id) => paymentUrl(checkoutUrl, id),
      portalUrl: (token) => portalUrl(checkoutUrl, token),
    },
  };
}
