import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_COOKIE, SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { DASHBOARD_PASSWORD, type DashboardSession, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

const CUSTOMER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const REFUND_TX = `0x${'ab'.repeat(32)}`;

/** The rows of a page's first table body, each as its HTML. */
/** The rows of a page's last table (the home page's chart has its table before the newest payments'). */
const rowsOf = (body: string) =>
  ([...body.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].at(-1)?.[1] ?? '').split('<tr>').slice(1);
/** The payment a row links to (the link's words are its short reference). */
const idOf = (row: string) => /href="\/dashboard\/payments\/([^"]+)"/.exec(row)?.[1];

/**
 * The merchant's home page and what makes the dashboard pleasant to read, over the real app on each database:
 * paid totals of today and of the month (UTC, live only, exact), what waits with a link to each list, the newest
 * payments; the language switcher remembered in a cookie; amounts in the reader's language; refunds on the
 * payment's timeline; coloured status badges with words; the merchant column of the operator's list.
 */
describe.each(dialects)('dashboard home on %s', (dialect) => {
  let h: ApiHarness;
  let client: ReturnType<typeof dashboardClient>;
  let ana: DashboardSession;
  let ops: DashboardSession;
  let shop: { id: string; apiKey: string };
  const ids = {} as Record<
    'usdcToday' | 'eurToday' | 'earlierThisMonth' | 'lastMonth' | 'testMode' | 'unpaid' | 'refund',
    string
  >;

  const create = async (amount: string, currency: string, orderId: string) => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': shop.apiKey },
      payload: { amount, currency, order_id: orderId },
    });
    expect(response.statusCode).toBe(201);
    return (response.json() as { payment_id: string }).payment_id;
  };
  const setPayment = (id: string, values: Record<string, string | null>) =>
    h.database.handle.db.updateTable('payments').set(values).where('id', '=', id).execute();

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: { explorers: new Map([[TEST_CHAIN.chainId, 'https://explorer.example/']]) },
    });
    client = dashboardClient(h);
    shop = await h.merchant({ name: 'Corner Shop' });
    ana = await client.signedIn('ana@corner.example', 'merchant', shop.id);
    ops = await client.signedIn('ops@paylink.example', 'operator');
    // The clock stands at 2026-11-21 12:00 UTC.
    ids.usdcToday = await create('30.00', 'USDC', 'today-usdc');
    await payInFull(h, ids.usdcToday);
    ids.eurToday = await create('25.00', 'EUR', 'today-eur'); // 27.00 USDC
    await payInFull(h, ids.eurToday);
    ids.earlierThisMonth = await create('12.345678', 'USDC', 'this-month');
    await payInFull(h, ids.earlierThisMonth);
    await setPayment(ids.earlierThisMonth, { paid_at: '2026-11-01T00:00:00.000Z' });
    ids.lastMonth = await create('99.00', 'USDC', 'last-month');
    await payInFull(h, ids.lastMonth);
    await setPayment(ids.lastMonth, { paid_at: '2026-10-31T23:59:59.999Z' });
    ids.testMode = await create('40.00', 'USDC', 'test-mode');
    await payInFull(h, ids.testMode);
    await setPayment(ids.testMode, { mode: 'test' });
    ids.unpaid = await create('50.00', 'USDC', 'unpaid');
  });
  afterAll(() => h?.close());

  it('lands a merchant on its home: today’s and this month’s paid totals, exact, live only, in UTC', async () => {
    const landing = await ana.get('/dashboard');
    expect(landing.headers.location).toBe('/dashboard/home');
    const home = await ana.get('/dashboard/home');
    expect(home.statusCode).toBe(200);
    const figures = [
      ...home.body.matchAll(/<h2>([^<]+)<\/h2><p class="figure">([^<]+)<\/p><p class="muted">([^<]+)<\/p>/g),
    ].map((m) => [m[1], m[2], m[3]]);
    expect(figures).toEqual([
      ['Paid today', '57.00 USDC', '2 payments'],
      ['Paid this month', '69.345678 USDC', '3 payments'],
    ]);
    expect(home.body).toContain('Days and months in UTC; live payments.');
    // The newest live payments, newest first, each with its status badge.
    const newest = rowsOf(home.body);
    expect(newest.map((row) => idOf(row))).toEqual([
      ids.unpaid,
      ids.lastMonth,
      ids.earlierThisMonth,
      ids.eurToday,
      ids.usdcToday,
    ]);
    expect(newest[0]).toContain('<span class="status status-pending">pending</span>');
    expect(newest[3]).toContain('<td class="amount">25.00 EUR</td>');
    // An operator has no such page.
    expect((await ops.get('/dashboard/home')).statusCode).toBe(404);
  });

  it('draws the last 30 days paid as an SVG on the server, exact, live only, with its figures as a table', async () => {
    const home = await ana.get('/dashboard/home');
    const svg = /<svg class="revenue"[\s\S]*?<\/svg>/.exec(home.body)?.[0] ?? '';
    expect(svg).toContain('role="img" aria-labelledby="chart-title chart-desc"');
    expect(svg).toContain('<title id="chart-title">Paid in the last 30 days</title>');
    // 30.00 + 27.00 today, 12.345678 on the 1st, 99.00 on 31 October (inside the 30 days); the test payment not.
    expect(svg).toContain(
      '<desc id="chart-desc">168.345678 USDC in 4 payments; the best day, 31 Oct: 99.00 USDC. Days in UTC; live payments.</desc>',
    );
    const bars = [...svg.matchAll(/<rect class="bar( empty)?"[^>]* height="(\d+)"><title>([^<]+)<\/title>/g)];
    expect(bars).toHaveLength(30);
    expect(bars[0]![3]).toBe('23 Oct: 0.00 USDC');
    expect(bars.at(-1)![3]).toBe('21 Nov: 57.00 USDC');
    // The best day fills the plot (176 units); the others in proportion, rounded down: 57/99 and 12.345678/99.
    const heightOf = (day: string) => Number(bars.find((bar) => bar[3]!.startsWith(day))![2]);
    expect(heightOf('31 Oct')).toBe(176);
    expect(heightOf('21 Nov')).toBe(Math.floor((57_000_000 * 176) / 99_000_000));
    expect(heightOf('1 Nov')).toBe(Math.floor((12_345_678 * 176) / 99_000_000));
    const table =
      /<details><summary>Show as a table<\/summary>([\s\S]*?)<\/details>/.exec(home.body)?.[1] ?? '';
    expect(table.match(/<tr><td>/g)).toHaveLength(30);
    expect(table).toContain('<tr><td>21 Nov</td><td class="amount">57.00</td><td class="amount">2</td></tr>');
    expect(table).toContain(
      '<tr><td>1 Nov</td><td class="amount">12.345678</td><td class="amount">1</td></tr>',
    );
    // In the reader's language: French words, French numbers.
    const french = await ana.get('/dashboard/home?lang=fr');
    expect(french.body).toContain('<title id="chart-title">Payé ces 30 derniers jours</title>');
    expect(french.body).toMatch(/<desc id="chart-desc">168,345678\sUSDC en 4 paiements/);
    await ana.get('/dashboard/home?lang=en');
  });

  it('shows a merchant without a paid payment a next step instead of an empty chart', async () => {
    const other = await h.merchant({ name: 'New Shop' });
    const newcomer = await client.signedIn('new@shop.example', 'merchant', other.id);
    const home = await newcomer.get('/dashboard/home');
    expect(home.body).not.toContain('<svg class="revenue"');
    expect(home.body).toContain('No payment was paid in the last 30 days.');
    expect(home.body).toContain('<a class="button" href="/dashboard/links/new">New payment link</a>');
  });

  it('says what waits, each kind linking to the list of its payments', async () => {
    const before = await ana.get('/dashboard/home');
    expect(before.body).toContain('Nothing waits');
    // The merchant's share of one payout fails to go out; a refund waits for the merchant's funds; the endpoint
    // gave up on another payment's webhook.
    await setPayment(ids.usdcToday, {
      payout_blocked_since: h.clock.now().toISOString(),
      payout_blocked_reason: 'the token refused the transfer',
    });
    const refund = await h.app.inject({
      method: 'POST',
      url: '/payments/api/refunds/',
      headers: { 'x-api-key': shop.apiKey },
      payload: { payment_id: ids.eurToday, amount: '5.00', currency: 'USDC', address: CUSTOMER },
    });
    expect(refund.statusCode).toBe(201);
    ids.refund = (refund.json() as { refund_id: string }).refund_id;
    await h.database.handle.db
      .updateTable('events')
      .set({ delivery_status: 'failed', attempt_count: 10 })
      .where('payment_id', '=', ids.earlierThisMonth)
      .execute();

    const home = await ana.get('/dashboard/home');
    const waiting = /<ul class="waiting">([\s\S]*?)<\/ul>/.exec(home.body)?.[1] ?? '';
    const lines = [...waiting.matchAll(/<li><a href="([^"]+)">([^<]+)<\/a><\/li>/g)].map((m) => [m[1], m[2]]);
    expect(lines).toEqual([
      ['/dashboard/payments?waiting=payout_delayed', '1 payout delayed'],
      ['/dashboard/payments?waiting=refund_awaiting_funds', '1 refund awaiting your funds'],
      ['/dashboard/payments?waiting=webhook_failing', '1 payment whose webhooks fail'],
    ]);
    for (const [kind, id, heading] of [
      ['payout_delayed', ids.usdcToday, 'Payments whose payout is delayed'],
      ['refund_awaiting_funds', ids.eurToday, 'Payments with a refund awaiting your funds'],
      ['webhook_failing', ids.earlierThisMonth, 'Payments whose webhooks are failing'],
    ] as const) {
      const list = await ana.get(`/dashboard/payments?waiting=${kind}`);
      expect(list.statusCode, kind).toBe(200);
      expect(list.body, kind).toContain(heading);
      expect(rowsOf(list.body).map((row) => idOf(row))).toEqual([id]);
    }
    // Another merchant's waiting payments never show, nor does an unknown kind filter anything.
    const other = await h.merchant({ name: 'Other Shop' });
    const bo = await client.signedIn('bo@other.example', 'merchant', other.id);
    expect(rowsOf((await bo.get('/dashboard/payments?waiting=payout_delayed')).body)).toEqual([]);
    expect(rowsOf((await ana.get('/dashboard/payments?waiting=nonsense')).body)).toHaveLength(5);
  });

  it('shows each refund on its payment’s timeline: asked for, funded, sent with its transaction', async () => {
    const page = async () => (await ana.get(`/dashboard/payments/${ids.eurToday}`)).body;
    const timeline = (body: string) => /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '';
    const asked = await page();
    expect(timeline(asked)).toContain('Refund of 5.00 USDC asked for');
    expect(timeline(asked)).toContain(
      '<span class="status status-refund-awaiting_funds">awaiting funds</span>',
    );
    expect(timeline(asked)).not.toContain('funded');
    // The merchant funds the refund's deposit address and the settler sends it on to the customer.
    const at = new Date(h.clock.now().getTime() + 60_000).toISOString();
    await setPayment(ids.refund, {
      status: 'paid',
      amount_received_base_units: '5000000',
      paid_at: at,
      settled_base_units: '5000000',
      merchant_paid_base_units: '5000000',
      payout_tx_hash: REFUND_TX,
      settled_at: at,
    });
    const sent = timeline(await page());
    expect(sent).toContain('Refund of 5.00 USDC funded');
    expect(sent).toContain(
      `Refund: 5.00 USDC sent to the customer: <a href="https://explorer.example/tx/${REFUND_TX}" rel="noopener noreferrer">`,
    );
    // In the order they happened: created, transfer, paid … then the refund's three steps.
    const order = ['Created:', 'Refund of 5.00 USDC asked for', 'Refund of 5.00 USDC funded', 'Refund: 5.00'];
    const positions = order.map((text) => sent.indexOf(text));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The payment reads as partly refunded, with what went back, on its page and in the list.
    const body = await page();
    expect(body).toContain('<dd><span class="status status-partly-refunded">partly refunded</span></dd>');
    expect(body).toContain('<dt>Refunded</dt><dd>5.00 USDC</dd>');
    // Funded, it no longer waits on the merchant.
    expect(rowsOf((await ana.get('/dashboard/payments?waiting=refund_awaiting_funds')).body)).toEqual([]);
  });

  it('remembers the language picked from the switcher in a cookie, on every page, signed in or not', async () => {
    const get = (url: string, cookies: Record<string, string>, language = 'en-GB') =>
      h.app.inject({
        method: 'GET',
        url,
        headers: {
          'accept-language': language,
          cookie: Object.entries(cookies)
            .map(([name, value]) => `${name}=${value}`)
            .join('; '),
        },
      });
    const login = await get('/dashboard/login', {});
    expect(login.body).toContain('<span aria-current="true">English</span>');
    expect(login.body).toContain('<a href="?lang=fr" hreflang="fr" lang="fr">Français</a>');
    // A page's query (a list's filters) is kept by the switcher's links, without the language picked before.
    const filtered = await get('/dashboard/login?next=%2Fdashboard%2Fpayments&lang=de', {});
    expect(filtered.body).toContain(
      '<a href="?next=%2Fdashboard%2Fpayments&amp;lang=fr" hreflang="fr" lang="fr">Français</a>',
    );
    const picked = await get('/dashboard/login?lang=fr', {});
    expect(picked.body).toContain('<h1>Connexion</h1>');
    const cookie = picked.cookies.find((c) => c.name === LANGUAGE_COOKIE);
    expect(cookie).toMatchObject({ value: 'fr', path: '/dashboard', httpOnly: true, sameSite: 'Lax' });
    expect(cookie?.maxAge).toBe(365 * 24 * 3600);
    // The cookie wins over the browser's language; a new pick wins over the cookie.
    expect((await get('/dashboard/login', { [LANGUAGE_COOKIE]: 'fr' }, 'de')).body).toContain(
      '<h1>Connexion</h1>',
    );
    const spanish = await get('/dashboard/login?lang=es', { [LANGUAGE_COOKIE]: 'fr' });
    expect(spanish.body).toContain('<h1>Iniciar sesión</h1>');
    expect(spanish.cookies.find((c) => c.name === LANGUAGE_COOKIE)?.value).toBe('es');
    // Anything but one of the four languages is never written, and a forged cookie is no language.
    expect((await get('/dashboard/login?lang=xx', {})).cookies).toEqual([]);
    expect((await get('/dashboard/login', { [LANGUAGE_COOKIE]: '<script>' })).body).toContain(
      '<h1>Sign in</h1>',
    );

    // Signed in: every page has the switcher, and French amounts read "25,00 EUR".
    h.clock.advance(5 * 60_000);
    const signIn = await client.post('/dashboard/login', {
      email: 'ana@corner.example',
      password: DASHBOARD_PASSWORD,
    });
    const session = signIn.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    for (const path of [
      '/dashboard/home',
      '/dashboard/payments',
      `/dashboard/payments/${ids.eurToday}`,
      '/dashboard/developers',
      '/dashboard/security',
      '/dashboard/links',
      '/dashboard/payments/new',
    ]) {
      const page = await get(path, { [SESSION_COOKIE]: session, [LANGUAGE_COOKIE]: 'fr' });
      expect(page.statusCode, path).toBe(200);
      expect(page.body, path).toContain('<html lang="fr">');
      expect(page.body, path).toContain('<nav class="languages" aria-label="Langue">');
      expect(page.body, path).toContain('<span aria-current="true">Français</span>');
    }
    const french = (path: string) => get(path, { [SESSION_COOKIE]: session, [LANGUAGE_COOKIE]: 'fr' });
    const payment = (await french(`/dashboard/payments/${ids.eurToday}`)).body;
    expect(payment).toContain('<dd>25,00 EUR</dd>');
    expect(payment).toContain('<dd>27,00</dd>');
    expect(payment).toContain('Remboursement de 5,00 USDC demandé');
    const home = (await french('/dashboard/home')).body;
    expect(home).toContain('<p class="figure">57,00 USDC</p>');
    expect(home).toContain('<p class="figure">69,345678 USDC</p>');
    expect(home).toContain('2 paiements');
    const list = rowsOf((await french('/dashboard/payments')).body).find((row) => row.includes(ids.eurToday));
    expect(list).toContain('<td class="amount">25,00 EUR</td>');
    // A link's amounts too; suggested amounts set apart by a dot where a comma is the decimal separator.
    const link = await h.app.inject({
      method: 'POST',
      url: '/payments/api/links/',
      headers: { 'x-api-key': shop.apiKey, 'content-type': 'application/json' },
      payload: {
        title: 'Tips',
        price_type: 'open',
        currency: 'EUR',
        min_amount: '1',
        max_amount: '100',
        suggested_amounts: ['5', '10.5'],
      },
    });
    expect(link.statusCode).toBe(201);
    const linkPage = (await french(`/dashboard/links/${link.json().link_id}`)).body;
    expect(linkPage).toContain('<dd>1,00 – 100,00 EUR</dd>');
    expect(linkPage).toContain('<dd>5,00 · 10,50 EUR</dd>');
    // A thousand-separated amount, exactly as the language writes it (French: narrow no-break space).
    const big = await create('1234.5', 'USDC', 'big');
    const bigRow = rowsOf((await french('/dashboard/payments')).body).find((row) => row.includes(big));
    expect(bigRow).toContain(
      `<td class="amount">${new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2 }).format(1234.5)} USDC</td>`,
    );
    expect(bigRow).toContain('1\u202f234,50');
  });

  it('names the merchant of each payment in an operator’s list of every merchant’s payments', async () => {
    const all = await ops.get('/dashboard/payments');
    expect(all.body).toContain('<th scope="col">Merchant</th>');
    const row = rowsOf(all.body).find((r) => r.includes(ids.usdcToday));
    expect(row).toContain(`<td><a href="/dashboard/merchants/${shop.id}">Corner Shop</a></td>`);
    // One merchant's payments: the heading names it, no column repeats it.
    const one = await ops.get(`/dashboard/payments?merchant=${shop.id}`);
    expect(one.body).toContain('Payments · Corner Shop');
    expect(one.body).not.toContain('<th scope="col">Merchant</th>');
    // Merchant users never get the column.
    expect((await ana.get('/dashboard/payments')).body).not.toContain('<th scope="col">Merchant</th>');
  });
});
