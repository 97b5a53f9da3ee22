import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the refund claim page says in French. */
export const fr: MessageTable<typeof en> = {
  documentTitle: 'Remboursement de {merchant}',
  refundFrom: 'Remboursement de',
  amount: 'Montant',
  claimTitle: 'Où envoyer votre remboursement\u00a0?',
  claimBody:
    'Indiquez une adresse de votre propre portefeuille sur {network}. Le remboursement y est envoyé, et nulle part ailleurs, dès que {merchant} l’aura provisionné.',
  addressLabel: 'Votre adresse USDC sur {network}',
  addressHint:
    'Utilisez un portefeuille que vous contrôlez. Une adresse de dépôt de plateforme d’échange ne convient que si la plateforme accepte l’USDC sur {network}. Un remboursement envoyé à une mauvaise adresse est perdu.',
  claimBefore: 'Indiquez votre adresse avant le {time}.',
  fillFromWallet: 'Utiliser l’adresse de mon portefeuille',
  walletWorking: 'Confirmez la demande dans votre portefeuille…',
  walletRejected: 'La demande a été refusée dans votre portefeuille.',
  walletError: 'Votre portefeuille n’a pas répondu. Collez plutôt votre adresse.',
  confirm: 'Envoyer mon remboursement à cette adresse',
  confirmContract: 'Oui, l’envoyer à ce contrat',
  contractWarning:
    'Cette adresse est un contrat, pas un portefeuille ordinaire. Ne continuez que si vous savez qu’il peut recevoir de l’USDC et le transférer (un portefeuille à contrat intelligent, par exemple).',
  sending: 'Enregistrement de votre adresse…',
  problems: {
    format: 'Une adresse commence par 0x, suivi de 40 caractères (0–9, a–f). Vérifiez-la et réessayez.',
    checksum:
      'Cette adresse contient une faute de frappe\u00a0: une de ses lettres ne correspond pas. Collez-la à nouveau.',
    zero: 'C’est l’adresse zéro\u00a0: personne ne peut dépenser ce qui y est envoyé.',
    service_contract: 'C’est un contrat du réseau de paiement, pas un portefeuille.',
    deposit_address: 'C’est une adresse de dépôt de paiement, pas votre portefeuille.',
  },
  alreadyClaimed: 'Une adresse a déjà été indiquée pour ce remboursement.',
  tryAgain: 'Une erreur s’est produite. Réessayez dans un instant.',
  noScript: 'Activez JavaScript pour indiquer votre adresse.',
  progressTitle: 'Votre remboursement est en route',
  addressGiven: 'Il sera envoyé à',
  stepAddress: 'Adresse indiquée',
  stepFunding: 'En attente de l’envoi du remboursement par {merchant}',
  stepSending: 'Envoi vers votre adresse',
  refundedTitle: 'Remboursé',
  refundedBody: '{amount} ont été envoyés à votre adresse.',
  canceledTitle: 'Ce remboursement a été annulé',
  canceledBody: '{merchant} a annulé ce remboursement avant de l’envoyer. Contactez-le si vous l’attendiez.',
  expiredTitle: 'Ce lien de remboursement a expiré',
  expiredBody: 'Aucune adresse n’a été indiquée avant le {time}. Demandez un nouveau lien à {merchant}.',
  reference: 'Référence du remboursement',
  nonCustodial:
    'Paylink ne détient jamais votre remboursement\u00a0: l’adresse qui le reçoit ne peut l’envoyer qu’à l’adresse que vous indiquez.',
  notFoundTitle: 'Remboursement introuvable',
  notFoundBody: 'Vérifiez le lien reçu, ou contactez le marchand.',
};
