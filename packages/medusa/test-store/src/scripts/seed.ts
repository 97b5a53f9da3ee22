import { writeFileSync } from 'node:fs';
import type { ExecArgs } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createShippingOptionsWorkflow,
  createStockLocationsWorkflow,
  createTaxRegionsWorkflow,
  createUserAccountWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
  updateStoresWorkflow,
} from '@medusajs/medusa/core-flows';

/**
 * One US store selling one $25.00 product with Paylink (and Medusa's system provider) in its region, a
 * shipping option, a publishable key and an admin user. Writes the ids the tests need to SEED_OUTPUT.
 */
export default async function seed({ container }: ExecArgs): Promise<void> {
  const link = container.resolve(ContainerRegistrationKeys.LINK);
  const salesChannels = container.resolve(Modules.SALES_CHANNEL);
  const stores = container.resolve(Modules.STORE);
  const fulfillment = container.resolve(Modules.FULFILLMENT);
  const auth = container.resolve(Modules.AUTH);

  let [channel] = await salesChannels.listSalesChannels({ name: 'Default Sales Channel' });
  if (!channel) {
    const { result } = await createSalesChannelsWorkflow(container).run({
      input: { salesChannelsData: [{ name: 'Default Sales Channel' }] },
    });
    channel = result[0]!;
  }
  const [store] = await stores.listStores();
  await updateStoresWorkflow(container).run({
    input: {
      selector: { id: store!.id },
      update: {
        supported_currencies: [{ currency_code: 'usd', is_default: true }],
        default_sales_channel_id: channel.id,
      },
    },
  });
  const { result: regions } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        {
          name: 'United States',
          currency_code: 'usd',
          countries: ['us'],
          payment_providers: ['pp_system_default', 'pp_paylink_paylink'],
        },
      ],
    },
  });
  const region = regions[0]!;
  await createTaxRegionsWorkflow(container).run({
    input: [{ country_code: 'us', provider_id: 'tp_system' }],
  });

  const { result: locations } = await createStockLocationsWorkflow(container).run({
    input: {
      locations: [
        { name: 'Warehouse', address: { address_1: '1 Main St', city: 'Austin', country_code: 'US' } },
      ],
    },
  });
  const location = locations[0]!;
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_provider_id: 'manual_manual' },
  });
  const [profile] = await fulfillment.listShippingProfiles({ type: 'default' });
  const set = await fulfillment.createFulfillmentSets({
    name: 'US delivery',
    type: 'shipping',
    service_zones: [{ name: 'US', geo_zones: [{ country_code: 'us', type: 'country' }] }],
  });
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_set_id: set.id },
  });
  await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: 'Standard',
        price_type: 'flat',
        provider_id: 'manual_manual',
        service_zone_id: set.service_zones[0]!.id,
        shipping_profile_id: profile!.id,
        type: { label: 'Standard', description: 'Ships in 2 days', code: 'standard' },
        prices: [
          { currency_code: 'usd', amount: 2 },
          { region_id: region.id, amount: 2 },
        ],
        rules: [
          { attribute: 'enabled_in_store', value: 'true', operator: 'eq' },
          { attribute: 'is_return', value: 'false', operator: 'eq' },
        ],
      },
    ],
  });
  await linkSalesChannelsToStockLocationWorkflow(container).run({
    input: { id: location.id, add: [channel.id] },
  });
  const { result: keys } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: 'Storefront', type: 'publishable', created_by: '' }] },
  });
  const key = keys[0]!;
  await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: key.id, add: [channel.id] } });
  const { result: products } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: 'Paylink mug',
          handle: 'paylink-mug',
          status: 'published',
          shipping_profile_id: profile!.id,
          options: [{ title: 'Size', values: ['One size'] }],
          variants: [
            {
              title: 'One size',
              sku: 'MUG-1',
              manage_inventory: false,
              options: { Size: 'One size' },
              prices: [{ amount: 25, currency_code: 'usd' }],
            },
          ],
          sales_channels: [{ id: channel.id }],
        },
      ],
    },
  });

  const email = process.env.SEED_ADMIN_EMAIL ?? 'admin@shop.test';
  const password = process.env.SEED_ADMIN_PASSWORD ?? 'admin-password';
  const { authIdentity } = await auth.register('emailpass', { body: { email, password } });
  await createUserAccountWorkflow(container).run({
    input: { authIdentityId: authIdentity!.id, userData: { email } },
  });

  const output = process.env.SEED_OUTPUT;
  const seeded = {
    publishable_key: key.token,
    region_id: region.id,
    variant_id: products[0]!.variants[0]!.id,
    admin: { email, password },
  };
  if (output) writeFileSync(output, JSON.stringify(seeded));
}
