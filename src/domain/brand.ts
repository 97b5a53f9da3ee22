import { ValidationError } from './errors.ts';
import { textProblem } from './text.ts';

/**
 * A merchant's branding on the pages its customers see (decision 0052): the name shown, a colour for the pay
 * button and accents, a logo. Each part is optional: without one, the page shows the merchant's name and
 * Paylink's own colour.
 */
export interface Brand {
  readonly merchantId: string;
  /** null: the merchant's name. */
  readonly displayName: string | null;
  /** `#rrggbb`, lower case; null: Paylink's colour. */
  readonly colour: string | null;
  readonly logo: BrandLogo | null;
  /** The postal or business address printed on receipts (decision 0057), lines joined by `\n`; null: none. */
  readonly address: string | null;
  /** A tax or VAT id printed on receipts; null: none. */
  readonly taxId: string | null;
  readonly updatedAt: Date;
}

/** A logo's content type, detected from its bytes: raster formats only (no SVG: it can carry script). */
export const LOGO_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
export type LogoExtension = keyof typeof LOGO_TYPES;

export interface BrandLogo {
  readonly bytes: Uint8Array;
  readonly extension: LogoExtension;
  readonly width: number;
  readonly height: number;
  /** sha-256 of the bytes, hex: the logo's URL, so a new logo is a new URL and the old one may be cached for good. */
  readonly hash: string;
}

/** What an operator allows a logo to be (PAYLINK_LOGO_MAX_BYTES, PAYLINK_LOGO_MAX_PIXELS). */
export interface LogoRules {
  readonly maxBytes: number;
  /** Most pixels on each side. */
  readonly maxPixels: number;
}

export const DEFAULT_LOGO_RULES: LogoRules = { maxBytes: 256 * 1024, maxPixels: 1024 };
export const DISPLAY_NAME_MAX = 80;
/** An address fits a receipt's header: a few lines, as an envelope has. */
export const ADDRESS_MAX = 300;
export const ADDRESS_LINES_MAX = 6;
export const TAX_ID_MAX = 40;

/** What a logo's bytes were found to be (read by an adapter: the client's stated type is never trusted). */
export interface DetectedImage {
  /** image-size's name of the format (png, jpg, webp, svg, gif…); undefined: not an image it knows. */
  readonly format: string | undefined;
  readonly width: number;
  readonly height: number;
}

/** The display name typed, trimmed; empty: none (the merchant's name is shown). */
export function displayNameOf(typed: string): string | null {
  const name = typed.trim();
  if (name === '') return null;
  const problem = textProblem(name);
  if (problem) throw new ValidationError('display_name', problem);
  if ([...name].length > DISPLAY_NAME_MAX)
    throw new ValidationError('display_name', `must be at most ${DISPLAY_NAME_MAX} characters`);
  return name;
}

/**
 * The address typed, one line of the address per line of text: each line trimmed, blank lines dropped, joined by
 * `\n` (a textarea sends `\r\n`); empty: none. Line breaks are the only control characters it may hold.
 */
export function businessAddressOf(typed: string): string | null {
  const lines = typed
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) return null;
  for (const line of lines) {
    const problem = textProblem(line);
    if (problem) throw new ValidationError('address', problem);
  }
  if (lines.length > ADDRESS_LINES_MAX)
    throw new ValidationError('address', `must be at most ${ADDRESS_LINES_MAX} lines`);
  const address = lines.join('\n');
  if ([...address].length > ADDRESS_MAX)
    throw new ValidationError('address', `must be at most ${ADDRESS_MAX} characters`);
  return address;
}

/** The tax or VAT id typed ("DE123456789"), trimmed, one line; empty: none. Its format is each country's own. */
export function taxIdOf(typed: string): string | null {
  const taxId = typed.trim();
  if (taxId === '') return null;
  const problem = textProblem(taxId);
  if (problem) throw new ValidationError('tax_id', problem);
  if ([...taxId].length > TAX_ID_MAX)
    throw new ValidationError('tax_id', `must be at most ${TAX_ID_MAX} characters`);
  return taxId;
}

/**
 * The colour typed (`#rrggbb`), lower case; empty: none. The pay button's text is white, so a colour that white
 * text cannot be read on (contrast below WCAG AA's 4.5:1) is refused rather than shown unreadable.
 */
export function brandColourOf(typed: string): string | null {
  const colour = typed.trim().toLowerCase();
  if (colour === '') return null;
  if (!/^#[0-9a-f]{6}$/.test(colour)) throw new ValidationError('colour', 'must be a colour written #rrggbb');
  const ratio = contrastWithWhite(colour);
  if (ratio < 4.5)
    throw new ValidationError(
      'colour',
      `is too light for white text: contrast ${ratio.toFixed(2)}:1, at least 4.5:1 is needed`,
    );
  return colour;
}

/** WCAG 2's contrast ratio of white on `#rrggbb`. */
export function contrastWithWhite(colour: string): number {
  const channel = (at: number) => {
    const c = Number.parseInt(colour.slice(at, at + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (luminance + 0.05);
}

/** The same colour darker (each channel × 0.8): the hover and pressed shade, as Paylink's own pair. */
export function darkerColour(colour: string): string {
  const channel = (at: number) =>
    Math.round(Number.parseInt(colour.slice(at, at + 2), 16) * 0.8)
      .toString(16)
      .padStart(2, '0');
  return `#${channel(1)}${channel(3)}${channel(5)}`;
}

/** The logo's kind and size checked against the operator's rules: the field `logo` named in every refusal. */
export function checkedLogo(
  bytes: Uint8Array,
  image: DetectedImage | undefined,
  rules: LogoRules,
): Omit<BrandLogo, 'hash'> {
  if (bytes.length > rules.maxBytes)
    throw new ValidationError('logo', `must be at most ${Math.floor(rules.maxBytes / 1024)} KiB`);
  const extension = image?.format === 'jpeg' ? 'jpg' : image?.format;
  if (image === undefined || extension === undefined || !(extension in LOGO_TYPES))
    throw new ValidationError('logo', 'must be a PNG, JPEG or WebP image');
  if (image.width > rules.maxPixels || image.height > rules.maxPixels)
    throw new ValidationError('logo', `must be at most ${rules.maxPixels} pixels on each side`);
  if (image.width < 1 || image.height < 1)
    throw new ValidationError('logo', 'must be a PNG, JPEG or WebP image');
  return { bytes, extension: extension as LogoExtension, width: image.width, height: image.height };
}
