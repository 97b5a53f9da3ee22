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

/** A plan's public subscribe page (decision 0062): the address a merchant shares. */
export function subscribeUrl(checkoutUrl: string, planId: string): string {
  return `${checkoutUrl}/subscribe/${planId}`;
}

/** A subscription's customer portal: its token is the secret that opens it (decision 0062). */
export function portalUrl(checkoutUrl: string, portalToken: string): string {
  return `${checkoutUrl}/subscriptions/${portalToken}`;
}
