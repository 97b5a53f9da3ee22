import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import {
  csrfOf,
  DASHBOARD_ORIGIN,
  type DashboardSession,
  dashboardClient,
} from '../helpers/dashboardClient.ts';
import { countRows, dialects } from '../helpers/database.ts';
import { SCRIPTED_SVG, solidPng, TINY_GIF } from '../helpers/images.ts';

type Part = string | { readonly bytes: Buffer; readonly filename: string; readonly type: string };

/** A multipart form as a browser sends it (the file's stated type is the client's, never trusted). */
function multipart(fields: Record<string, Part>): { body: Buffer; type: string } {
  const boundary = '----paylinkbrandtest';
  const parts = Object.entries(fields).map(([name, value]) =>
    typeof value === 'string'
      ? Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      : Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type}\r\n\r\n`,
          ),
          value.bytes,
          Buffer.from('\r\n'),
        ]),
  );
  return {
    body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

const BLUE_LOGO = solidPng(40, 20, [0x0b, 0x5f, 0x3a]);

/**
 * The merchant's brand page over the real app on each database (decision 0052): the form saves the display name,
 * colour and logo; each bad input is a 400 naming its field with nothing written; CSRF is checked; the logo can
 * be removed; a PoS user is refused.
 */
describe.each(dialects)('the brand page on %s', (dialect) => {
  let h: ApiHarness;
  let shop: { id: string };
  let owner: DashboardSession;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: {
        passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }),
        deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(TEST_CHAIN) },
      },
    });
    shop = await h.merchant({ name: 'Corner Roastery' });
    owner = await dashboardClient(h).signedIn('owner@roastery.example', 'merchant', shop.id);
    const page = await owner.get('/dashboard/brand');
    csrf = csrfOf(page.body);
    cookie = owner.cookie;
  });
  afterAll(() => h?.close());

  const send = (fields: Record<string, Part>, withCsrf = true) => {
    const { body, type } = multipart(withCsrf ? { csrf, ...fields } : fields);
    return h.app.inject({
      method: 'POST',
      url: '/dashboard/brand',
      headers: { 'content-type': type, origin: DASHBOARD_ORIGIN, cookie: `${SESSION_COOKIE}=${cookie}` },
      payload: body,
    });
  };
  const png = (bytes: Buffer) => ({ bytes, filename: 'logo.png', type: 'image/png' });

  it("saves the display name, colour and logo, the logo's kind read from its bytes", async () => {
    const saved = await send({
      display_name: ' Corner Roastery Kreuzberg ',
      colour: '#0B5F3A',
      logo: png(BLUE_LOGO),
      // A textarea sends CRLF; blank lines and the lines' spaces go.
      address: ' Oranienstraße 12 \r\n\r\n10999 Berlin\r\n',
      tax_id: ' DE123456789 ',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/dashboard/brand?saved=1');
    const brand = await h.stores.brands.find(shop.id);
    expect(brand).toMatchObject({
      displayName: 'Corner Roastery Kreuzberg',
      colour: '#0b5f3a',
      address: 'Oranienstraße 12\n10999 Berlin',
      taxId: 'DE123456789',
    });
    expect(brand?.logo).toMatchObject({ extension: 'png', width: 40, height: 20 });
    expect(Buffer.from(brand?.logo?.bytes ?? [])).toEqual(BLUE_LOGO);
    const page = await owner.get('/dashboard/brand?saved=1');
    expect(page.body).toContain(`src="/dashboard/brand/${brand?.logo?.hash}.png"`);
    expect(page.body).toContain('alt="Corner Roastery Kreuzberg" width="40" height="20"');
    expect(page.body).toContain('>Oranienstraße 12\n10999 Berlin</textarea>');
    expect(page.body).toContain(
      'name="tax_id" type="text" maxlength="40" autocomplete="off" value="DE123456789"',
    );
    const logo = await owner.get(`/dashboard/brand/${brand?.logo?.hash}.png`);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.rawPayload).toEqual(BLUE_LOGO);
  });

  it.each([
    [
      'a file past the size limit',
      { logo: png(Buffer.concat([BLUE_LOGO, Buffer.alloc(300 * 1024)])) },
      'logo',
      'at most 256 KiB',
    ],
    [
      'a GIF',
      { logo: { bytes: TINY_GIF, filename: 'logo.png', type: 'image/png' } },
      'logo',
      'PNG, JPEG or WebP',
    ],
    [
      'an SVG',
      { logo: { bytes: SCRIPTED_SVG, filename: 'logo.svg', type: 'image/svg+xml' } },
      'logo',
      'PNG, JPEG or WebP',
    ],
    ['not an image', { logo: png(Buffer.from('hello, not a picture')) }, 'logo', 'PNG, JPEG or WebP'],
    ['too many pixels', { logo: png(solidPng(1025, 1, [0, 0, 0])) }, 'logo', 'at most 1024 pixels'],
    ['a colour not #rrggbb', { colour: 'blue' }, 'colour', '#rrggbb'],
    ['a colour too light for white text', { colour: '#ffd700' }, 'colour', 'contrast'],
    ['a display name too long', { display_name: 'x'.repeat(81) }, 'display_name', 'at most 80'],
    ['an address of seven lines', { address: 'a\nb\nc\nd\ne\nf\ng' }, 'address', 'at most 6 lines'],
    ['an address too long', { address: 'x'.repeat(301) }, 'address', 'at most 300'],
    ['an address with a control character', { address: 'Main St\u0007 1' }, 'address', 'control'],
    ['a tax id too long', { tax_id: 'D'.repeat(41) }, 'tax_id', 'at most 40'],
    ['a tax id on two lines', { tax_id: 'DE1\nDE2' }, 'tax_id', 'control'],
  ] as const)(
    'refuses %s with a 400 naming the field, writing nothing',
    async (_name, fields, field, words) => {
      const before = await h.stores.brands.find(shop.id);
      const refused = await send({ display_name: 'Changed', colour: '#000000', ...fields });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain(field);
      expect(refused.body).toContain(words);
      expect(await h.stores.brands.find(shop.id)).toEqual(before);
    },
  );

  it("refuses a form without the session's CSRF token, writing nothing", async () => {
    const before = await h.stores.brands.find(shop.id);
    const refused = await send({ display_name: 'Forged', colour: '#000000' }, false);
    expect(refused.statusCode).toBe(403);
    expect(await h.stores.brands.find(shop.id)).toEqual(before);
  });

  it('keeps the logo when none is sent, removes it on "Remove logo"', async () => {
    const kept = await send({
      display_name: '',
      colour: '',
      logo: { bytes: Buffer.alloc(0), filename: '', type: 'application/octet-stream' },
    });
    expect(kept.statusCode).toBe(303);
    const brand = await h.stores.brands.find(shop.id);
    expect(brand).toMatchObject({ displayName: null, colour: null, logo: { width: 40 } });
    expect((await owner.post('/dashboard/brand/logo/remove')).statusCode).toBe(303);
    expect((await h.stores.brands.find(shop.id))?.logo).toBeNull();
    expect(await countRows(h.database.handle.db, 'merchant_brands')).toBe(1);
  });

  it('refuses a PoS user the page and the form', async () => {
    const staff = await dashboardClient(h).signedIn('till@roastery.example', 'pos', shop.id);
    expect((await staff.get('/dashboard/brand')).statusCode).toBe(403);
    expect((await staff.post('/dashboard/brand/logo/remove')).statusCode).toBe(403);
  });
});
