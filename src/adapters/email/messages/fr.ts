import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the e-mails to customers say in French. */
export const fr: MessageTable<typeof en> = {
  receipt: {
    subject: 'Votre reçu de {merchant}',
    preheader: 'Payé\u00a0: {amount} {currency}',
    heading: 'Merci pour votre paiement',
    body: '{merchant} a reçu votre paiement de {amount} {currency}. Conservez cet e-mail comme reçu.',
    purchase: 'Achat',
    details: 'Détails',
    line: '{quantity} × {price} = {total}',
    items: 'Articles',
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
    pdfLink: 'Télécharger le reçu (PDF)',
    pdfTitle: 'Reçu',
    pdfNote:
      'Justificatif d’un paiement en USDC à {merchant}. Pour une facture avec les mentions fiscales, adressez-vous à {merchant}.',
    reference: 'Référence',
    paid: 'Payé',
    usdcPrice: 'Prix en USDC',
    rate: 'Taux de change',
    transfers: 'Virements reçus',
    refunds: 'Remboursements',
    refunded: 'Remboursé',
  },
  refund: {
    claimSubject: '{merchant} vous rembourse {amount} USDC',
    claimHeading: 'Où envoyer votre remboursement\u00a0?',
    claimBody:
      '{merchant} vous rembourse {amount} USDC. Indiquez l’adresse de votre propre portefeuille USDC sur la page du remboursement avant le {time}\u00a0; le remboursement y est envoyé dès que {merchant} l’a provisionné.',
    claimAction: 'Indiquer mon adresse',
    sentSubject: 'Votre remboursement de {merchant} a été envoyé',
    sentHeading: 'Votre remboursement a été envoyé',
    sentBody: '{merchant} vous a remboursé {amount} USDC. Ils sont dans votre portefeuille.',
    amount: 'Remboursement',
    address: 'Envoyé à',
    transaction: 'Transaction',
    footer: 'Vous recevez cet e-mail parce que {merchant} a indiqué votre adresse avec votre paiement.',
  },
  request: {
    subject: '{merchant} vous demande de payer {amount} {currency}',
    heading: 'Demande de paiement de {merchant}',
    body: '{merchant} vous demande de payer {amount} {currency} en USDC. Le lien est valable jusqu’au {time}.',
    amount: 'Montant',
    usdc: 'En USDC',
    order: 'Commande',
    expires: 'Payer avant le',
    pay: 'Payer {amount} {currency}',
    footer:
      'Vous recevez cet e-mail parce que {merchant} vous a envoyé cette demande de paiement. Si vous ne l’attendiez pas, ignorez-le\u00a0: rien n’est prélevé sans votre paiement.',
  },
};
