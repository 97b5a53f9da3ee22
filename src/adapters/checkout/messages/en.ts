/**
 * What the checkout page says in English, the reference language: its keys are the table every other language
 * fills, and its messages' arguments the ones theirs use (web/i18n.ts). French puts a no-break space (\u00a0)
 * before : ? ! ; so that they never begin a line. Amounts are written in the language's own format ("27,00":
 * localeFormat.ts); what the copy button puts on the clipboard stays "27.00", which every wallet reads.
 */
export const en = {
  documentTitle: 'Pay {merchant}',
  paymentTo: 'Payment to',
  price: 'Price',
  amountToSend: 'Amount to send',
  network: 'Network',
  networkValue: '{network} · chain ID {chainId}',
  tokenContract: 'USDC token contract',
  depositAddress: 'Deposit address',
  copy: 'Copy',
  copied: 'Copied',
  copyAmount: 'Copy the amount',
  copyAddress: 'Copy the deposit address',
  qrAlt: 'QR code: transfer {amount} USDC on {network} to {address}',
  qrAddressAlt: 'QR code of the deposit address {address}',
  scanHint: 'Scan with your wallet app: it fills in the token, amount and address.',
  openInWallet: 'Open in a wallet app',
  addressOnly: 'Your app cannot read this code? Use the address alone',
  warningTitle: 'Send only USDC on {network}',
  warningBody:
    'Send exactly {amount} on {network}, chain ID {chainId}, to the address above. Any other token, or USDC on another network, cannot be recovered.',
  timeLeft: 'Time left to pay',
  expiresAt: 'This link expires on {time}.',
  waitingTitle: 'Waiting for your payment',
  waitingBody: 'This page updates by itself as soon as your transfer is on chain.',
  partialTitle: 'Partial payment received',
  partialBody: '{received} has arrived. Send the remaining {remaining} to complete the payment.',
  partialConfirming: 'Part of it is still being confirmed.',
  confirmingTitle: 'Payment detected, confirming',
  confirmingBody:
    'Your transfer of {amount} is on chain and being confirmed. This usually takes a few seconds; you can keep this page open.',
  paidTitle: 'Payment complete',
  paidBody: '{merchant} has received your payment of {amount}. Thank you!',
  paidLate: 'It arrived after the link had expired; the merchant has been told.',
  transaction: 'Transaction',
  viewOnExplorer: 'View on the block explorer',
  returnToMerchant: 'Return to {merchant}',
  expiredTitle: 'This payment link has expired',
  expiredBody:
    'No payment arrived before {time}. Do not send anything to this address now: go back to {merchant} for a new link.',
  failedTitle: 'Payment incomplete',
  failedBody: 'Only {received} of the {required} due arrived before the link expired.',
  failedHelp:
    'What arrived goes to {merchant}. Contact them with the payment reference below to complete your order or arrange a refund. Do not send more to this address.',
  reference: 'Payment reference',
  orWallet: 'Or pay from this browser',
  payWithWallet: 'Pay with browser wallet',
  walletWorking: 'Confirm the request in your wallet…',
  chooseWallet: 'Choose the wallet to pay with',
  payWithNamed: 'Pay with {wallet}',
  rateLine: '{price} = {usdc} at {rate} {pair}, until {time}',
  exchangeFee:
    'Paying from an exchange? It deducts its withdrawal fee from what arrives: send the amount shown plus any fee.',
  showQr: 'Show QR code',
  transfers: 'Transfers received',
  transferConfirming: 'confirming',
  overpaid: 'You sent {sent}, {extra} more than the price; the merchant can refund the difference.',
  walletRejected: 'The request was rejected in your wallet. Nothing was sent.',
  walletWrongChain:
    'Your wallet is on another network. Switch it to {network}, chain ID {chainId}, and try again.',
  walletInsufficient: 'Your wallet holds {balance} USDC on {network}, but {amount} USDC is needed.',
  walletSent: 'Transaction sent: {hash}. This page updates when it arrives.',
  walletError: 'The wallet reported an error: {message}',
  gaslessHint: 'No network fee: your wallet only signs the transfer, and we send it for you.',
  payWithGas: 'Pay with a normal transfer instead (you pay the network fee)',
  walletSigning: 'Sign the transfer in your wallet. There is no network fee for you.',
  walletSigned:
    'Signed — your payment is on its way, with no network fee for you. This page updates when it arrives.',
  noScript: 'JavaScript is off: reload this page to see whether your payment has arrived.',
  connectionLost: 'Connection lost. Retrying…',
  nonCustodial:
    'Non-custodial: this address was made for this payment alone and can only pass the funds on to the merchant and its payment provider.',
  language: 'Language',
  notFoundTitle: 'Payment not found',
  notFoundBody: 'There is no payment at this address. Check the link you were given, or go back to the shop.',
  errorTitle: 'Something went wrong',
  errorBody: 'The page could not be shown. Please try again in a moment.',
} as const;
