/**
 * The Medusa plugin installed as its README says: `npm pack ./packages/client ./packages/medusa` (their prepack
 * builds them), then both tarballs in one `npm install` in a shop's project, offline with an empty npm cache.
 * Medusa is the shop's own (a peer dependency), so `--legacy-peer-deps` leaves it out here; what is checked is
 * that the plugin's files are where medusa-config points and that it reaches the SDK installed beside it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { installTestsRun } from '../setup/skippedParts.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

function run(command: string, args: string[], cwd: string, env = process.env): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd, env }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
        : resolve(stdout),
    ),
  );
}

describe.runIf(installTestsRun('medusa'))(
  'installing the Medusa plugin as its README says',
  { timeout: 180_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'paylink-medusa-install-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('is the command the README gives', () => {
      const readme = readFileSync(join(REPOSITORY, 'packages/medusa/README.md'), 'utf8');
      expect(readme).toContain('npm pack ./packages/client ./packages/medusa');
      expect(readme).toContain(
        'npm install /path/to/paylink/paylink-client-0.1.0.tgz /path/to/paylink/paylink-medusa-0.1.0.tgz',
      );
      expect(readme).toContain("resolve: '@paylink/medusa/providers/paylink'");
    });

    it('packs both, installs them offline into a shop, and the plugin loads the SDK beside it', async () => {
      const packed = join(dir, 'packed');
      mkdirSync(packed);
      await run(
        'npm',
        ['pack', './packages/client', './packages/medusa', '--pack-destination', packed],
        REPOSITORY,
      );
      const shop = join(dir, 'shop');
      mkdirSync(shop);
      writeFileSync(join(shop, 'package.json'), '{"name": "shop", "private": true}');
      const offline = {
        ...process.env,
        npm_config_cache: join(dir, 'empty-cache'),
        npm_config_offline: 'true',
      };
      await run(
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--legacy-peer-deps',
          join(packed, 'paylink-client-0.1.0.tgz'),
          join(packed, 'paylink-medusa-0.1.0.tgz'),
        ],
        shop,
        offline,
      );
      const plugin = join(shop, 'node_modules/@paylink/medusa');
      // Where medusa-config's resolve strings lead, and where Medusa looks for a plugin's jobs and subscribers.
      const resolved = await run(
        process.execPath,
        ['-e', "console.log(require.resolve('@paylink/medusa/providers/paylink'))"],
        shop,
      );
      expect(resolved.trim()).toBe(join(plugin, '.medusa/server/src/providers/paylink/index.js'));
      expect(existsSync(join(plugin, '.medusa/server/src/jobs/paylink-recheck-pending.js'))).toBe(true);
      expect(existsSync(join(plugin, '.medusa/server/src/subscribers/paylink-refund-webhook.js'))).toBe(true);
      // The provider's dynamic import of the SDK, from the plugin's own folder.
      const sdk = await run(
        process.execPath,
        ['-e', "import('@paylink/client').then((m) => console.log(typeof m.verifyWebhook))"],
        plugin,
      );
      expect(sdk.trim()).toBe('function');
    });
  },
);
