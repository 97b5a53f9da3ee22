/**
 * What the point of sale says in English (decision 0054), the reference language: its keys are the table every
 * other language fills. Its own table, beside the dashboard's, because its pages are their own.
 */
export const en = {
  title: 'Point of sale',
  posOnly: 'Your account is for the point of sale only.',
  entry: {
    amount: 'Amount',
    /** `{currency}`: the sale's currency code. */
    amountHint: 'in {currency}',
    currency: 'Currency',
    switchCurrency: 'Change',
    items: 'Items',
    /** `{item}`: the item's name. */
    quantity: 'Quantity of {item}',
    less: 'One less {item}',
    more: 'One more {item}',
    total: 'Total',
    email: 'Customer’s e-mail for the receipt',
    optional: '(optional)',
    testMode: 'Test mode: no real money',
    charge: 'Charge',
    noItems: 'No items in the catalogue yet: type an amount.',
    manage: 'Manage the catalogue',
  },
  sale: {
    scan: 'Scan to pay',
    /** `{amount}`: USDC to send. */
    qrAlt: 'QR code to pay {amount} USDC',
    orSend: 'No QR reader in the wallet? Send exactly',
    /** `{network}`: the chain's name (its id where unnamed). */
    toAddress: 'to this address on {network}:',
    waiting: 'Waiting for the payment…',
    processing: 'Payment seen: confirming…',
    paid: 'Paid',
    expired: 'Expired: nothing arrived in time',
    failed: 'Not paid in full in time',
    reference: 'Reference',
    paidAt: 'Paid at',
    newSale: 'New sale',
    test: 'Test',
    /** `{email}`: the address the customer typed. */
    receiptSent: 'The receipt goes to {email}.',
    receiptQr: 'Scan for the receipt',
    receiptQrAlt: 'QR code of the receipt page',
    showReceipt: 'Show the receipt as a QR code',
    refresh: 'Check now',
  },
  catalogue: {
    title: 'Point-of-sale catalogue',
    intro: 'The items shown at the counter, in the order added. A sale already made keeps what it said.',
    name: 'Name',
    unitPrice: 'Unit price',
    currency: 'Currency',
    add: 'Add item',
    remove: 'Remove',
    /** `{item}`: the item's name. */
    removeItem: 'Remove {item}',
    empty: 'No items yet: add what you sell most.',
    /** `{count}` items of at most `{max}`. */
    count: '{count, plural, one {# item} other {# items}} of {max}',
    back: 'Back to the point of sale',
  },
};
