import type { FastifyInstance } from 'fastify';
import type { BrandStore } from '../../app/brand/ports.ts';
import { type Brand, darkerColour, LOGO_TYPES } from '../../domain/brand.ts';
import { html, type SafeHtml } from '../web/html.ts';
import type { PageAssets } from './pageLayout.ts';

/** How a page presents the merchant: the name shown, its logo, and the stylesheet that sets its colour. */
export interface ShownBrand {
  readonly name: string;
  readonly logo: SafeHtml | null;
  /** The page's files, with the merchant's colour stylesheet linked after Paylink's when it has a colour. */
  readonly assets: PageAssets;
}

/** The merchant's branding on a page: its display name (else its name), its logo and its colour, if set. */
export function shownBrand(
  merchant: { readonly id: string; readonly name: string },
  brand: Brand | undefined,
  assets: PageAssets,
): ShownBrand {
  const name = brand?.displayName ?? merchant.name;
  const logo = brand?.logo;
  return {
    name,
    // Its width and height are the file's, so the page does not move when it loads (the stylesheet caps both).
    logo: logo
      ? html`<img class="merchant-logo" src="/brand/${merchant.id}/${logo.hash}.${logo.extension}" alt="${name}" width="${logo.width}" height="${logo.height}">`
      : null,
    assets: brand?.colour
      ? { ...assets, brandStylesheet: `/brand/${merchant.id}/${brand.colour.slice(1)}.css` }
      : assets,
  };
}

/** The merchant's branding for a page, where the checkout has a store of it. */
export async function loadShownBrand(
  brands: Pick<BrandStore, 'find'> | undefined,
  merchant: { readonly id: string; readonly name: string },
  assets: PageAssets,
): Promise<ShownBrand> {
  return shownBrand(merchant, await brands?.find(merchant.id), assets);
}

const LOGO_FILE = /^([0-9a-f]{64})\.(png|jpg|webp)$/;
const COLOUR_FILE = /^([0-9a-f]{6})\.css$/;

/**
 * `GET /brand/<merchant>/<sha-256>.<png|jpg|webp>` a merchant's logo, `GET /brand/<merchant>/<rrggbb>.css` its
 * colour as the checkout's two accent variables (decision 0052). Each URL names its content (a new logo or
 * colour is a new URL), so both are cached for good; a URL that is not the merchant's current one is a 404.
 * Served from Paylink's origin with the exact type, `nosniff` and a policy that allows nothing: the bytes are
 * only ever an image or a stylesheet, never a document.
 */
export function registerBrandRoutes(
  app: FastifyInstance,
  brands: Pick<BrandStore, 'find' | 'findLogo'>,
): void {
  app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      // After the checkout's own headers (its pages' policy): these files need none of it.
      reply.header('content-security-policy', "default-src 'none'");
      return payload;
    });
    scope.get('/brand/:merchant/:file', { logLevel: 'warn' }, async (request, reply) => {
      const { merchant, file } = request.params as { merchant: string; file: string };
      const logoFile = LOGO_FILE.exec(file);
      const colourFile = COLOUR_FILE.exec(file);
      const immutable = () => reply.header('cache-control', 'public, max-age=31536000, immutable');
      if (logoFile) {
        const logo = await brands.findLogo(merchant, logoFile[1] as string);
        if (logo && logo.extension === logoFile[2]) {
          immutable().type(LOGO_TYPES[logo.extension]);
          return Buffer.from(logo.bytes);
        }
      } else if (colourFile) {
        const colour = `#${colourFile[1]}`;
        if ((await brands.find(merchant))?.colour === colour) {
          immutable().type('text/css; charset=utf-8');
          return `:root{--accent:${colour};--accent-dark:${darkerColour(colour)}}\n`;
        }
      }
      return reply.callNotFound();
    });
  });
}
