/**
 * A payment's short reference (decision 0053): what a person reads out on the phone or types into the
 * dashboard's search, `PL-7K2M-9QXD`; the UUID stays the API's id. It is the last 40 bits of the payment's id
 * (random in a UUIDv7) in Crockford's base 32, so it is known as soon as the id is, and stored beside it for the
 * index that finds it and keeps it unique per merchant (a clash on create draws a new id).
 */

/** Crockford's base 32: no I, L, O or U, so nothing read aloud or copied by hand is ambiguous. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PREFIX = 'PL-';
/** The hex digits of the id the reference is made of: 10 digits, 40 bits, 8 characters of base 32. */
const ID_TAIL_DIGITS = 10;
const REFERENCE_CHARACTERS = 8;

/** The reference of a payment id (a UUID): `PL-` and two groups of four characters. */
export function paymentReference(paymentId: string): string {
  const hex = paymentId.replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a payment id: ${paymentId}`);
  let value = BigInt(`0x${hex.slice(-ID_TAIL_DIGITS)}`);
  let characters = '';
  for (let i = 0; i < REFERENCE_CHARACTERS; i++) {
    characters = ALPHABET[Number(value & 31n)] + characters;
    value >>= 5n;
  }
  return `${PREFIX}${characters.slice(0, 4)}-${characters.slice(4)}`;
}

/**
 * The reference a person typed, as stored, or undefined when it cannot be one: any letter case, with or without
 * the `PL` prefix and the dashes or spaces, and the letters people confuse read as Crockford says (I and L as 1,
 * O as 0).
 */
export function parsePaymentReference(text: string): string | undefined {
  const compact = text
    .trim()
    .toUpperCase()
    .replace(/^PL[-\s]?/, '')
    .replace(/[-\s]/g, '')
    .replace(/[IL]/g, '1')
    .replace(/O/g, '0');
  if (compact.length !== REFERENCE_CHARACTERS) return undefined;
  for (const character of compact) if (!ALPHABET.includes(character)) return undefined;
  return `${PREFIX}${compact.slice(0, 4)}-${compact.slice(4)}`;
}
