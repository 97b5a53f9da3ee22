import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../domain/errors.ts';
import { composeEmail } from './composeEmail.ts';
import type { EmailTemplate, RenderedEmail } from './ports.ts';

const now = new Date('2026-11-21T12:00:00Z');
const context = { id: 'em_1', messageDomain: 'shop.example', now };

function template(render: (language: string) => RenderedEmail): EmailTemplate<{ readonly n: number }> {
  return { kind: 'receipt', languages: ['en', 'de'], render: (_data, language) => render(language) };
}

const plain = template((language) => ({
  subject: `Receipt (${language})`,
  text: `Paid (${language})`,
  html: `<p>Paid (${language})</p>`,
}));

describe('composeEmail', () => {
  it('renders in the reader’s language when the template has it, else its first', () => {
    const base = { template: plain, data: { n: 1 }, merchantId: 'mch_1', recipient: ' ann@example.com ' };
    expect(composeEmail({ ...base, language: 'de', paymentId: 'pay_1' }, context)).toStrictEqual({
      id: 'em_1',
      kind: 'receipt',
      merchantId: 'mch_1',
      paymentId: 'pay_1',
      refundId: null,
      recipient: 'ann@example.com',
      language: 'de',
      subject: 'Receipt (de)',
      text: 'Paid (de)',
      html: '<p>Paid (de)</p>',
      messageId: '<em_1@shop.example>',
      createdAt: now,
    });
    expect(composeEmail({ ...base, language: 'pt-BR' }, context).language).toBe('en');
    expect(composeEmail(base, context).subject).toBe('Receipt (en)');
  });

  it('refuses a recipient that is not a plain address, naming the field it came from', () => {
    const compose = () =>
      composeEmail(
        {
          template: plain,
          data: { n: 1 },
          merchantId: 'mch_1',
          recipient: 'a@b.example\nBcc: c@d.example',
          recipientField: 'customer_email',
        },
        context,
      );
    expect(compose).toThrow(ValidationError);
    expect(compose).toThrow('customer_email: must be an e-mail address');
  });

  it.each([
    [
      'a remote image',
      { subject: 's', text: 't', html: '<img src="https://t.example/p.gif">' },
      /remote content/,
    ],
    ['a subject on two lines', { subject: 's\r\nBcc: x@y.z', text: 't', html: '<p>h</p>' }, /multi-line/],
    ['an empty subject', { subject: '', text: 't', html: '<p>h</p>' }, /subject/],
    ['an empty text part', { subject: 's', text: '', html: '<p>h</p>' }, /text body/],
    ['a huge HTML part', { subject: 's', text: 't', html: 'x'.repeat(100_001) }, /html body/],
  ])('refuses a template that renders %s', (_name, rendered, problem) => {
    expect(() =>
      composeEmail(
        { template: template(() => rendered), data: { n: 1 }, merchantId: 'm', recipient: 'a@b.example' },
        context,
      ),
    ).toThrow(problem);
  });
});
