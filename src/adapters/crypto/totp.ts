import { Secret, TOTP } from 'otpauth';
import type { SecondFactor } from '../../app/dashboard/ports.ts';

const PERIOD_S = 30;
/** One step either side: a phone clock a little off, or a code typed as it changed. */
const WINDOW = 1;

function totp(secret: string, label = ''): TOTP {
  return new TOTP({
    issuer: 'Paylink',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** TOTP (RFC 6238) as authenticator apps read it: SHA-1, 6 digits, 30 s, with the `otpauth` library. */
export const totpSecondFactor: SecondFactor = {
  newSecret: () => new Secret({ size: 20 }).base32,
  enrollmentUri: (secret, email) => totp(secret, email).toString(),
  step(secret, code, now) {
    if (!/^\d{6}$/.test(code)) return undefined;
    const delta = totp(secret).validate({ token: code, timestamp: now.getTime(), window: WINDOW });
    return delta === null ? undefined : Math.floor(now.getTime() / 1000 / PERIOD_S) + delta;
  },
  codeAt: (secret, at) => totp(secret).generate({ timestamp: at.getTime() }),
};
