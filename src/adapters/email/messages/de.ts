import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the e-mails to customers say in German. */
export const de: MessageTable<typeof en> = {
  receipt: {
    subject: 'Ihre Quittung von {merchant}',
    preheader: 'Bezahlt: {amount} {currency}',
    heading: 'Vielen Dank für Ihre Zahlung',
    body: '{merchant} hat Ihre Zahlung über {amount} {currency} erhalten. Bewahren Sie diese E-Mail als Quittung auf.',
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
  },
};
