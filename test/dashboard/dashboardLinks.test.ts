import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { editLink } from '../../src/app/links/manageLinks.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { DASHBOARD_PASSWORD, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

/**
 * Reusable links ("payment pages") on the merchant's dashboard, over the real app on each database: a fixed-price
 * link with a quantity and an open-amount donation link made from the form through the API's use case, the list
 * with what each brought, a link's page with its public URL, QR code and payments, and deactivation confirmed.
 */
describe.each(dialects)('dashboard links on %s', (dialect) => {
  let h: ApiHarness;
  let shop: { id: string; apiKey: string };
  let otherLink: string;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    shop = await h.merchant({ name: 'Corner Shop' });
    const other = await h.merchant({ name: 'Other Shop' });
    otherLink = (
      await api('POST', '/payments/api/links/', other.apiKey, {
        title: 'Theirs',
        price_type: 'fixed',
        currency: 'USDC',
        amount: '3.00',
      })
    ).json().link_id;
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'ana@corner.example', role: 'merchant', merchantId: shop.id },
    );
    await post('/dashboard/set-password', { token, password: DASHBOARD_PASSWORD });
    const signIn = await post('/dashboard/login', {
      email: 'ana@corner.example',
      password: DASHBOARD_PASSWORD,
    });
    cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    csrf = /name="csrf" value="([^"]+)"/.exec((await get('/dashboard/links/new')).body)![1]!;
  });
  afterAll(() => h?.close());

  const api = (method: 'GET' | 'POST', url: string, apiKey: string, payload?: unknown) =>
    h.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
  // Forms posted from the dashboard's origin, pages read with the merchant's session (helpers/dashboardClient.ts).
  const post = (url: string, form: Record<string, string>, session?: string) =>
    dashboardClient(h).post(url, form, session);
  const get = (url: string) => dashboardClient(h).get(url, cookie);
  const linkIdOf = (location: string | undefined) =>
    /^\/dashboard\/links\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

  let fixedId: string;
  let donationId: string;

  it('makes a fixed-price link with a quantity and a donation link with an open amount, as the API reads them', async () => {
    const fixed = await post(
      '/dashboard/links/new',
      {
        csrf,
        title: 'Blue teapot',
        description: 'Hand-thrown, 1 litre',
        image_url: 'https://corner.example/teapot.jpg',
        currency: 'eur',
        price_type: 'fixed',
        amount: '25.00',
        max_quantity: '5',
        // An open amount's fields, left filled when the person switched to a fixed price, are not sent on.
        min_amount: '1',
        max_uses: '100',
        ends_on: '2099-12-31',
        success_url: 'https://corner.example/thanks',
        mode: 'live',
      },
      cookie,
    );
    expect(fixed.statusCode).toBe(303);
    fixedId = linkIdOf(fixed.headers.location)!;
    const donation = await post(
      '/dashboard/links/new',
      {
        csrf,
        title: 'Support the band',
        currency: 'USDC',
        price_type: 'open',
        amount: '',
        min_amount: '2',
        max_amount: '200',
        suggested_amounts: '5, 10 20',
        mode: 'live',
      },
      cookie,
    );
    expect(donation.statusCode).toBe(303);
    donationId = linkIdOf(donation.headers.location)!;

    expect((await api('GET', `/payments/api/links/${fixedId}/`, shop.apiKey)).json()).toMatchObject({
      title: 'Blue teapot',
      description: 'Hand-thrown, 1 litre',
      image_url: 'https://corner.example/teapot.jpg',
      price_type: 'fixed',
      currency: 'EUR',
      amount: '25.00',
      max_quantity: 5,
      min_amount: null,
      max_uses: 100,
      ends_at: '2099-12-31T23:59:59.000Z',
      success_url: 'https://corner.example/thanks',
      active: true,
      livemode: true,
    });
    expect((await api('GET', `/payments/api/links/${donationId}/`, shop.apiKey)).json()).toMatchObject({
      price_type: 'open',
      currency: 'USDC',
      amount: null,
      min_amount: '2.00',
      max_amount: '200.00',
      suggested_amounts: ['5.00', '10.00', '20.00'],
      max_uses: null,
      ends_at: null,
    });
  });

  it('lists the links with what each brought; a link’s page shows its public URL, its QR code and its payments', async () => {
    const paid = (
      await api('POST', `/payments/api/links/${donationId}/payments/`, shop.apiKey, { amount: '12.50' })
    ).json().payment_id as string;
    await payInFull(h, paid);
    const open = (
      await api('POST', `/payments/api/links/${fixedId}/payments/`, shop.apiKey, { quantity: 2 })
    ).json().payment_id as string;

    const list = await get('/dashboard/links');
    expect(list.statusCode).toBe(200);
    const row = (id: string) =>
      new RegExp(`href="/dashboard/links/${id}">[^<]+</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    expect(row(donationId)).toContain('Support the band');
    expect(row(donationId)).toMatch(/<td class="amount">1<\/td>\s*<td class="amount">12\.50<\/td>/);
    expect(row(fixedId)).toMatch(/<td class="amount">0<\/td>\s*<td class="amount">0\.00<\/td>/);
    expect(row(fixedId)).toContain('25.00 EUR');
    expect(list.body).not.toContain('Theirs');

    const page = await get(`/dashboard/links/${fixedId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="https://pay.example.test/l/${fixedId}"`);
    expect(page.body).toContain('data-copy="link-url"');
    expect(page.body).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code/);
    expect(page.body).toContain(`/dashboard/payments/${open}`);
    expect(page.body).toContain('50.00 EUR');
    expect(page.body).not.toContain(paid);
    const donationPage = await get(`/dashboard/links/${donationId}`);
    expect(donationPage.body).toContain(`/dashboard/payments/${paid}`);
    expect(donationPage.body).toContain('12.50 USDC');
  });

  it('names each label apart in every language: no two columns, facts or form labels say the same', async () => {
    const texts = (body: string, pattern: RegExp) =>
      [...body.matchAll(pattern)].map((match) => match[1]!.replace(/<[^>]*>/g, '').trim());
    const seen: Record<string, string[]> = {};
    for (const language of ['en', 'de', 'fr', 'es']) {
      const columns = texts(
        (await get(`/dashboard/links?lang=${language}`)).body,
        /<th scope="col">(.*?)<\/th>/g,
      );
      const facts = texts(
        (await get(`/dashboard/links/${donationId}?lang=${language}`)).body,
        /<dt>(.*?)<\/dt>/g,
      );
      const form = (await get(`/dashboard/links/new?lang=${language}`)).body;
      const fieldset = /<fieldset>([\s\S]*?)<\/fieldset>/.exec(form)![1]!;
      const labels = [
        ...texts(fieldset, /<legend>(.*?)<\/legend>/g),
        ...texts(fieldset, /<label for="[^"]+">(.*?)(?: <span|<\/label>)/g),
      ];
      for (const names of [columns, facts, labels]) {
        expect(names.length).toBeGreaterThan(3);
        expect(new Set(names).size, `${language}: ${names.join(' | ')}`).toBe(names.length);
      }
      seen[language] = [columns[1]!, columns[2]!, labels[0]!, labels[1]!];
    }
    expect(seen.en).toEqual(['Price type', 'Price', 'Price type', 'Unit price']);
    expect(seen.de).toEqual(['Preisart', 'Preis', 'Preisart', 'Stückpreis']);
  });

  it('refuses a bad link with the API’s words and the form kept; nothing is made without the CSRF token', async () => {
    const bad = await post(
      '/dashboard/links/new',
      {
        csrf,
        title: 'Tips',
        price_type: 'open',
        currency: 'USDC',
        min_amount: '50',
        max_amount: '5',
        mode: 'live',
      },
      cookie,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('role="alert"');
    expect(bad.body).toContain('max_amount');
    expect(bad.body).toContain('value="Tips"');
    const noTitle = await post(
      '/dashboard/links/new',
      { csrf, price_type: 'fixed', amount: '5', mode: 'live' },
      cookie,
    );
    expect(noTitle.statusCode).toBe(400);
    expect(noTitle.body).toContain('title');
    const forged = await post(
      '/dashboard/links/new',
      { csrf: 'forged', title: 'Forged', price_type: 'fixed', amount: '5', mode: 'live' },
      cookie,
    );
    expect(forged.statusCode).toBe(403);
    const listed = (await api('GET', '/payments/api/links/', shop.apiKey)).json().links as {
      title: string;
    }[];
    expect(listed.map((l) => l.title).sort()).toEqual(['Blue teapot', 'Support the band']);
  });

  it('deactivates a link only once confirmed; another merchant’s link is a 404', async () => {
    const unconfirmed = await post(`/dashboard/links/${fixedId}/deactivate`, { csrf, mode: 'live' }, cookie);
    expect(unconfirmed.statusCode).toBe(400);
    expect((await api('GET', `/payments/api/links/${fixedId}/`, shop.apiKey)).json().active).toBe(true);
    const page = await get(`/dashboard/links/${fixedId}`);
    expect(page.body).toMatch(/<form class="card danger"[^>]*data-confirm="[^"]+"/);
    expect(page.body).toContain('name="confirmed" value="yes" required');

    const done = await post(
      `/dashboard/links/${fixedId}/deactivate`,
      { csrf, mode: 'live', confirmed: 'yes' },
      cookie,
    );
    expect(done.statusCode).toBe(303);
    expect((await api('GET', `/payments/api/links/${fixedId}/`, shop.apiKey)).json().active).toBe(false);
    const after = await get(`/dashboard/links/${fixedId}`);
    expect(after.body).toContain('deactivated');
    expect(after.body).not.toContain('/deactivate"');

    expect((await get(`/dashboard/links/${otherLink}`)).statusCode).toBe(404);
    const theirs = await post(
      `/dashboard/links/${otherLink}/deactivate`,
      { csrf, mode: 'live', confirmed: 'yes' },
      cookie,
    );
    expect(theirs.statusCode).toBe(404);
  });
  it('takes item rows for a fixed price, adding up to the price of one, and refuses them on an open amount', async () => {
    const base = { csrf, title: 'Coffee box', currency: 'EUR', mode: 'live' };
    const items = {
      item_name_1: 'Beans',
      item_price_1: '24.50',
      item_name_2: 'Shipping',
      item_price_2: '2.50',
    };
    const made = await post(
      '/dashboard/links/new',
      { ...base, price_type: 'fixed', amount: '27.00', ...items },
      cookie,
    );
    expect(made.statusCode).toBe(303);
    const link = (
      await api('GET', `/payments/api/links/${linkIdOf(made.headers.location)}/`, shop.apiKey)
    ).json();
    expect(link.line_items).toEqual([
      { name: 'Beans', quantity: 1, unit_price: '24.50', total: '24.50' },
      { name: 'Shipping', quantity: 1, unit_price: '2.50', total: '2.50' },
    ]);
    const open = await post(
      '/dashboard/links/new',
      { ...base, price_type: 'open', min_amount: '1', max_amount: '50', ...items },
      cookie,
    );
    expect(open.statusCode).toBe(400);
    expect(open.body).toContain('line_items: is only for price_type fixed');
    expect(open.body).toContain('name="item_name_2" value="Shipping"');
  });

  it('re-activates a deactivated link: it takes payments again, through the API too; another merchant’s is a 404', async () => {
    // Deactivated by the test before: the API refuses a payment from it.
    const refused = await api('POST', `/payments/api/links/${fixedId}/payments/`, shop.apiKey, {
      quantity: 1,
    });
    expect(refused.statusCode).toBe(409);
    const page = await get(`/dashboard/links/${fixedId}`);
    expect(page.body).toContain(`action="/dashboard/links/${fixedId}/reactivate"`);

    const forged = await post(`/dashboard/links/${fixedId}/reactivate`, { mode: 'live' }, cookie);
    expect(forged.statusCode).toBe(403);
    expect((await api('GET', `/payments/api/links/${fixedId}/`, shop.apiKey)).json().active).toBe(false);

    const done = await post(`/dashboard/links/${fixedId}/reactivate`, { csrf, mode: 'live' }, cookie);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/links/${fixedId}?reactivated=1`);
    const shown = (await api('GET', `/payments/api/links/${fixedId}/`, shop.apiKey)).json();
    expect(shown).toMatchObject({ active: true, deactivated_at: null });
    const after = await get(done.headers.location!);
    expect(after.body).toContain('<p class="notice" role="status">The link takes payments again.</p>');
    expect(after.body).toContain(`action="/dashboard/links/${fixedId}/deactivate"`);
    expect(after.body).not.toContain('/reactivate"');
    const paying = await api('POST', `/payments/api/links/${fixedId}/payments/`, shop.apiKey, {
      quantity: 1,
    });
    expect(paying.statusCode).toBe(201);

    const theirs = await post(`/dashboard/links/${otherLink}/reactivate`, { csrf, mode: 'live' }, cookie);
    expect(theirs.statusCode).toBe(404);
  });

  it('edits a link’s title, description, payments at most and last day, never its price; below what was paid is refused', async () => {
    const form = await get(`/dashboard/links/${donationId}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="Support the band"');
    expect(form.body).not.toContain('name="min_amount"');

    // One payment was paid through the donation link (an earlier test): at most 0 payments would undo it.
    const below = await post(
      `/dashboard/links/${donationId}/edit`,
      { csrf, title: 'Support the band', description: '', max_uses: '0', ends_on: '' },
      cookie,
    );
    expect(below.statusCode).toBe(400);
    expect(below.body).toContain('max_uses: must be an integer from 1 to 1000000');
    expect(below.body).toContain('id="max_uses" name="max_uses" value="0"');
    expect(below.body).toMatch(/id="max_uses"[^>]*aria-invalid="true"/);
    expect((await api('GET', `/payments/api/links/${donationId}/`, shop.apiKey)).json().max_uses).toBeNull();

    const saved = await post(
      `/dashboard/links/${donationId}/edit`,
      {
        csrf,
        title: 'Support the band on tour',
        description: 'Fuel and strings',
        max_uses: '50',
        ends_on: '2027-01-31',
      },
      cookie,
    );
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/dashboard/links/${donationId}?saved=1`);
    const link = (await api('GET', `/payments/api/links/${donationId}/`, shop.apiKey)).json();
    expect(link).toMatchObject({
      title: 'Support the band on tour',
      description: 'Fuel and strings',
      max_uses: 50,
      ends_at: '2027-01-31T23:59:59.000Z',
      price_type: 'open',
      min_amount: '2.00',
    });
    expect((await get(saved.headers.location!)).body).toContain('Changes saved.');

    const forged = await post(`/dashboard/links/${donationId}/edit`, { title: 'Hacked' }, cookie);
    expect(forged.statusCode).toBe(403);
    expect(
      (await post(`/dashboard/links/${otherLink}/edit`, { csrf, title: 'Mine' }, cookie)).statusCode,
    ).toBe(404);
  });
});

describe.each(dialects)('link edits in the store on %s', (dialect) => {
  it('keeps the number of payments at or above those paid through the link', async () => {
    const h = await startApiHarness(dialect);
    try {
      const shop = await h.merchant({ name: 'Stall' });
      const headers = { 'x-api-key': shop.apiKey, 'content-type': 'application/json' };
      const created = await h.app.inject({
        method: 'POST',
        url: '/payments/api/links/',
        headers,
        payload: { title: 'Jar', price_type: 'fixed', currency: 'USDC', amount: '2.00', max_uses: 5 },
      });
      const linkId = created.json().link_id as string;
      for (let i = 0; i < 2; i++) {
        const paying = await h.app.inject({
          method: 'POST',
          url: `/payments/api/links/${linkId}/payments/`,
          headers,
          payload: {},
        });
        await payInFull(h, paying.json().payment_id);
      }
      const deps = { links: h.stores.links, clock: h.clock };
      const before = await h.stores.links.findForMerchant(shop.id, linkId, 'live');
      await expect(
        editLink(deps, shop.id, 'live', linkId, { title: 'Jar', maxUses: '1' }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        field: 'max_uses',
        message: 'max_uses: must be at least 2: payments already paid through this link',
      });
      const edited = await editLink(deps, shop.id, 'live', linkId, { title: 'Jar', maxUses: '2' });
      expect(edited.maxUses).toBe(2);
      expect(edited.price).toEqual(before?.price);
      expect((await h.stores.links.findForMerchant(shop.id, linkId, 'live'))?.maxUses).toBe(2);
      await expect(editLink(deps, 'someone-else', 'live', linkId, { title: 'Jar' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await h.close();
    }
  });
});
