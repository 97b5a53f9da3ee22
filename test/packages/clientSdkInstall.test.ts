/**
 * The client SDK installed the way the merchant guide says, for real: `npm pack ./packages/client` in the
 * repository (its prepack builds it), then `npm install <the tarball>` in a project of the merchant's own, offline
 * with an empty npm cache (the package has no dependencies, so nothing may need the registry), and imported by its
 * name from plain Node. `npm install @paylink/client` was a 404: the package is not published.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/domain/webhookSignature.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(REPOSITORY, 'packages/client/package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};
const tarball = `paylink-client-${manifest.version}.tgz`;

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd, env }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
        : resolve(stdout),
    ),
  );
}

describe('installing the client SDK as the guides say', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-sdk-install-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the command the merchant guide and the SDK README give, with the version the package has', () => {
    for (const doc of ['docs/merchant-guide.md', 'packages/client/README.md']) {
      const text = readFileSync(join(REPOSITORY, doc), 'utf8');
      expect(text, doc).toContain('npm pack ./packages/client');
      expect(text, doc).toContain(`npm install /path/to/paylink/${tarball}`);
      expect(text, doc).not.toMatch(/npm install @paylink\/client/);
    }
    // Publishing later is `npm publish ./packages/client`: it builds first.
    expect(manifest.scripts.prepublishOnly).toBe('tsc -p .');
  });

  it('packs, installs offline into a fresh project, and verifies a webhook signed by the server', async () => {
    const packed = join(dir, 'packed');
    mkdirSync(packed);
    await run('npm', ['pack', './packages/client', '--pack-destination', packed], REPOSITORY);
    expect(existsSync(join(packed, tarball))).toBe(true);

    const project = join(dir, 'shop');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name": "shop", "private": true, "type": "module"}');
    const offline = {
      ...process.env,
      npm_config_cache: join(dir, 'empty-cache'),
      npm_config_offline: 'true',
    };
    await run('npm', ['install', '--no-audit', '--no-fund', join(packed, tarball)], project, offline);

    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = '{"id":"evt_1","event":"payment.paid","payment_id":"p1"}';
    const headers = signWebhook({ id: 'evt_1', timestamp: new Date(), body, secrets: [secret] });
    const script = `
      import { verifyWebhook, PaylinkClient } from '@paylink/client';
      const event = await verifyWebhook(process.argv[1], JSON.parse(process.argv[2]), process.argv[3]);
      console.log(JSON.stringify({ event: event.event, client: typeof PaylinkClient }));
    `;
    const output = await run(
      process.execPath,
      ['--input-type=module', '-e', script, body, JSON.stringify(headers), secret],
      project,
    );
    expect(JSON.parse(output)).toStrictEqual({ event: 'payment.paid', client: 'function' });
  });
});
