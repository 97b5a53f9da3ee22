// The point of sale's catalogue (migration 0043; schema.ts holds the whole schema).

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
