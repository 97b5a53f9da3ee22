import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import {
  endpointWants,
  eventTypesOf,
  eventTypesText,
  parseEndpointDescription,
  parseEventTypes,
} from './webhookEndpoint.ts';

describe('a webhook endpoint’s event types', () => {
  it('takes "*" or nothing as every type, and a list each once in the event list’s order', () => {
    expect(parseEventTypes(undefined)).toBe('all');
    expect(parseEventTypes(['*'])).toBe('all');
    expect(parseEventTypes(['refund.created', 'payment.paid', 'payment.paid'])).toStrictEqual([
      'payment.paid',
      'refund.created',
    ]);
  });

  it('refuses none, an unknown type by name, and "*" beside others', () => {
    expect(() => parseEventTypes([])).toThrow(ValidationError);
    expect(() => parseEventTypes(['payment.paid', 'payment.bogus'])).toThrow('"payment.bogus"');
    expect(() => parseEventTypes(['*', 'payment.paid'])).toThrow('"*"');
  });

  it('is stored as text and read back, dropping a type no longer known', () => {
    expect(eventTypesOf(eventTypesText('all'))).toBe('all');
    expect(eventTypesOf(eventTypesText(['payment.paid', 'refund.refunded']))).toStrictEqual([
      'payment.paid',
      'refund.refunded',
    ]);
    expect(eventTypesOf('payment.paid payment.gone')).toStrictEqual(['payment.paid']);
  });

  it('wants what it names, or everything', () => {
    expect(endpointWants({ eventTypes: 'all' }, 'refund.expired')).toBe(true);
    expect(endpointWants({ eventTypes: ['payment.paid'] }, 'payment.paid')).toBe(true);
    expect(endpointWants({ eventTypes: ['payment.paid'] }, 'payment.payout_sent')).toBe(false);
  });

  it('keeps a description of 200 characters, trimmed, and refuses 201', () => {
    expect(parseEndpointDescription(`  ${'x'.repeat(200)}  `)).toHaveLength(200);
    expect(parseEndpointDescription(undefined)).toBe('');
    expect(() => parseEndpointDescription('x'.repeat(201))).toThrow(ValidationError);
  });
});
