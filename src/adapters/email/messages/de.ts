import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the e-mails to customers say in German. */
export const de: MessageTable<typeof en> = {
  receipt: {
    subject: 'Ihre Quittung von {merchant}',
    preheader: 'Bezahlt: {amount} {currency}',
    heading: 'Vielen Dank für Ihre Zahlung',
    body: '{merchant} hat Ihre Zahlung über {amount} {currency} erhalten. Bewahren Sie diese E-Mail als Quittung auf.',
    purchase: 'Kauf',
    details: 'Details',
    line: '{quantity} × {price} = {total}',
    items: 'Artikel',
    merchant: 'Bezahlt an',
    amount: 'Betrag',
    usdcPaid: 'Gezahlte USDC',
    transaction: 'Transaktion',
    date: 'Datum',
    order: 'Bestellung',
    view: 'Quittung ansehen',
    footer: 'Sie erhalten diese E-Mail, weil {merchant} Ihre Adresse zu dieser Zahlung angegeben hat.',
    pageTitle: 'Quittung von {merchant}',
    notFoundTitle: 'Quittung nicht gefunden',
    notFoundBody: 'Diese Quittung gibt es nicht. Prüfen Sie, ob die Adresse der in Ihrer E-Mail entspricht.',
    pdfLink: 'Quittung herunterladen (PDF)',
    pdfTitle: 'Quittung',
    pdfNote:
      'Beleg einer Zahlung in USDC an {merchant}. Eine Rechnung mit Steuerangaben erhalten Sie von {merchant}.',
    reference: 'Referenz',
    paid: 'Bezahlt',
    usdcPrice: 'Preis in USDC',
    rate: 'Wechselkurs',
    transfers: 'Eingegangene Überweisungen',
    refunds: 'Erstattungen',
    refunded: 'Erstattet',
  },
  refund: {
    claimSubject: '{merchant} erstattet Ihnen {amount} USDC',
    claimHeading: 'Wohin soll Ihre Erstattung gehen?',
    claimBody:
      '{merchant} erstattet Ihnen {amount} USDC. Geben Sie vor {time} auf der Erstattungsseite die Adresse Ihrer eigenen USDC-Wallet an; die Erstattung wird dorthin gesendet, sobald {merchant} sie bereitstellt.',
    claimAction: 'Meine Adresse angeben',
    sentSubject: 'Ihre Erstattung von {merchant} wurde gesendet',
    sentHeading: 'Ihre Erstattung wurde gesendet',
    sentBody: '{merchant} hat Ihnen {amount} USDC erstattet. Sie sind in Ihrer Wallet.',
    amount: 'Erstattung',
    address: 'Gesendet an',
    transaction: 'Transaktion',
    footer: 'Sie erhalten diese E-Mail, weil {merchant} Ihre Adresse zu Ihrer Zahlung angegeben hat.',
  },
  request: {
    subject: '{merchant} bittet Sie, {amount} {currency} zu zahlen',
    heading: 'Zahlungsanforderung von {merchant}',
    body: '{merchant} bittet Sie, {amount} {currency} in USDC zu zahlen. Der Link gilt bis {time}.',
    amount: 'Betrag',
    usdc: 'In USDC',
    order: 'Bestellung',
    expires: 'Zahlen bis',
    pay: '{amount} {currency} zahlen',
    footer:
      'Sie erhalten diese E-Mail, weil {merchant} Ihnen diese Zahlungsanforderung gesendet hat. Wenn Sie sie nicht erwartet haben, ignorieren Sie sie: Ohne Ihre Zahlung wird nichts abgebucht.',
  },
};
