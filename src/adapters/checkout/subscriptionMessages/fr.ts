import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the subscribe page and the customer portal say in French. */
export const fr: MessageTable<typeof en> = {
  subscribeTitle: 'S’abonner à {plan} · {merchant}',
  portalTitle: 'Votre abonnement · {merchant}',
  eyebrow: 'Abonnement chez {merchant}',
  every: {
    day: '{count, plural, one {par jour} other {tous les # jours}}',
    week: '{count, plural, one {par semaine} other {toutes les # semaines}}',
    month: '{count, plural, one {par mois} other {tous les # mois}}',
    year: '{count, plural, one {par an} other {tous les # ans}}',
  },
  termsTitle: 'Comment ça marche',
  trial:
    '{days, plural, one {Un essai gratuit de # jour : le premier paiement est dû le {date}.} other {Un essai gratuit de # jours : le premier paiement est dû le {date}.}}',
  noTrial: 'Le premier paiement est dû maintenant : son lien arrive par e-mail dès votre abonnement.',
  pushTerms:
    'Avant chaque période, vous recevez un e-mail avec le lien de paiement de cette période, et vous la payez vous-même, depuis n’importe quel wallet ou plateforme, en USDC. Rien n’est jamais prélevé sur votre wallet sans des conditions que vous y avez signées.',
  grace:
    '{days, plural, one {Une période non payée # jour après son échéance met fin à l’abonnement.} other {Une période non payée # jours après son échéance met fin à l’abonnement.}}',
  noGrace: 'Une période non payée à son échéance met fin à l’abonnement.',
  periods: '{count, plural, one {Il dure # période.} other {Il dure # périodes.}}',
  untilCanceled: 'Il court jusqu’à ce que vous le résiliiez.',
  fiatRate:
    'Le prix est fixé en {currency} : le montant en USDC de chaque période est calculé au cours du jour où son paiement est créé.',
  cancelAnyTime:
    'Vous pouvez résilier à tout moment depuis le lien de chaque e-mail ; une période déjà payée court jusqu’à son terme.',
  emailTitle: 'S’abonner par e-mail',
  email: 'Votre adresse e-mail',
  emailUse:
    'Les liens de paiement et les rappels sont envoyés ici, avec le lien pour gérer votre abonnement.',
  subscribe: 'S’abonner',
  emailError: 'Saisissez une adresse e-mail valide.',
  formError: 'Le formulaire n’a pas pu être lu. Veuillez réessayer.',
  foreignForm: 'Ce formulaire doit être envoyé depuis sa propre page. Ouvrez à nouveau le lien d’abonnement.',
  rateLimited: 'Trop de tentatives depuis votre connexion. Attendez une minute et réessayez.',
  unavailable:
    'Cet abonnement ne peut pas commencer pour le moment. Réessayez plus tard ou contactez {merchant}.',
  planNotFoundTitle: 'Formule d’abonnement introuvable',
  planNotFoundBody: 'Il n’y a pas de formule d’abonnement à cette adresse. Vérifiez le lien reçu.',
  archivedTitle: 'Cette formule est fermée',
  archivedBody: '{merchant} ne prend plus de nouveaux abonnements à cette formule.',
  portalNotFoundTitle: 'Abonnement introuvable',
  portalNotFoundBody:
    'Il n’y a pas d’abonnement à cette adresse. Ouvrez à nouveau le lien de votre dernier e-mail.',
  status: {
    trialing: 'Essai gratuit jusqu’au {date}',
    active: 'Actif : payé jusqu’au {date}',
    past_due: 'Paiement dû : payez avant le {date}',
    canceled: 'Résilié le {date}',
    ended: 'Terminé le {date}',
  },
  endsOn: 'Résilié : il prend fin le {date}, et plus rien n’est facturé.',
  canceledNotice: 'Votre abonnement est résilié.',
  subscribedNotice: 'Vous êtes abonné. Nous avons envoyé les liens à {email}.',
  price: 'Prix',
  customer: 'E-mail',
  nextPayment: 'Prochain paiement',
  nextPaymentValue: '{amount} le {date}',
  planChange: 'À partir du {date}',
  payments: 'Paiements',
  noPayments: 'Aucun paiement pour l’instant : le premier arrive par e-mail avant son échéance.',
  period: 'Période',
  dates: 'Dates',
  paymentStatus: 'État',
  paymentStatuses: {
    pending: 'À payer',
    processing: 'En cours',
    paid: 'Payé',
    expired: 'Non payé',
    failed: 'Non payé',
  },
  pay: 'Payer',
  receipt: 'Reçu',
  view: 'Voir',
  cancelTitle: 'Résilier',
  cancelExplain:
    'L’abonnement s’arrête à la fin de la période en cours ({date}) ; plus rien n’est facturé ensuite.',
  cancelForeign: 'Cette résiliation doit être envoyée depuis cette page : utilisez le bouton ci-dessous.',
  cancel: 'Résilier mon abonnement',
  nonCustodial: 'Paylink ne détient jamais votre argent : chaque paiement va directement à {merchant}.',
  wallet: {
    title: 'Payer chaque période depuis votre portefeuille',
    explain:
      'Signez une fois dans le portefeuille de votre navigateur : à chaque période, {cap} est prélevé de votre portefeuille pour {merchant}, jamais plus et jamais deux fois par période. Votre adresse e-mail reste demandée : le lien de l’espace client et tout paiement fait vous-même y arrivent.',
    allowance:
      'Votre portefeuille signe aussi une autorisation USDC de {total} pour le contrat de prélèvement de Paylink (le prix d’une période fois le nombre de périodes). Vous ne payez aucun frais de réseau.',
    explainFiat:
      'Signez une fois dans le portefeuille de votre navigateur : à chaque période, le prix en {currency} est prélevé de votre portefeuille pour {merchant} en USDC au cours du jour, au plus {cap} par période et jamais deux fois par période ; si le prix en {currency} demande davantage, nous vous envoyons plutôt un lien par e-mail. Votre adresse e-mail reste demandée : le lien de l’espace client et tout paiement fait vous-même y arrivent.',
    allowanceFiat:
      'Votre portefeuille signe aussi une autorisation USDC de {total} pour le contrat de prélèvement de Paylink (le maximum par période fois le nombre de périodes). Vous ne payez aucun frais de réseau.',
    allowanceOpenEnded:
      'Votre portefeuille signe aussi une autorisation USDC de {total} pour le contrat de prélèvement de Paylink : {periods} périodes au plus, puisque l’abonnement dure jusqu’à ce que vous le résiliiez. Quand il reste moins d’une période, la page de votre abonnement permet à votre portefeuille d’en autoriser {periods} de plus. Vous ne payez aucun frais de réseau pour cette première autorisation.',
    subscribe: 'M’abonner avec mon portefeuille',
    noWallet:
      'Aucun portefeuille trouvé dans ce navigateur : abonnez-vous par e-mail ci-dessous, ou ouvrez cette page là où se trouve votre portefeuille.',
    working: 'Confirmez dans votre portefeuille…',
    rejected: 'Vous avez refusé dans votre portefeuille : rien n’a été signé.',
    wrongChain: 'Passez votre portefeuille sur {chain} et réessayez.',
    failed: 'Cela n’a pas fonctionné :',
    portalTitle: 'Payé depuis votre portefeuille',
    cap: 'Au plus par période',
    period: 'Prélevé',
    end: 'Fin',
    endNever: 'À votre résiliation',
    wallet: 'Portefeuille',
    stopped: 'Votre portefeuille n’est plus prélevé : le lien de chaque période arrive par e-mail.',
    switchExplain: 'Plus aucun prélèvement : le lien de paiement de chaque période arrive par e-mail.',
    switch: 'Passer aux paiements par e-mail',
    switched:
      'C’est fait : votre portefeuille ne sera plus prélevé. Le lien de chaque période arrive par e-mail.',
    revokeExplain:
      'Pour en être sûr sur la chaîne, votre portefeuille peut annuler ces conditions dans le contrat lui-même (une transaction, avec frais de réseau). Ramener à 0 l’autorisation USDC du contrat (approve) arrête aussi tout prélèvement.',
    revoke: 'Révoquer sur la chaîne',
    canceledOnChain: 'Annulé sur la chaîne par votre portefeuille le {date}, transaction',
    revoked: 'Révoqué sur la chaîne : ces conditions ne pourront plus jamais être prélevées.',
    allowanceLeft: 'Autorisation restante',
    topUpExplain:
      'Il reste moins que les {cap} de la prochaine période dans l’autorisation de votre portefeuille au contrat de prélèvement : le prochain prélèvement échouerait et son lien viendrait par e-mail. Votre portefeuille peut autoriser les {periods} prochaines périodes, jusqu’à {total} (approve d’USDC : une transaction, avec frais de réseau).',
    topUp: 'Autoriser {periods} périodes de plus',
    toppedUp:
      'C’est fait : le contrat peut maintenant prélever jusqu’à {total} sur votre portefeuille, une période à la fois.',
  },
};
