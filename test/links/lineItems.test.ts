import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * What a payment sells (issue 38, decision 0051) on the merchant API over a real socket: title, description and
 * line items on payments and links, given on create, checked (each bad field named, the sum exact), stored and
 * read back from SQLite and PostgreSQL, and handed on by a link to each payment it makes.
 */
describe.each(dialects)('line items on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let apiKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey } = await h.merchant({ name: 'Roastery' }));
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const create = (fields: Body) =>
    call('POST', '/payments/api/create/', { amount: '54.00', currency: 'EUR', ...fields });
  const problems = (answer: { status: number; body: Body }) => {
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    return Object.fromEntries(answer.body.details.map((d: Body) => [d.field, d.message]));
  };
  const beans = { name: 'Espresso beans 1 kg', quantity: 2, unit_price: '24.50' };
  const shipping = { name: 'Shipping', quantity: 1, unit_price: 5 };

  it('stores title, description and lines, and returns them exactly in the create and status answers', async () => {
    const created = await create({
      title: 'Order 1042',
      description: 'Roasted on Monday',
      line_items: [beans, shipping],
    });
    expect(created.status).toBe(201);
    const lines = [
      { name: 'Espresso beans 1 kg', quantity: 2, unit_price: '24.50', total: '49.00' },
      { name: 'Shipping', quantity: 1, unit_price: '5.00', total: '5.00' },
    ];
    expect(created.body.details).toMatchObject({ title: 'Order 1042', line_items: lines });
    const id = created.body.payment_id;
    const status = await call('GET', `/payments/api/status/${id}/`);
    expect(status.body).toMatchObject({
      title: 'Order 1042',
      description: 'Roasted on Monday',
      line_items: lines,
    });
    // Read back from the database itself: the repository's row, in the payment's currency's minor units.
    const stored = await h.stores.payments.findById(id);
    expect(stored?.lineItems?.map((l) => [l.name, l.quantity, l.unitPrice.minorUnits])).toEqual([
      ['Espresso beans 1 kg', 2, 2450n],
      ['Shipping', 1, 500n],
    ]);
    expect(stored?.title).toBe('Order 1042');
  });

  it('leaves all three out of a payment created without them (older integrations read as before)', async () => {
    const created = await create({});
    expect(created.status).toBe(201);
    const status = await call('GET', `/payments/api/status/${created.body.payment_id}/`);
    expect(status.body).not.toHaveProperty('title');
    expect(status.body).not.toHaveProperty('line_items');
    expect((await h.stores.payments.findById(created.body.payment_id))?.lineItems).toBeNull();
  });

  it('names every bad field of every line at once', async () => {
    const answer = await create({
      line_items: [
        { name: '', quantity: 1, unit_price: '1.00' },
        { name: 'Mug', quantity: 0, unit_price: '1.001' },
        { name: 'Cup', quantity: 1.5, unit_price: '-2' },
        'a string',
        { name: 'Plate', quantity: '3', unit_price: 'ten', colour: 'red' },
        { name: 'x'.repeat(201), quantity: 1000001 },
      ],
    });
    expect(problems(answer)).toEqual({
      'line_items[0].name': 'is required',
      'line_items[1].quantity': 'must be an integer from 1 to 1000000',
      'line_items[1].unit_price': 'EUR allows at most 2 decimal places',
      'line_items[2].quantity': 'must be an integer from 1 to 1000000',
      'line_items[2].unit_price': 'must not be negative',
      'line_items[3]': 'must be an object with name, quantity and unit_price',
      'line_items[4].unit_price': 'must be a decimal number',
      'line_items[4]': 'has no field "colour": name, quantity, unit_price',
      'line_items[5].name': 'must be at most 200 characters',
      'line_items[5].quantity': 'must be an integer from 1 to 1000000',
      'line_items[5].unit_price': 'is required',
    });
    expect(problems(await create({ line_items: { beans } }))).toEqual({
      line_items: 'must be an array of line items',
    });
    expect(problems(await create({ line_items: Array(101).fill(shipping) }))).toEqual({
      line_items: 'must hold at most 100 line items',
    });
  });

  it('refuses lines that do not add up to the amount exactly, by a cent either way', async () => {
    for (const amount of ['53.99', '54.01']) {
      expect(problems(await create({ amount, line_items: [beans, shipping] }))).toEqual({
        line_items: `must add up to the amount: the lines total 54.00 EUR, the amount is ${amount} EUR`,
      });
    }
    // Exact on decimals no float holds: 3 × 0.10 + 0.20 = 0.50, at 3 decimals in KWD.
    const kwd = await create({
      amount: '0.5',
      currency: 'KWD',
      line_items: [
        { name: 'Tea', quantity: 3, unit_price: '0.1' },
        { name: 'Free refill', quantity: 1, unit_price: '0.000' },
        { name: 'Sugar', quantity: 1, unit_price: '0.2' },
      ],
    });
    expect(kwd.status).toBe(201);
    expect(kwd.body.details.line_items.map((l: Body) => l.total)).toEqual(['0.300', '0.000', '0.200']);
  });

  it('names title, description and each line beside the other fields at fault', async () => {
    // The lengths are the schema's to refuse, before the use case reads the rest.
    const tooLong = await create({ title: 'x'.repeat(201), description: 'd'.repeat(2001) });
    expect(problems(tooLong)).toEqual({
      title: 'must be at most 200 characters',
      description: 'must be at most 2000 characters',
    });
    const answer = await create({
      amount: 'abc',
      title: '  ',
      line_items: [{ name: 'A', quantity: 1, unit_price: '1.999' }],
    });
    expect(problems(answer)).toEqual({
      amount: 'must be a decimal number',
      'line_items[0].unit_price': 'EUR allows at most 2 decimal places',
    });
    expect(problems(await create({ description: 'bad\u0007bell' }))).toEqual({
      description: 'must not contain control characters',
    });
    expect(problems(await create({ line_items: [{ ...beans, name: 'tab\tname' }] }))).toEqual({
      'line_items[0].name': 'must not contain control characters',
    });
  });

  describe('links', () => {
    const createLink = (fields: Body) =>
      call('POST', '/payments/api/links/', {
        title: 'Coffee box',
        price_type: 'fixed',
        currency: 'EUR',
        ...fields,
      });

    it('keep lines adding up to the price of one, and each payment holds them times its quantity', async () => {
      const link = await createLink({
        amount: '27.00',
        max_quantity: 5,
        description: 'A month of coffee',
        line_items: [
          { name: 'Beans', quantity: 1, unit_price: '24.50' },
          { name: 'Shipping', quantity: 1, unit_price: '2.50' },
        ],
      });
      expect(link.status).toBe(201);
      expect(link.body.line_items).toEqual([
        { name: 'Beans', quantity: 1, unit_price: '24.50', total: '24.50' },
        { name: 'Shipping', quantity: 1, unit_price: '2.50', total: '2.50' },
      ]);
      const shown = await call('GET', `/payments/api/links/${link.body.link_id}/`);
      expect(shown.body.line_items).toEqual(link.body.line_items);

      const paid = await call('POST', `/payments/api/links/${link.body.link_id}/payments/`, {
        quantity: '3',
      });
      expect(paid.status).toBe(201);
      expect(paid.body.details).toMatchObject({ amount: '81.00', title: 'Coffee box' });
      const status = await call('GET', `/payments/api/status/${paid.body.payment_id}/`);
      expect(status.body).toMatchObject({
        title: 'Coffee box',
        description: 'A month of coffee',
        line_items: [
          { name: 'Beans', quantity: 3, unit_price: '24.50', total: '73.50' },
          { name: 'Shipping', quantity: 3, unit_price: '2.50', total: '7.50' },
        ],
      });
    });

    it('refuse lines that miss the price, bad lines, and lines on an open amount', async () => {
      expect(
        problems(
          await createLink({
            amount: '27.00',
            line_items: [{ name: 'Beans', quantity: 1, unit_price: '24.50' }],
          }),
        ),
      ).toEqual({
        line_items: 'must add up to the amount: the lines total 24.50 EUR, the amount is 27.00 EUR',
      });
      expect(
        problems(
          await createLink({
            amount: '27.00',
            line_items: [{ name: 'Beans', quantity: 'two', unit_price: '27' }],
          }),
        ),
      ).toEqual({ 'line_items[0].quantity': 'must be an integer from 1 to 1000000' });
      expect(
        problems(
          await createLink({
            price_type: 'open',
            min_amount: '1',
            max_amount: '10',
            line_items: [{ name: 'Tip', quantity: 1, unit_price: '5' }],
          }),
        ),
      ).toEqual({ line_items: 'is only for price_type fixed' });
    });

    it('without lines say null, and their payments carry the title alone', async () => {
      const link = await createLink({ amount: '10.00' });
      expect(link.body.line_items).toBeNull();
      const paid = await call('POST', `/payments/api/links/${link.body.link_id}/payments/`, {});
      const status = await call('GET', `/payments/api/status/${paid.body.payment_id}/`);
      expect(status.body.title).toBe('Coffee box');
      expect(status.body).not.toHaveProperty('line_items');
      expect(
        (
          await h.stores.links.findForMerchant(
            (await h.stores.payments.findById(paid.body.payment_id))!.merchantId,
            link.body.link_id,
            'live',
          )
        )?.lineItems,
      ).toBeNull();
    });
  });
});
