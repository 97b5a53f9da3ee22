import type { RefundAddressProblem } from '../../../domain/refund.ts';

/**
 * What the refund claim page says in English, the reference language: its keys are the table every other
 * language fills, and its messages' arguments the ones theirs use (web/i18n.ts). The network, token and footer
 * lines come from the checkout's own messages.
 */
export const en = {
  documentTitle: 'Refund from {merchant}',
  refundFrom: 'Refund from',
  amount: 'Amount',
  claimTitle: 'Where should your refund go?',
  claimBody:
    'Give an address of your own wallet on {network}. The refund is sent there and nowhere else, as soon as {merchant} funds it.',
  addressLabel: 'Your USDC address on {network}',
  addressHint:
    'Use a wallet you control. An exchange deposit address works only if the exchange accepts USDC on {network}. A refund sent to a wrong address cannot be recovered.',
  claimBefore: 'Give your address before {time}.',
  fillFromWallet: 'Use my browser wallet’s address',
  walletWorking: 'Confirm the request in your wallet…',
  walletRejected: 'The request was rejected in your wallet.',
  walletError: 'Your wallet did not answer. Paste your address instead.',
  confirm: 'Send my refund to this address',
  confirmContract: 'Yes, send it to this contract',
  contractWarning:
    'This address is a contract, not an ordinary wallet. Continue only if you know it can receive USDC and pass it on (a smart-contract wallet, for instance).',
  sending: 'Saving your address…',
  problems: {
    format: 'An address is 0x followed by 40 characters (0–9, a–f). Check it and try again.',
    checksum: 'This address has a typo: one of its letters does not match. Paste it again.',
    zero: 'This is the zero address: nobody can spend what is sent there.',
    service_contract: 'This is a contract of the payment network, not a wallet.',
    deposit_address: 'This is a payment deposit address, not your wallet.',
  },
  alreadyClaimed: 'An address was already given for this refund.',
  tryAgain: 'Something went wrong. Try again in a moment.',
  noScript: 'Turn on JavaScript to give your address.',
  progressTitle: 'Your refund is on its way',
  addressGiven: 'It will be sent to',
  stepAddress: 'Address given',
  stepFunding: 'Waiting for {merchant} to send the refund',
  stepSending: 'Sending it to your address',
  refundedTitle: 'Refunded',
  refundedBody: '{amount} was sent to your address.',
  canceledTitle: 'This refund was canceled',
  canceledBody: '{merchant} canceled this refund before sending it. Contact them if you expected it.',
  expiredTitle: 'This claim link has expired',
  expiredBody: 'No address was given before {time}. Contact {merchant} for a new link.',
  reference: 'Refund reference',
  nonCustodial:
    'Paylink never holds your refund: the address it is paid into can only send it on to the address you give.',
  notFoundTitle: 'Refund not found',
  notFoundBody: 'Check the link you were given, or contact the merchant.',
} as const satisfies Readonly<Record<string, unknown>> & {
  readonly problems: Readonly<Record<RefundAddressProblem, string>>;
};
