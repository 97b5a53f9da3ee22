// The point of sale's catalogue (migration 0043) and merchants' branding (0041); schema.ts holds the whole schema.

/** An item a merchant sells at its counter: its price in `currency`'s minor units, as integer text. */
export interface PosCatalogueItemsTable {
  id: string;
  merchant_id: string;
  name: string;
  currency: string;
  unit_price_minor_units: string;
  /** The item's place at the counter: one more than the merchant's last item's when added. */
  position: number;
  created_at: string;
}

/** A merchant's branding (decision 0052): the logo's columns are all set or all null. */
export interface MerchantBrandsTable {
  merchant_id: string;
  display_name: string | null;
  colour: string | null;
  logo: Uint8Array | null;
  logo_extension: string | null;
  logo_width: number | null;
  logo_height: number | null;
  logo_hash: string | null;
  /** Migration 0045: the address and tax id printed on receipts (decision 0057). */
  address: string | null;
  tax_id: string | null;
  updated_at: string;
}
