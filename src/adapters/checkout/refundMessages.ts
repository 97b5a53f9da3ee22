import type { RefundAddressProblem } from '../../domain/refund.ts';
import type { Language } from '../web/language.ts';

/**
 * Everything the refund claim page says, in each language (the same conventions as messages.ts: `{name}`
 * placeholders, a no-break space before French : ? ! ;). The network, token and footer lines come from the
 * checkout's own messages.
 */
export interface RefundMessages {
  readonly documentTitle: string;
  readonly refundFrom: string;
  readonly amount: string;
  readonly claimTitle: string;
  readonly claimBody: string;
  readonly addressLabel: string;
  readonly addressHint: string;
  readonly claimBefore: string;
  readonly fillFromWallet: string;
  readonly walletWorking: string;
  readonly walletRejected: string;
  readonly walletError: string;
  readonly confirm: string;
  readonly confirmContract: string;
  readonly contractWarning: string;
  readonly sending: string;
  readonly problems: Readonly<Record<RefundAddressProblem, string>>;
  readonly alreadyClaimed: string;
  readonly tryAgain: string;
  readonly noScript: string;
  readonly progressTitle: string;
  readonly addressGiven: string;
  readonly stepAddress: string;
  readonly stepFunding: string;
  readonly stepSending: string;
  readonly stepRefunded: string;
  readonly refundedTitle: string;
  readonly refundedBody: string;
  readonly canceledTitle: string;
  readonly canceledBody: string;
  readonly expiredTitle: string;
  readonly expiredBody: string;
  readonly reference: string;
  readonly nonCustodial: string;
  readonly notFoundTitle: string;
  readonly notFoundBody: string;
}

const en: RefundMessages = {
  documentTitle: 'Refund from {merchant}',
  refundFrom: 'Refund from',
  amount: 'Amount',
  claimTitle: 'Where should your refund go?',
  claimBody:
    'Give an address of your own wallet on {network}. The refund is sent there and nowhere else, as soon as {merchant} funds it.',
  addressLabel: 'Your USDC address on {network}',
  addressHint:
    'Use a wallet you control. An exchange deposit address works only if the exchange accepts USDC on {network}. A refund sent to a wrong address cannot be recovered.',
  claimBefore: 'Give your address before {time}.',
  fillFromWallet: 'Use my browser wallet’s address',
  walletWorking: 'Confirm the request in your wallet…',
  walletRejected: 'The request was rejected in your wallet.',
  walletError: 'Your wallet did not answer. Paste your address instead.',
  confirm: 'Send my refund to this address',
  confirmContract: 'Yes, send it to this contract',
  contractWarning:
    'This address is a contract, not an ordinary wallet. Continue only if you know it can receive USDC and pass it on (a smart-contract wallet, for instance).',
  sending: 'Saving your address…',
  problems: {
    format: 'An address is 0x followed by 40 characters (0–9, a–f). Check it and try again.',
    checksum: 'This address has a typo: one of its letters does not match. Paste it again.',
    zero: 'This is the zero address: nobody can spend what is sent there.',
    service_contract: 'This is a contract of the payment network, not a wallet.',
    deposit_address: 'This is a payment deposit address, not your wallet.',
  },
  alreadyClaimed: 'An address was already given for this refund.',
  tryAgain: 'Something went wrong. Try again in a moment.',
  noScript: 'Turn on JavaScript to give your address.',
  progressTitle: 'Your refund is on its way',
  addressGiven: 'It will be sent to',
  stepAddress: 'Address given',
  stepFunding: 'Waiting for {merchant} to send the refund',
  stepSending: 'Sending it to your address',
  stepRefunded: 'Refunded',
  refundedTitle: 'Refunded',
  refundedBody: '{amount} was sent to your address.',
  canceledTitle: 'This refund was canceled',
  canceledBody: '{merchant} canceled this refund before sending it. Contact them if you expected it.',
  expiredTitle: 'This claim link has expired',
  expiredBody: 'No address was given before {time}. Contact {merchant} for a new link.',
  reference: 'Refund reference',
  nonCustodial:
    'Paylink never holds your refund: the address it is paid into can only send it on to the address you give.',
  notFoundTitle: 'Refund not found',
  notFoundBody: 'Check the link you were given, or contact the merchant.',
};

const fr: RefundMessages = {
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
  stepRefunded: 'Remboursé',
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

const de: RefundMessages = {
  documentTitle: 'Erstattung von {merchant}',
  refundFrom: 'Erstattung von',
  amount: 'Betrag',
  claimTitle: 'Wohin soll Ihre Erstattung gehen?',
  claimBody:
    'Geben Sie eine Adresse Ihrer eigenen Wallet auf {network} an. Die Erstattung geht dorthin und nirgendwo sonst, sobald {merchant} sie einzahlt.',
  addressLabel: 'Ihre USDC-Adresse auf {network}',
  addressHint:
    'Verwenden Sie eine Wallet, die Sie selbst kontrollieren. Eine Einzahlungsadresse einer Börse eignet sich nur, wenn die Börse USDC auf {network} annimmt. An eine falsche Adresse gesendete Erstattungen sind verloren.',
  claimBefore: 'Geben Sie Ihre Adresse bis {time} an.',
  fillFromWallet: 'Adresse meiner Browser-Wallet verwenden',
  walletWorking: 'Bestätigen Sie die Anfrage in Ihrer Wallet…',
  walletRejected: 'Die Anfrage wurde in Ihrer Wallet abgelehnt.',
  walletError: 'Ihre Wallet hat nicht geantwortet. Fügen Sie Ihre Adresse stattdessen ein.',
  confirm: 'Erstattung an diese Adresse senden',
  confirmContract: 'Ja, an diesen Vertrag senden',
  contractWarning:
    'Diese Adresse ist ein Vertrag, keine gewöhnliche Wallet. Fahren Sie nur fort, wenn Sie wissen, dass er USDC empfangen und weitergeben kann (etwa eine Smart-Contract-Wallet).',
  sending: 'Ihre Adresse wird gespeichert…',
  problems: {
    format:
      'Eine Adresse besteht aus 0x und 40 Zeichen (0–9, a–f). Prüfen Sie sie und versuchen Sie es erneut.',
    checksum: 'Diese Adresse enthält einen Tippfehler: Ein Buchstabe passt nicht. Fügen Sie sie erneut ein.',
    zero: 'Das ist die Null-Adresse: Was dorthin geht, kann niemand ausgeben.',
    service_contract: 'Das ist ein Vertrag des Zahlungsnetzes, keine Wallet.',
    deposit_address: 'Das ist eine Einzahlungsadresse für Zahlungen, nicht Ihre Wallet.',
  },
  alreadyClaimed: 'Für diese Erstattung wurde bereits eine Adresse angegeben.',
  tryAgain: 'Etwas ist schiefgegangen. Versuchen Sie es gleich noch einmal.',
  noScript: 'Aktivieren Sie JavaScript, um Ihre Adresse anzugeben.',
  progressTitle: 'Ihre Erstattung ist unterwegs',
  addressGiven: 'Sie geht an',
  stepAddress: 'Adresse angegeben',
  stepFunding: 'Warten, bis {merchant} die Erstattung sendet',
  stepSending: 'Wird an Ihre Adresse gesendet',
  stepRefunded: 'Erstattet',
  refundedTitle: 'Erstattet',
  refundedBody: '{amount} wurden an Ihre Adresse gesendet.',
  canceledTitle: 'Diese Erstattung wurde storniert',
  canceledBody:
    '{merchant} hat diese Erstattung vor dem Senden storniert. Wenden Sie sich an den Händler, wenn Sie sie erwartet haben.',
  expiredTitle: 'Dieser Link ist abgelaufen',
  expiredBody: 'Bis {time} wurde keine Adresse angegeben. Bitten Sie {merchant} um einen neuen Link.',
  reference: 'Erstattungsreferenz',
  nonCustodial:
    'Paylink verwahrt Ihre Erstattung nie: Die Adresse, auf die sie eingezahlt wird, kann sie nur an die von Ihnen angegebene Adresse weitersenden.',
  notFoundTitle: 'Erstattung nicht gefunden',
  notFoundBody: 'Prüfen Sie den erhaltenen Link oder wenden Sie sich an den Händler.',
};

const es: RefundMessages = {
  documentTitle: 'Reembolso de {merchant}',
  refundFrom: 'Reembolso de',
  amount: 'Importe',
  claimTitle: '¿Adónde enviamos su reembolso?',
  claimBody:
    'Indique una dirección de su propia billetera en {network}. El reembolso se envía allí y a ningún otro sitio, en cuanto {merchant} lo fondee.',
  addressLabel: 'Su dirección USDC en {network}',
  addressHint:
    'Use una billetera que usted controle. Una dirección de depósito de un exchange solo sirve si el exchange acepta USDC en {network}. Un reembolso enviado a una dirección equivocada no se puede recuperar.',
  claimBefore: 'Indique su dirección antes del {time}.',
  fillFromWallet: 'Usar la dirección de mi billetera del navegador',
  walletWorking: 'Confirme la solicitud en su billetera…',
  walletRejected: 'La solicitud fue rechazada en su billetera.',
  walletError: 'Su billetera no respondió. Pegue su dirección en su lugar.',
  confirm: 'Enviar mi reembolso a esta dirección',
  confirmContract: 'Sí, enviarlo a este contrato',
  contractWarning:
    'Esta dirección es un contrato, no una billetera corriente. Continúe solo si sabe que puede recibir USDC y transferirlo (una billetera de contrato inteligente, por ejemplo).',
  sending: 'Guardando su dirección…',
  problems: {
    format: 'Una dirección es 0x seguido de 40 caracteres (0–9, a–f). Compruébela e inténtelo de nuevo.',
    checksum: 'Esta dirección tiene una errata: una de sus letras no coincide. Péguela de nuevo.',
    zero: 'Es la dirección cero: nadie puede gastar lo que se envía allí.',
    service_contract: 'Es un contrato de la red de pagos, no una billetera.',
    deposit_address: 'Es una dirección de depósito de pagos, no su billetera.',
  },
  alreadyClaimed: 'Ya se indicó una dirección para este reembolso.',
  tryAgain: 'Algo salió mal. Inténtelo de nuevo en un momento.',
  noScript: 'Active JavaScript para indicar su dirección.',
  progressTitle: 'Su reembolso está en camino',
  addressGiven: 'Se enviará a',
  stepAddress: 'Dirección indicada',
  stepFunding: 'Esperando a que {merchant} envíe el reembolso',
  stepSending: 'Enviándolo a su dirección',
  stepRefunded: 'Reembolsado',
  refundedTitle: 'Reembolsado',
  refundedBody: 'Se enviaron {amount} a su dirección.',
  canceledTitle: 'Este reembolso fue cancelado',
  canceledBody: '{merchant} canceló este reembolso antes de enviarlo. Póngase en contacto si lo esperaba.',
  expiredTitle: 'Este enlace ha caducado',
  expiredBody: 'No se indicó ninguna dirección antes del {time}. Pida un enlace nuevo a {merchant}.',
  reference: 'Referencia del reembolso',
  nonCustodial:
    'Paylink nunca guarda su reembolso: la dirección que lo recibe solo puede enviarlo a la dirección que usted indique.',
  notFoundTitle: 'Reembolso no encontrado',
  notFoundBody: 'Compruebe el enlace que recibió o póngase en contacto con el comercio.',
};

export const REFUND_MESSAGES: Readonly<Record<Language, RefundMessages>> = { en, fr, de, es };
