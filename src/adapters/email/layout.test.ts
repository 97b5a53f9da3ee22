import { describe, expect, it } from 'vitest';
import { findRemoteContent } from '../../domain/email.ts';
import { type EmailContent, renderEmailLayout } from './layout.ts';

const content: EmailContent = {
  language: 'fr',
  subject: 'Reçu de <Corner> "Shop"',
  preheader: '49,90 € payés',
  heading: 'Merci pour votre paiement',
  paragraphs: ['Corner <script>alert(1)</script> Shop a bien reçu votre paiement.'],
  facts: [
    { label: 'Montant', value: '49,90 EUR' },
    { label: 'Commande', value: 'order-" onmouseover="x' },
  ],
  action: { label: 'Voir le reçu', url: 'https://pay.example/receipts/r_1?a=1&b=2' },
  footer: ['Corner Shop a donné votre adresse pour la commande order-1.'],
};

describe('renderEmailLayout', () => {
  it('escapes every value and loads nothing', () => {
    const { html } = renderEmailLayout(content);
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('Corner &lt;script&gt;alert(1)&lt;/script&gt; Shop');
    expect(html).toContain('order-&quot; onmouseover=&quot;x');
    expect(html).toContain('<title>Reçu de &lt;Corner&gt; &quot;Shop&quot;</title>');
    expect(html).toContain('href="https://pay.example/receipts/r_1?a=1&amp;b=2"');
    expect(html).not.toContain('<script>');
    expect(findRemoteContent(html)).toBeUndefined();
  });

  it('says everything in the text part too', () => {
    const { subject, text } = renderEmailLayout(content);
    expect(subject).toBe('Reçu de <Corner> "Shop"');
    expect(text).toBe(
      [
        'Merci pour votre paiement',
        '',
        'Corner <script>alert(1)</script> Shop a bien reçu votre paiement.',
        '',
        'Montant: 49,90 EUR',
        'Commande: order-" onmouseover="x',
        '',
        'Voir le reçu: https://pay.example/receipts/r_1?a=1&b=2',
        '',
        '--',
        'Corner Shop a donné votre adresse pour la commande order-1.',
      ].join('\n'),
    );
  });

  it('leaves out what a message does not have', () => {
    const { html, text } = renderEmailLayout({
      ...content,
      facts: undefined,
      action: undefined,
      preheader: undefined,
    });
    expect(html).not.toContain('<a ');
    expect(html).not.toContain('<th');
    expect(html).not.toContain('display:none');
    expect(text).not.toContain('Montant');
  });

  it.each(['javascript:alert(1)', 'data:text/html,x', '/relative', 'not a url'])(
    'refuses an action linking to %s',
    (url) => {
      expect(() => renderEmailLayout({ ...content, action: { label: 'Go', url } })).toThrow('http(s) URL');
    },
  );
});
