/**
 * What the e-mails to customers say in English, the reference language: its keys are the table every other
 * language fills, and its messages' arguments the ones theirs use (web/i18n.ts). Amounts and times arrive
 * already written in the reader's locale.
 */
export const en = {
  receipt: {
    subject: 'Your receipt from {merchant}',
    preheader: 'Paid: {amount} {currency}',
    heading: 'Thank you for your payment',
    body: '{merchant} received your payment of {amount} {currency}. Keep this e-mail as your receipt.',
    purchase: 'Purchase',
    details: 'Details',
    line: '{quantity} × {price} = {total}',
    items: 'Items',
    merchant: 'Paid to',
    amount: 'Amount',
    usdcPaid: 'USDC paid',
    transaction: 'Transaction',
    date: 'Date',
    order: 'Order',
    view: 'View your receipt',
    footer: 'You receive this e-mail because {merchant} gave your address with this payment.',
    pageTitle: 'Receipt from {merchant}',
    notFoundTitle: 'Receipt not found',
    notFoundBody: 'This receipt does not exist. Check that the address is the one in your e-mail.',
    pdfLink: 'Download the receipt (PDF)',
    pdfTitle: 'Receipt',
    pdfNote: 'Proof of a payment in USDC to {merchant}. For an invoice with tax details, ask {merchant}.',
    reference: 'Reference',
    paid: 'Paid',
    usdcPrice: 'Price in USDC',
    rate: 'Exchange rate',
    transfers: 'Transfers received',
    refunds: 'Refunds',
    refunded: 'Refunded',
  },
  refund: {
    claimSubject: '{merchant} is refunding you {amount} USDC',
    claimHeading: 'Where should your refund go?',
    claimBody:
      '{merchant} is refunding you {amount} USDC. Give the address of your own USDC wallet on the refund page before {time}; the refund is sent there as soon as {merchant} funds it.',
    claimAction: 'Give my address',
    sentSubject: 'Your refund from {merchant} was sent',
    sentHeading: 'Your refund was sent',
    sentBody: '{merchant} refunded you {amount} USDC. It is in your wallet.',
    amount: 'Refund',
    address: 'Sent to',
    transaction: 'Transaction',
    footer: 'You receive this e-mail because {merchant} gave your address with your payment.',
  },
  request: {
    subject: '{merchant} asks you to pay {amount} {currency}',
    heading: 'Payment request from {merchant}',
    body: '{merchant} asks you to pay {amount} {currency} in USDC. The link is valid until {time}.',
    amount: 'Amount',
    usdc: 'In USDC',
    order: 'Order',
    expires: 'Pay before',
    pay: 'Pay {amount} {currency}',
    footer:
      'You receive this e-mail because {merchant} sent you this payment request. If you did not expect it, ignore it: nothing is charged without your payment.',
  },
};
