import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the e-mails to customers say in French. */
export const fr: MessageTable<typeof en> = {
  receipt: {
    subject: 'Votre reçu de {merchant}',
    preheader: 'Payé\u00a0: {amount} {currency}',
    heading: 'Merci pour votre paiement',
    body: '{merchant} a reçu votre paiement de {amount} {currency}. Conservez cet e-mail comme reçu.',
    merchant: 'Payé à',
    amount: 'Montant',
    usdcPaid: 'USDC payés',
    transaction: 'Transaction',
    date: 'Date',
    order: 'Commande',
    view: 'Voir votre reçu',
    footer: 'Vous recevez cet e-mail parce que {merchant} a indiqué votre adresse avec ce paiement.',
    pageTitle: 'Reçu de {merchant}',
    notFoundTitle: 'Reçu introuvable',
    notFoundBody: 'Ce reçu n’existe pas. Vérifiez que l’adresse est celle de votre e-mail.',
  },
};
