import { describe, expect, it } from 'vitest';
import { loggableUrl } from './requestLog.ts';

describe('URLs in request logs', () => {
  it('keeps the path and the parameters the service reads', () => {
    expect(loggableUrl('/payments/api/status/abc/')).toBe('/payments/api/status/abc/');
    expect(loggableUrl('/payments/api/payments/?status=paid&limit=20&cursor=c1')).toBe(
      '/payments/api/payments/?status=paid&limit=20&cursor=c1',
    );
    expect(loggableUrl('/pay/abc?lang=fr')).toBe('/pay/abc?lang=fr');
  });

  it('redacts the value of any other parameter, however it is spelled', () => {
    expect(loggableUrl('/x/?api_key=sk_live_123&amount=1')).toBe('/x/?api_key=[redacted]&amount=1');
    expect(loggableUrl('/x/?token=t0k3n')).toBe('/x/?token=[redacted]');
    expect(loggableUrl('/x/?st%61tus=paid&%zz=secret')).toBe('/x/?st%61tus=paid&%zz=[redacted]');
    expect(loggableUrl('/x/?sk_live_123&key=s')).toBe('/x/?[redacted]&key=[redacted]');
    expect(loggableUrl('/x/?')).toBe('/x/?');
    // Behind listed parameters, last, or after an empty pair: the check reads every pair to the end.
    expect(loggableUrl('/x/?amount=1&currency=EUR&token=t0k3n')).toBe(
      '/x/?amount=1&currency=EUR&token=[redacted]',
    );
    expect(loggableUrl('/x/?amount=1&&sk_live_123')).toBe('/x/?amount=1&&[redacted]');
  });
});
