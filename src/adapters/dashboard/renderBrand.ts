import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { ADDRESS_MAX, type Brand, DISPLAY_NAME_MAX, type LogoRules, TAX_ID_MAX } from '../../domain/brand.ts';
import { format, html } from '../web/html.ts';
import { csrfField, type PageContext, signedInPage } from './renderDashboard.ts';

/** The brand form as posted and refused (the text fields shown again, the one at fault marked), or saved. */
export interface BrandForm {
  readonly displayName: string;
  readonly colour: string;
  readonly address: string;
  readonly taxId: string;
  readonly problem?: string | undefined;
  readonly problemField?: string | undefined;
  readonly saved?: boolean | undefined;
}

/**
 * The merchant's brand page (decision 0052): display name, colour, logo and the receipts' address and tax id
 * (decision 0057) in one form, and "Remove logo".
 */
export function renderBrand(
  signedIn: SignedIn,
  ctx: PageContext,
  input: {
    readonly merchantName: string;
    readonly brand: Brand | undefined;
    readonly rules: LogoRules;
    readonly form: BrandForm;
  },
): string {
  const b = ctx.t.brand;
  const { form, brand, rules } = input;
  const invalid = (name: string) =>
    form.problemField === name ? html` aria-invalid="true" aria-describedby="brand-problem"` : null;
  const logo = brand?.logo;
  const body = html`<div class="card brand-page">
  <h1>${b.title}</h1>
  <p class="muted">${b.intro}</p>
  ${form.saved ? html`<p class="notice" role="status">${b.saved}</p>` : null}
  ${form.problem ? html`<p class="error" role="alert" id="brand-problem">${form.problem}</p>` : null}
  <form class="stack" method="post" action="/dashboard/brand" enctype="multipart/form-data">
    ${csrfField(signedIn)}
    <label for="brand-name">${b.displayName}</label>
    <input id="brand-name" name="display_name" type="text" maxlength="${DISPLAY_NAME_MAX}" autocomplete="organization" value="${form.displayName}" aria-describedby="brand-name-hint"${invalid('display_name')}>
    <p class="muted small" id="brand-name-hint">${format(b.displayNameHint, { name: input.merchantName })}</p>
    <label for="brand-colour">${b.colour}</label>
    <input id="brand-colour" name="colour" type="text" maxlength="7" autocomplete="off" placeholder="#1d4ed8" value="${form.colour}" aria-describedby="brand-colour-hint"${invalid('colour')}>
    <p class="muted small" id="brand-colour-hint">${b.colourHint}</p>
    <label for="brand-logo">${b.logo}</label>
    <input id="brand-logo" name="logo" type="file" accept="image/png,image/jpeg,image/webp" aria-describedby="brand-logo-hint"${invalid('logo')}>
    <p class="muted small" id="brand-logo-hint">${format(b.logoHint, { kib: Math.floor(rules.maxBytes / 1024), pixels: rules.maxPixels })}</p>
    <label for="brand-address">${b.address}</label>
    <textarea id="brand-address" name="address" rows="4" maxlength="${ADDRESS_MAX}" autocomplete="street-address" aria-describedby="brand-address-hint"${invalid('address')}>${form.address}</textarea>
    <p class="muted small" id="brand-address-hint">${b.addressHint}</p>
    <label for="brand-tax-id">${b.taxId}</label>
    <input id="brand-tax-id" name="tax_id" type="text" maxlength="${TAX_ID_MAX}" autocomplete="off" value="${form.taxId}" aria-describedby="brand-tax-id-hint"${invalid('tax_id')}>
    <p class="muted small" id="brand-tax-id-hint">${b.taxIdHint}</p>
    <button type="submit">${b.save}</button>
  </form>
  <h2>${b.currentLogo}</h2>
  ${
    logo
      ? html`<p><img class="brand-logo" src="/dashboard/brand/${logo.hash}.${logo.extension}" alt="${brand?.displayName ?? input.merchantName}" width="${logo.width}" height="${logo.height}"></p>
  <form method="post" action="/dashboard/brand/logo/remove">${csrfField(signedIn)}<button type="submit" class="secondary">${b.removeLogo}</button></form>`
      : html`<p>${b.noLogo}</p>`
  }
</div>`;
  return signedInPage(signedIn, ctx, b.title, body);
}
