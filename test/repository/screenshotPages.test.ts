import type { FastifyInstance } from 'fastify';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES } from '../../scripts/screenshots/pages.ts';
import { createMetrics } from '../../src/adapters/metrics/metrics.ts';
import { type Config, loadConfig } from '../../src/config/index.ts';
import type { HomeChain } from '../../src/main/chains/model.ts';
import { webServices } from '../../src/main/services.ts';
import { buildApiServer, buildCheckoutServer } from '../../src/main/webServers.ts';
import { createStores } from '../../src/main/wiring.ts';
import { TEST_CHAIN } from '../helpers/apiHarness.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

/**
 * The GET routes of the two web servers that answer no page, each with why. Every other GET route of the
 * checkout, and every one of the dashboard, is a page: `npm run screenshots` must show it (scripts/screenshots/
 * pages.ts), so a new page without a screenshot fails here. Files (a path ending in an extension) are not pages.
 */
const NOT_PAGES: Record<string, string> = {
  '/dashboard': 'redirects to /dashboard/home (or the sign-in)',
  '/dashboard/set-password': 'the sign-in form again, opened by a one-time link only',
  '/receipts/:token/pdf': "the receipt's PDF",
  '/brand/:merchant/:file': "a merchant's logo or colour stylesheet",
  '/dashboard/brand/:file': "the merchant's own logo, for its brand page",
};
const FILE = /\.[a-z0-9]+$/;

/** A Fastify server's GET routes, read from its route tree (printRoutes: one node a line, children indented). */
function getRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ method: 'GET', commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + node[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    if (node[3]?.split(', ').includes('GET')) routes.push(path);
  }
  return routes;
}

/**
 * The sandbox's chain as the service resolves it, with every key set so that every route the chain can open
 * (the gasless ones) is there; nothing here reaches its RPC URL.
 */
function sandboxChain(config: Config): HomeChain {
  const settings = config.chains[0]!;
  const key: Hex = `0x${'1'.repeat(64)}`;
  return {
    settings,
    modes: ['live', 'test'],
    target: { ...TEST_CHAIN, acceptedTokens: [], noticedTokens: [], forwarderVersion: 3 },
    rpcUrls: ['http://127.0.0.1:9'],
    relayerKey: key,
    gaslessRelayerKey: key,
    cctp: undefined,
    sources: [],
  } as unknown as HomeChain;
}

describe('the screenshots cover every page the service serves', () => {
  let database: TestDatabase;
  let servers: FastifyInstance[] = [];
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    // Built as `paylink serve` builds them (webServices), so a page that only the wiring adds is counted too.
    const config = loadConfig({ PAYLINK_DATABASE_URL: database.url, PAYLINK_NETWORK: 'sandbox' });
    const services = webServices(config, {
      database: database.handle,
      stores: createStores(database.handle),
      chains: [sandboxChain(config)],
      metrics: createMetrics(),
      clock: new TestClock(),
      logger: capturingLogger().logger,
    });
    close = services.close;
    servers = [await buildApiServer(services.api), await buildCheckoutServer(services.checkout)];
    await Promise.all(servers.map((server) => server.ready()));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await close();
    await database?.drop();
  });

  it('has a screenshot of each page route, and each screenshot shows a route that exists', () => {
    const [api, checkout] = servers as [FastifyInstance, FastifyInstance];
    const pages = [
      ...getRoutes(api).filter((path) => path === '/dashboard' || path.startsWith('/dashboard/')),
      ...getRoutes(checkout),
    ].filter((path) => !FILE.test(path) && !(path in NOT_PAGES));
    // The route tree was read: the pages every version has are among them.
    expect(pages).toEqual(
      expect.arrayContaining(['/pay/:id', '/l/:id', '/dashboard/login', '/dashboard/home']),
    );
    const shown = new Set(PAGES.map((page) => page.route));
    const unshown = pages.filter((route) => !shown.has(route));
    expect(unshown, 'page routes without a screenshot: add each to scripts/screenshots/pages.ts').toEqual([]);
    const gone = [...shown].filter((route) => !pages.includes(route));
    expect(gone, 'screenshots of routes the service does not serve').toEqual([]);
  });

  it('names each screenshot once, with at least one width', () => {
    const names = PAGES.map((page) => page.name);
    expect(new Set(names).size).toBe(names.length);
    for (const page of PAGES) expect(page.widths.length, page.name).toBeGreaterThan(0);
  });
});
