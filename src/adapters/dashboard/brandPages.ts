import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { imageSize } from 'image-size';
import { type BrandDeps, removeLogo, updateBrand } from '../../app/brand/updateBrand.ts';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { type DetectedImage, LOGO_TYPES, type LogoRules } from '../../domain/brand.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { type BrandForm, renderBrand } from './renderBrand.ts';

/** What the bytes are, read from the bytes alone (the client's stated type is never trusted); undefined: no image. */
export function detectImage(bytes: Uint8Array): DetectedImage | undefined {
  try {
    const found = imageSize(bytes);
    return { format: found.type, width: found.width, height: found.height };
  } catch {
    return undefined;
  }
}

/**
 * The multipart parser of the brand form, on the dashboard's context: a file past the operator's limit is cut
 * off by the parser itself (never held whole in memory) and refused as the `logo` field's problem.
 */
export async function registerLogoUpload(app: FastifyInstance, rules: LogoRules): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    // An address of 300 characters is up to 1,200 bytes of UTF-8.
    limits: { fileSize: rules.maxBytes, files: 1, fields: 10, fieldSize: 2_048, parts: 11 },
  });
}

/** The brand form's field typed as lines, the only one whose line breaks the dashboard's text rule lets pass. */
export const ADDRESS_FIELD: ReadonlySet<string> = new Set(['address']);

/** The parser's refusal of a file past the limit, as the brand form's refusal of its `logo` field. */
export function logoTooLarge(error: unknown, rules: LogoRules): ValidationError | undefined {
  if ((error as { code?: unknown }).code !== 'FST_REQ_FILE_TOO_LARGE') return undefined;
  return new ValidationError('logo', `must be at most ${Math.floor(rules.maxBytes / 1024)} KiB`);
}

/**
 * The merchant's brand page (decision 0052): its users only (a PoS user is refused by requireRole's requireUser,
 * an operator gets a 404). The form is multipart, for the logo; its CSRF token is one of its fields.
 */
export function brandPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const { branding } = deps;
  if (!branding) return;
  const brandDeps: BrandDeps = { brands: branding.store, clock: deps.clock, logoRules: branding.logoRules };
  const show = async (signedIn: SignedIn, reply: FastifyReply, form?: Partial<BrandForm>) => {
    const merchantId = merchantOf(signedIn.user);
    const [merchant, brand] = await Promise.all([
      deps.merchants.find(merchantId),
      branding.store.find(merchantId),
    ]);
    return reply.send(
      renderBrand(signedIn, kit.context(reply.request), {
        merchantName: merchant?.name ?? '',
        brand,
        rules: branding.logoRules,
        form: {
          displayName: brand?.displayName ?? '',
          colour: brand?.colour ?? '',
          address: brand?.address ?? '',
          taxId: brand?.taxId ?? '',
          ...form,
        },
      }),
    );
  };

  app.get('/dashboard/brand', async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    return show(signedIn, reply, { saved: (request.query as { saved?: string }).saved === '1' });
  });

  app.post('/dashboard/brand', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    // An empty file input still sends its part: no bytes is no new logo.
    const file = body.logo instanceof Uint8Array && body.logo.length > 0 ? body.logo : undefined;
    try {
      await updateBrand(brandDeps, merchantOf(signedIn.user), {
        displayName: text('display_name'),
        colour: text('colour'),
        address: text('address'),
        taxId: text('tax_id'),
        logo: file && { bytes: file, image: detectImage(file) },
      });
      return reply.redirect('/dashboard/brand?saved=1', 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return show(signedIn, reply.status(error.status), {
        displayName: text('display_name'),
        colour: text('colour'),
        address: text('address'),
        taxId: text('tax_id'),
        problem: error.message,
        problemField: error.field,
      });
    }
  });

  app.post('/dashboard/brand/logo/remove', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    await removeLogo(brandDeps, merchantOf(signedIn.user));
    return reply.redirect('/dashboard/brand', 303);
  });

  // The signed-in merchant's own logo, for the page above (the checkout's copy is on the checkout's origin).
  app.get('/dashboard/brand/:file', async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const [hash = '', extension = ''] = (request.params as { file: string }).file.split('.');
    const logo = await branding.store.findLogo(merchantOf(signedIn.user), hash);
    if (!logo || logo.extension !== extension) return kit.refuse(reply, signedIn, 404);
    return reply
      .type(LOGO_TYPES[logo.extension])
      .header('cache-control', 'private, max-age=3600')
      .send(Buffer.from(logo.bytes));
  });
}
