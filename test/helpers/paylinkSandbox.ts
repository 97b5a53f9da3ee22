import { runCli } from './cli.ts';
import { type SandboxProcess, startSandbox } from './sandboxProcess.ts';

/** A sandbox whose demo merchant's webhook secret the test knows (a shop plugin verifies its webhooks). */
export interface PaylinkSandbox extends SandboxProcess {
  /** The demo merchant's webhook secret, issued afresh for the test. */
  readonly webhookSecret: string;
}

/** `paylink serve` as a newcomer runs it (startSandbox), logging warnings only, with a fresh webhook secret. */
export async function startPaylinkSandbox(extraEnv: Record<string, string> = {}): Promise<PaylinkSandbox> {
  const sandbox = await startSandbox({ PAYLINK_LOG_LEVEL: 'warn', ...extraEnv });
  try {
    const rotated = await runCli(
      ['merchant', 'rotate-webhook-secret', sandbox.merchantId, '--overlap', '0', '--json'],
      sandbox.env,
    );
    if (rotated.code !== 0) throw new Error(`rotate-webhook-secret: ${rotated.stderr}`);
    return {
      ...sandbox,
      webhookSecret: (JSON.parse(rotated.stdout) as { webhook_secret: string }).webhook_secret,
    };
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}
