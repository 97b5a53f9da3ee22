import type { Migration } from 'kysely';
import * as initial from './0001_initial.ts';
import * as chain from './0002_chain.ts';
import * as webhooks from './0003_webhooks.ts';
import * as settlement from './0005_settlement.ts';
import * as idempotency from './0006_idempotency.ts';
import * as testMode from './0008_test_mode.ts';
import * as paymentChangeNotifications from './0009_payment_change_notifications.ts';
import * as dropSupersededPaymentIndex from './0010_drop_superseded_payment_index.ts';
import * as payouts from './0011_payouts.ts';
import * as hardening from './0012_hardening.ts';
import * as acceptedTokens from './0013_accepted_tokens.ts';
import * as gaslessAuthorizations from './0014_gasless_authorizations.ts';
import * as refunds from './0015_refunds.ts';
import * as dashboardUsers from './0016_dashboard_users.ts';
import * as dashboardIndexes from './0017_dashboard_indexes.ts';
import * as emailMessages from './0020_email_messages.ts';
import * as paymentLinks from './0021_payment_links.ts';
import * as receipts from './0024_receipts.ts';
import * as customerLanguage from './0025_customer_language.ts';
import * as merchantHome from './0026_merchant_home.ts';
import * as bridgeSettlement from './0027_bridge_settlement.ts';
import * as bridgeFee from './0031_bridge_fee.ts';
import * as bridgeFeeQuote from './0032_bridge_fee_quote.ts';
import * as bridgeReattestation from './0036_bridge_reattestation.ts';
import * as fastBurn from './0037_fast_burn.ts';
import * as txidChain from './0039_txid_chain.ts';
import * as paymentItems from './0040_payment_items.ts';
import * as merchantBranding from './0041_merchant_branding.ts';
import * as paymentReference from './0042_payment_reference.ts';
import * as posCatalogue from './0043_pos_catalogue.ts';
import * as restrictedKeys from './0044_restricted_keys.ts';
import * as merchantAddress from './0045_merchant_address.ts';
import * as webhookEndpoints from './0046_webhook_endpoints.ts';
import * as x402 from './0047_x402.ts';
import * as subscriptions from './0048_subscriptions.ts';
import * as subscriptionMandates from './0049_subscription_mandates.ts';
import * as subscriptionPortal from './0050_subscription_portal.ts';
import * as x402AccountTerms from './0051_x402_account_terms.ts';
import * as subscriptionTimeline from './0052_subscription_timeline.ts';
import * as mandateChainCancels from './0054_mandate_chain_cancels.ts';

/** Every migration, in order. Names sort lexically; a migration, once released, is never edited. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_chain': chain,
  '0003_webhooks': webhooks,
  '0005_settlement': settlement,
  '0006_idempotency': idempotency,
  '0008_test_mode': testMode,
  '0009_payment_change_notifications': paymentChangeNotifications,
  '0010_drop_superseded_payment_index': dropSupersededPaymentIndex,
  '0011_payouts': payouts,
  '0012_hardening': hardening,
  '0013_accepted_tokens': acceptedTokens,
  '0014_gasless_authorizations': gaslessAuthorizations,
  '0015_refunds': refunds,
  '0016_dashboard_users': dashboardUsers,
  '0017_dashboard_indexes': dashboardIndexes,
  '0020_email_messages': emailMessages,
  '0021_payment_links': paymentLinks,
  '0024_receipts': receipts,
  '0025_customer_language': customerLanguage,
  '0026_merchant_home': merchantHome,
  '0027_bridge_settlement': bridgeSettlement,
  '0031_bridge_fee': bridgeFee,
  '0032_bridge_fee_quote': bridgeFeeQuote,
  '0036_bridge_reattestation': bridgeReattestation,
  '0037_fast_burn': fastBurn,
  '0039_txid_chain': txidChain,
  '0040_payment_items': paymentItems,
  '0041_merchant_branding': merchantBranding,
  '0042_payment_reference': paymentReference,
  '0043_pos_catalogue': posCatalogue,
  '0044_restricted_keys': restrictedKeys,
  '0045_merchant_address': merchantAddress,
  '0046_webhook_endpoints': webhookEndpoints,
  '0047_x402': x402,
  '0048_subscriptions': subscriptions,
  '0049_subscription_mandates': subscriptionMandates,
  '0050_subscription_portal': subscriptionPortal,
  '0051_x402_account_terms': x402AccountTerms,
  '0052_subscription_timeline': subscriptionTimeline,
  '0054_mandate_chain_cancels': mandateChainCancels,
};
