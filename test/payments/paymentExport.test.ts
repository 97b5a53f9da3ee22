import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

/** A small RFC 4180 reader, to check the export as a spreadsheet would read it (CRLF records, quoted fields). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field).toBe(''); // the last record ended with CRLF
  return records;
}

/**
 * A record as a spreadsheet splitting on `separator` reads it (Excel with a `;` list separator, in French,
 * German or Spanish): a double quote makes a quoted cell only where a cell begins, anywhere else it is text.
 */
function cellsSplitBy(record: string, separator: string): string[] {
  const cells: string[] = [];
  let i = 0;
  while (i <= record.length) {
    let cell = '';
    if (record[i] === '"') {
      for (i++; i < record.length; i++) {
        if (record[i] === '"' && record[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (record[i] === '"') {
          i++;
          break;
        } else cell += record[i];
      }
    }
    while (i < record.length && record[i] !== separator) cell += record[i++];
    cells.push(cell);
    i++;
  }
  return cells;
}

/** `GET /payments/api/payments/export/`: CSV checked value by value, on each database. */
describe.each(dialects)('payment export on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  const created: { id: string; at: string; orderId: string }[] = [];

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey } = await h.merchant());
    const other = await h.merchant({ name: 'Other' });
    const orders = ['plain-1', 'comma, and "quotes"', '=HYPERLINK("http://evil")', '+1 555', '@cmd', '-5'];
    for (const [i, orderId] of orders.entries()) {
      h.clock.advance(60_000);
      const response = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: {
          amount: i === 0 ? '25.00' : `${i}.5`,
          currency: i === 0 ? 'EUR' : 'USDC',
          order_id: orderId,
        },
      });
      expect(response.statusCode).toBe(201);
      created.push({ id: response.json().payment_id, at: h.clock.now().toISOString(), orderId });
    }
    // Another merchant's payment never appears.
    await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json' },
      payload: { amount: '9', currency: 'USDC', order_id: 'not-yours' },
    });
    // The first is paid and overpaid by 0.000001 USDC, as the worker would have stored it.
    await h.database.handle.db
      .updateTable('payments')
      .set({
        status: 'paid',
        amount_received_base_units: '27000001',
        paid_at: '2026-11-21T12:30:00.000Z',
        txid: `0x${'ab'.repeat(32)}`,
        // The worker stores the chain of the transfer with its hash (migration 0039): here the home chain's.
        txid_chain_id: TEST_CHAIN.chainId,
      })
      .where('id', '=', created[0]!.id)
      .execute();
  });
  afterAll(() => h?.close());

  const exportCsv = (query = '') =>
    h.app.inject({
      method: 'GET',
      url: `/payments/api/payments/export/${query}`,
      headers: { 'x-api-key': apiKey },
    });

  it('writes every payment, newest first, with exact amounts and defused text cells', async () => {
    const response = await exportCsv();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="payments.csv"');
    const [header, ...rows] = parseCsv(response.body);
    expect(header).toEqual([
      'payment_id',
      'created_at',
      'status',
      'amount',
      'currency',
      'usdc_amount',
      'amount_received',
      'amount_overpaid',
      'paid_at',
      'txid',
      'payout_txid',
      'order_id',
      'livemode',
      'link_id',
      'success_url',
      'cancel_url',
      'metadata',
      'refunded',
      'commission',
      'payout_amount',
      'payout_status',
    ]);
    expect(rows.map((r) => r[0])).toEqual(created.map((c) => c.id).reverse());
    const first = rows.at(-1)!;
    expect(first).toEqual([
      created[0]!.id,
      created[0]!.at,
      'paid',
      '25.00',
      'EUR',
      '27.00',
      '27.000001',
      '0.000001',
      '2026-11-21T12:30:00.000Z',
      `0x${'ab'.repeat(32)}`,
      '',
      'plain-1',
      'true',
      '',
      '',
      '',
      '',
      '0.00',
      // 1.5 % of 27.000001, rounded down (the merchant keeps the rest), and where the payout is.
      '0.405',
      '26.595001',
      'pending',
    ]);
    const byId = new Map(rows.map((r) => [r[0], r]));
    expect(byId.get(created[1]!.id)).toEqual([
      created[1]!.id,
      created[1]!.at,
      'pending',
      '1.50',
      'USDC',
      '1.50',
      '0.00',
      '0.00',
      '',
      '',
      '',
      'comma, and "quotes"',
      'true',
      '',
      '',
      '',
      '',
      '0.00',
      '',
      '',
      'not_due',
    ]);
    // Text a spreadsheet would run as a formula begins with an apostrophe; the rest is as given.
    expect(rows.map((r) => r[11]).reverse()).toEqual([
      'plain-1',
      'comma, and "quotes"',
      '\'=HYPERLINK("http://evil")',
      "'+1 555",
      "'@cmd",
      "'-5",
    ]);
    expect(response.body).not.toContain('not-yours');
  });

  it('takes a range: from included, to excluded, to the millisecond', async () => {
    const [, second, third, fourth] = created;
    const ids = async (query: string) =>
      parseCsv((await exportCsv(query)).body)
        .slice(1)
        .map((r) => r[0]);
    expect(await ids(`?from=${second!.at}&to=${fourth!.at}`)).toEqual([third!.id, second!.id]);
    const justAfter = new Date(Date.parse(second!.at) + 1).toISOString();
    expect(await ids(`?from=${justAfter}&to=${fourth!.at}`)).toEqual([third!.id]);
    expect(await ids(`?from=${created[5]!.at}`)).toEqual([created[5]!.id]);
    expect(await ids('?to=2000-01-01')).toEqual([]);
  });

  it('refuses a bad range with the error shape', async () => {
    for (const query of [
      '?from=yesterday',
      '?to=2026-13-45',
      `?from=${created[2]!.at}&to=${created[1]!.at}`,
    ]) {
      const response = await exportCsv(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    const anonymous = await h.app.inject({ method: 'GET', url: '/payments/api/payments/export/' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('exports refunds the same way: exact amounts, status derived now, reason defused, a range, the right merchant', async () => {
    const refund = async (body: Record<string, string>) => {
      h.clock.advance(60_000);
      const response = await h.app.inject({
        method: 'POST',
        url: '/payments/api/refunds/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { payment_id: created[0]!.id, ...body },
      });
      expect(response.statusCode, response.body).toBe(201);
      return { id: response.json().refund_id as string, at: h.clock.now().toISOString() };
    };
    const overpaid = await refund({ amount: 'overpaid', reason: '=SUM(A1:A9)' });
    const partial = await refund({
      amount: '10.5',
      currency: 'USDC',
      address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    });
    const response = await h.app.inject({
      method: 'GET',
      url: '/payments/api/refunds/export/',
      headers: { 'x-api-key': apiKey },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="refunds.csv"');
    const [header, ...rows] = parseCsv(response.body);
    expect(header).toEqual([
      'refund_id',
      'created_at',
      'payment_id',
      'status',
      'amount',
      'currency',
      'requested_amount',
      'requested_currency',
      'amount_funded',
      'amount_sent',
      'address',
      'txid',
      'reason',
      'livemode',
    ]);
    expect(rows).toEqual([
      [
        partial.id,
        partial.at,
        created[0]!.id,
        'awaiting_funds',
        '10.50',
        'USDC',
        '10.5',
        'USDC',
        '0.00',
        '0.00',
        '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        '',
        '',
        'true',
      ],
      [
        overpaid.id,
        overpaid.at,
        created[0]!.id,
        'awaiting_address',
        '0.000001',
        'USDC',
        'overpaid',
        'USDC',
        '0.00',
        '0.00',
        '',
        '',
        "'=SUM(A1:A9)",
        'true',
      ],
    ]);
    const ranged = await h.app.inject({
      method: 'GET',
      url: `/payments/api/refunds/export/?from=${partial.at}`,
      headers: { 'x-api-key': apiKey },
    });
    expect(
      parseCsv(ranged.body)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual([partial.id]);
    const bad = await h.app.inject({
      method: 'GET',
      url: '/payments/api/refunds/export/?to=2026-02-30',
      headers: { 'x-api-key': apiKey },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    const other = await h.merchant({ name: 'Nobody' });
    const theirs = await h.app.inject({
      method: 'GET',
      url: '/payments/api/refunds/export/',
      headers: { 'x-api-key': other.apiKey },
    });
    expect(parseCsv(theirs.body)).toHaveLength(1); // the header only
  });

  it('leaves no formula to a spreadsheet that splits on another separator than the comma', async () => {
    h.clock.advance(60_000);
    const from = h.clock.now().toISOString();
    const orders = ['x;=1+2', 'a|@SUM(A1)', 'b; "=cmd"', 'c;d'];
    for (const orderId of orders) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { amount: '1', currency: 'USDC', order_id: orderId },
      });
      expect(response.statusCode, response.body).toBe(201);
    }
    const response = await exportCsv(`?from=${from}`);
    expect(response.statusCode).toBe(200);
    // Read with commas, each value is what was given, with an apostrophe before each formula.
    expect(
      parseCsv(response.body)
        .slice(1)
        .map((r) => r[11])
        .reverse(),
    ).toEqual(["x;'=1+2", "a|'@SUM(A1)", 'b;\' "=cmd"', 'c;d']);
    const records = response.body.split('\r\n').slice(1, -1);
    expect(records).toHaveLength(orders.length);
    for (const separator of [';', '|'])
      for (const record of records)
        for (const cell of cellsSplitBy(record, separator))
          expect(cell.replace(/^[ "]*/, ''), `${record} split by ${separator}`).not.toMatch(/^[=+\-@]/);
  });

  it('says what was refunded, the commission, the payout and, while processing, what was seen', async () => {
    const create = async (amount: string) => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { amount, currency: 'USDC' },
      });
      return response.json().payment_id as string;
    };
    // A transfer of the whole price seen, not final yet: the payment is processing, nothing is final.
    const processing = await create('8.00');
    const payment = (await h.stores.payments.findById(processing))!;
    const blockHash = `0x${'cd'.repeat(32)}`;
    await h.stores.ledger.transaction(async (tx) =>
      refreshPayments(
        tx,
        await tx.insertTransfers([
          {
            id: `${TEST_CHAIN.chainId}:${blockHash}:0`,
            chainId: TEST_CHAIN.chainId,
            paymentId: processing,
            txHash: `0x${'ef'.repeat(32)}`,
            blockHash,
            tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
            tokenSymbol: 'USDC',
            fromAddress: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
            toAddress: payment.deposit!.depositAddress.toLowerCase(),
            amountBaseUnits: 8_000_000n,
            blockNumber: 900_000n,
            logIndex: 0,
            blockTimestamp: h.clock.now(),
            final: false,
            orphaned: false,
          },
        ]),
        h.clock.now(),
      ),
    );
    // A paid payment of 10.00, 2.50 of it refunded and sent on to the customer, the payout sent.
    const refunded = await create('10.00');
    await payInFull(h, refunded);
    await h.database.handle.db
      .updateTable('payments')
      .set({
        payout_tx_hash: `0x${'12'.repeat(32)}`,
        settled_at: h.clock.now().toISOString(),
        settled_base_units: '10000000',
        merchant_paid_base_units: '9850000',
        treasury_paid_base_units: '150000',
      })
      .where('id', '=', refunded)
      .execute();
    const refund = await h.app.inject({
      method: 'POST',
      url: '/payments/api/refunds/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: {
        payment_id: refunded,
        amount: '2.50',
        address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      },
    });
    expect(refund.statusCode).toBe(201);
    await h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', amount_received_base_units: '2500000', merchant_paid_base_units: '2500000' })
      .where('id', '=', refund.json().refund_id)
      .execute();

    const [header, ...rows] = parseCsv((await exportCsv()).body);
    const cell = (row: string[] | undefined, column: string) => row?.[header!.indexOf(column)];
    const byId = new Map(rows.map((r) => [r[0], r]));
    const seen = byId.get(processing);
    expect(cell(seen, 'status')).toBe('processing');
    expect(cell(seen, 'amount_received')).toBe('8.00');
    expect(cell(seen, 'payout_status')).toBe('not_due');
    const paid = byId.get(refunded);
    expect([cell(paid, 'refunded'), cell(paid, 'commission'), cell(paid, 'payout_amount')]).toEqual([
      '2.50',
      '0.15',
      '9.85',
    ]);
    expect(cell(paid, 'payout_status')).toBe('sent');
    // The refund's own deposit row is never a line of the export.
    expect(byId.has(refund.json().refund_id)).toBe(false);
  });
});
