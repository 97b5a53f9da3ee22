// Where a customer is sent on the checkout origin: the API answers these addresses and the dashboard shows them,
// so they are written once, here.

/** A payment's page. */
export function paymentUrl(checkoutUrl: string, paymentId: string): string {
  return `${checkoutUrl}/pay/${paymentId}`;
}

/** A reusable link's public page. */
export function linkUrl(checkoutUrl: string, linkId: string): string {
  return `${checkoutUrl}/l/${linkId}`;
}
