import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the checkout page says in French. */
export const fr: MessageTable<typeof en> = {
  documentTitle: 'Payer {merchant}',
  paymentTo: 'Paiement à',
  price: 'Prix',
  orderSummary: 'Votre commande',
  lineQuantity: '{quantity} × {price}',
  amountToSend: 'Montant à envoyer',
  network: 'Réseau',
  networkValue: '{network} · ID de chaîne {chainId}',
  tokenContract: 'Contrat du jeton USDC',
  depositAddress: 'Adresse de dépôt',
  copy: 'Copier',
  copied: 'Copié',
  copyAmount: 'Copier le montant',
  copyAddress: 'Copier l’adresse de dépôt',
  qrAlt: 'QR code\u00a0: virement de {amount} USDC sur {network} vers {address}',
  qrAddressAlt: 'QR code de l’adresse de dépôt {address}',
  scanHint: 'Scannez avec votre portefeuille\u00a0: il remplit le jeton, le montant et l’adresse.',
  openInWallet: 'Ouvrir dans un portefeuille',
  addressOnly: 'Votre application ne lit pas ce code\u00a0? Utilisez l’adresse seule',
  warningTitle: 'Envoyez uniquement de l’USDC sur {network}',
  warningBody:
    'Envoyez exactement {amount} sur {network}, ID de chaîne {chainId}, à l’adresse ci-dessus. Tout autre jeton, ou de l’USDC sur un autre réseau, serait perdu.',
  networkChoice: 'Réseau de paiement',
  networkChoiceHint:
    'L’adresse de dépôt est la même sur chacun de ces réseaux. Choisissez celui où se trouve votre USDC.',
  warningTitleMany: 'Envoyez de l’USDC uniquement sur {networks}',
  warningBodyMany:
    'Envoyez exactement {amount} sur l’un de ces réseaux, à l’adresse ci-dessus. Tout autre jeton, ou de l’USDC sur tout autre réseau, serait perdu.',
  timeLeft: 'Temps restant pour payer',
  expiresAt: 'Ce lien expire le {time}.',
  waitingTitle: 'En attente de votre paiement',
  waitingBody: 'Cette page se met à jour d’elle-même dès que votre virement est sur la chaîne.',
  partialTitle: 'Paiement partiel reçu',
  partialBody: '{received} sont arrivés. Envoyez les {remaining} restants pour terminer le paiement.',
  partialConfirming: 'Une partie est encore en cours de confirmation.',
  confirmingTitle: 'Paiement détecté, confirmation en cours',
  confirmingBody:
    'Votre virement de {amount} est sur la chaîne et en cours de confirmation. Cela prend en général quelques secondes\u00a0; vous pouvez garder cette page ouverte.',
  paidTitle: 'Paiement effectué',
  paidBody: '{merchant} a bien reçu votre paiement de {amount}. Merci\u00a0!',
  paidLate: 'Il est arrivé après l’expiration du lien\u00a0; le marchand en a été informé.',
  transaction: 'Transaction',
  viewOnExplorer: 'Voir sur l’explorateur de blocs',
  returnToMerchant: 'Retour à {merchant}',
  expiredTitle: 'Ce lien de paiement a expiré',
  expiredBody:
    'Aucun paiement n’est arrivé avant le {time}. N’envoyez plus rien à cette adresse\u00a0: retournez chez {merchant} pour obtenir un nouveau lien.',
  failedTitle: 'Paiement incomplet',
  failedBody: 'Seuls {received} sur les {required} dus sont arrivés avant l’expiration du lien.',
  failedHelp:
    'Ce qui est arrivé revient à {merchant}. Contactez-le avec la référence de paiement ci-dessous pour finaliser votre commande ou obtenir un remboursement. N’envoyez rien de plus à cette adresse.',
  reference: 'Référence du paiement',
  orWallet: 'Ou payez depuis un autre portefeuille ou appareil',
  payWithWallet: 'Payer avec le portefeuille du navigateur',
  walletWorking: 'Confirmez la demande dans votre portefeuille…',
  chooseWallet: 'Choisissez le portefeuille avec lequel payer',
  payWithNamed: 'Payer avec {wallet}',
  rateLine: '{price} = {usdc} au taux de {rate} {pair}, jusqu’à {time}',
  exchangeFee:
    'Vous payez depuis une plateforme d’échange\u00a0? Elle déduit ses frais de retrait de ce qui arrive\u00a0: envoyez le montant affiché plus ces frais.',
  showQr: 'Afficher le QR code',
  transfers: 'Virements reçus',
  transferConfirming: 'en cours de confirmation',
  overpaid:
    'Vous avez envoyé {sent}, soit {extra} de plus que le prix\u00a0; le marchand peut vous rembourser la différence.',
  walletRejected: 'La demande a été refusée dans votre portefeuille. Rien n’a été envoyé.',
  walletWrongChain:
    'Votre portefeuille est sur un autre réseau. Passez sur {network}, ID de chaîne {chainId}, et réessayez.',
  walletInsufficient:
    'Votre portefeuille contient {balance} USDC sur {network}, mais {amount} USDC sont nécessaires.',
  walletSent: 'Transaction envoyée\u00a0: {hash}. Cette page se met à jour à son arrivée.',
  walletError: 'Le portefeuille a signalé une erreur\u00a0: {message}',
  gaslessHint:
    'Aucuns frais de réseau\u00a0: votre portefeuille signe seulement le virement, et nous l’envoyons pour vous.',
  payWithGas: 'Payer plutôt par un virement normal (vous payez les frais de réseau)',
  walletSigning: 'Signez le virement dans votre portefeuille. Vous n’avez aucuns frais de réseau.',
  walletSigned:
    'Signé — votre paiement est en route, sans frais de réseau pour vous. Cette page se met à jour à son arrivée.',
  noScript: 'JavaScript est désactivé\u00a0: rechargez cette page pour voir si votre paiement est arrivé.',
  connectionLost: 'Connexion perdue. Nouvelle tentative…',
  nonCustodial:
    'Sans dépositaire\u00a0: cette adresse a été créée pour ce seul paiement et ne peut transmettre les fonds qu’au marchand et à son prestataire de paiement.',
  language: 'Langue',
  notFoundTitle: 'Paiement introuvable',
  notFoundBody: 'Aucun paiement à cette adresse. Vérifiez le lien reçu, ou retournez sur la boutique.',
  errorTitle: 'Une erreur est survenue',
  errorBody: 'La page n’a pas pu être affichée. Réessayez dans un instant.',
  linkDocumentTitle: '{title} · {merchant}',
  linkQuantity: 'Quantité (1 à {max})',
  linkChooseAmount: 'Choisissez un montant',
  linkOtherAmount: 'Ou saisissez un montant en {currency}',
  linkAmountRange: 'De {min} à {max} {currency}.',
  linkContinue: 'Continuer vers le paiement',
  linkEmail: 'E-mail pour votre reçu (facultatif)',
  linkEmailUse: 'Nous y envoyons le reçu une fois votre paiement arrivé, et rien d’autre.',
  linkEmailError: 'Saisissez une adresse e-mail, ou laissez le champ vide.',
  linkAmountError: 'Saisissez un montant de {min} à {max} {currency}.',
  linkDecimalsError: 'Trop de décimales\u00a0: saisissez le montant avec au plus {places} décimales.',
  linkQuantityError: 'Choisissez une quantité de 1 à {max}.',
  linkFormError: 'Le formulaire n’a pas pu être lu. Choisissez à nouveau.',
  linkForeignForm:
    'Ce formulaire doit être envoyé depuis sa propre page. Rouvrez le lien de paiement et choisissez-y.',
  linkRateLimited: 'Trop de tentatives depuis votre connexion. Attendez une minute puis réessayez.',
  linkNextStep: 'La page suivante indique le montant en USDC et l’adresse où l’envoyer.',
  linkNotFoundTitle: 'Lien de paiement introuvable',
  linkNotFoundBody:
    'Il n’y a aucun lien de paiement à cette adresse. Vérifiez le lien que l’on vous a donné.',
  linkDeactivatedTitle: 'Ce lien de paiement est fermé',
  linkDeactivatedBody:
    '{merchant} n’accepte plus de paiements par ce lien. Contactez-le si vous souhaitez encore payer.',
  linkEndedTitle: 'Ce lien de paiement a pris fin',
  linkEndedBody:
    'Il n’accepte plus de paiements depuis le {time}. Contactez {merchant} si vous souhaitez encore payer.',
  linkSoldOutTitle: 'Ce lien de paiement est épuisé',
  linkSoldOutBody:
    'Tous les paiements qu’il pouvait recevoir ont été réglés\u00a0: il n’en accepte plus. Contactez {merchant} si vous souhaitez tout de même payer.',
  linkUsedUpTitle: 'Ce lien de paiement est complet',
  linkUsedUpBody:
    'Il a reçu tous les paiements qu’il peut prendre pour l’instant. Une place se libère quand un paiement inachevé expire\u00a0: réessayez plus tard.',
  linkUnavailableTitle: 'Paiement impossible pour le moment',
  linkUnavailableBody:
    'Ce lien ne peut pas recevoir de paiement pour le moment. Réessayez plus tard, ou contactez {merchant}.',
  redirectCountdown: 'Retour vers {merchant} dans {seconds}\u00a0s.',
  redirectStay: 'Rester sur cette page',
  backToMerchant: 'Retour vers {merchant}',
  leavingCancelsNothing: 'Quitter cette page n’annule rien\u00a0: un transfert déjà envoyé compte toujours.',
};
