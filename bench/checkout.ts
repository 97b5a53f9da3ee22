import { chromium } from 'playwright-core';
import { buildCheckoutServer } from '../src/main/webServers.ts';
import { startChainHarness } from '../test/helpers/chainHarness.ts';
import { capturingLogger } from '../test/helpers/logCapture.ts';
import { fmt, isMain, percentile } from './support.ts';

/**
 * The checkout page as a customer's browser gets it (issue "Checkout that converts", part 6): the bytes it
 * transfers before its load event (document, stylesheet, script, QR code, favicon) and its first contentful
 * paint in Chromium, against the same page with JavaScript disabled, in the same run. Each load is a fresh
 * browser context (nothing cached), the two kinds alternate, and the medians are compared.
 * Goals: ≤ 60 KB transferred; first render ≤ 1.2× the script-less page.
 */
const ROUNDS = 15;
const CHROMIUM = process.env.PAYLINK_CHROMIUM ?? '/usr/bin/chromium';

export async function runCheckoutBench(): Promise<string[]> {
  const h = await startChainHarness('sqlite');
  const checkout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger: capturingLogger().logger,
    network: { name: 'Sandbox', chainId: h.anvil.chain.id, explorerUrl: '', publicRpcUrl: h.anvil.rpcUrl },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  try {
    const base = await checkout.listen({ host: '127.0.0.1', port: 0 });
    const payment = await h.createPayment('25', 'EUR');
    const url = `${base}/pay/${payment.id}`;
    /**
     * One fresh load, followed through the DevTools protocol (the page's own JavaScript may be off): bytes as
     * received (Network.loadingFinished) until the load event, and first contentful paint from the page's
     * lifecycle events, relative to navigation start.
     */
    const load = async (javaScriptEnabled: boolean) => {
      const context = await browser.newContext({ javaScriptEnabled });
      try {
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Page.enable');
        await cdp.send('Page.setLifecycleEventsEnabled', { enabled: true });
        let bytes = 0;
        let loaded = false;
        const lifecycle = new Map<string, number>();
        cdp.on('Network.loadingFinished', (event) => {
          if (!loaded) bytes += event.encodedDataLength;
        });
        cdp.on('Page.lifecycleEvent', (event) => {
          if (!lifecycle.has(event.name)) lifecycle.set(event.name, event.timestamp);
          if (event.name === 'load') loaded = true;
        });
        await page.goto(url, { waitUntil: 'load' });
        // Paint may be reported just after load: wait for it, briefly.
        for (let i = 0; i < 50 && !lifecycle.has('firstContentfulPaint'); i += 1)
          await new Promise((resolve) => setTimeout(resolve, 20));
        const start = lifecycle.get('init');
        const paint = lifecycle.get('firstContentfulPaint');
        return {
          firstPaintMs: start !== undefined && paint !== undefined ? (paint - start) * 1000 : Number.NaN,
          bytes,
        };
      } finally {
        await context.close();
      }
    };
    // Warm-up: the server's and the browser's first loads are not the figure.
    await load(true);
    await load(false);
    const withScript: number[] = [];
    const withoutScript: number[] = [];
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const scripted = await load(true);
      const plain = await load(false);
      withScript.push(scripted.firstPaintMs);
      bytes = Math.max(bytes, scripted.bytes);
      withoutScript.push(plain.firstPaintMs);
    }
    const median = (samples: number[]) => percentile(samples, 50);
    const ratio = median(withScript) / median(withoutScript);
    return [
      `  checkout page (${ROUNDS} fresh loads each, Chromium):`,
      `    transferred before load: ${fmt(bytes / 1024, 1)} KB   (goal ≤ 60 KB: ${bytes <= 60 * 1024 ? 'met' : 'NOT met'})`,
      `    first contentful paint:  ${fmt(median(withScript), 1)} ms with its script, ${fmt(median(withoutScript), 1)} ms without`,
      `    ratio ${fmt(ratio, 2)}   (goal ≤ 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'})`,
    ];
  } finally {
    await browser.close();
    await checkout.close();
    await h.close();
  }
}

if (isMain(import.meta.url)) {
  for (const line of await runCheckoutBench()) process.stdout.write(`${line}\n`);
}
