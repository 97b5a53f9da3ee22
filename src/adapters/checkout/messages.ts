import type { Language } from '../web/language.ts';

/**
 * Everything checkout says, in each language. `{name}` placeholders are filled by `format` (html.ts), which
 * escapes the text and the parameters. French puts a no-break space (\u00a0) before : ? ! ; so that they never
 * begin a line. Amounts are written in the language's own format ("27,00": localeFormat.ts); what the copy
 * button puts on the clipboard stays "27.00", which every wallet reads.
 */
export interface Messages {
  readonly documentTitle: string;
  readonly paymentTo: string;
  readonly price: string;
  readonly amountToSend: string;
  readonly network: string;
  readonly networkValue: string;
  readonly tokenContract: string;
  readonly depositAddress: string;
  readonly copy: string;
  readonly copied: string;
  readonly copyAmount: string;
  readonly copyAddress: string;
  readonly qrAlt: string;
  readonly qrAddressAlt: string;
  readonly scanHint: string;
  readonly openInWallet: string;
  readonly addressOnly: string;
  readonly warningTitle: string;
  readonly warningBody: string;
  readonly timeLeft: string;
  readonly expiresAt: string;
  readonly waitingTitle: string;
  readonly waitingBody: string;
  readonly partialTitle: string;
  readonly partialBody: string;
  readonly partialConfirming: string;
  readonly confirmingTitle: string;
  readonly confirmingBody: string;
  readonly paidTitle: string;
  readonly paidBody: string;
  readonly paidLate: string;
  readonly transaction: string;
  readonly viewOnExplorer: string;
  readonly returnToMerchant: string;
  readonly expiredTitle: string;
  readonly expiredBody: string;
  readonly failedTitle: string;
  readonly failedBody: string;
  readonly failedHelp: string;
  readonly reference: string;
  readonly orWallet: string;
  readonly payWithWallet: string;
  readonly walletWorking: string;
  readonly chooseWallet: string;
  readonly payWithNamed: string;
  readonly rateLine: string;
  readonly exchangeFee: string;
  readonly showQr: string;
  readonly transfers: string;
  readonly transferConfirming: string;
  readonly overpaid: string;
  readonly walletRejected: string;
  readonly walletWrongChain: string;
  readonly walletInsufficient: string;
  readonly walletSent: string;
  readonly walletError: string;
  readonly gaslessHint: string;
  readonly payWithGas: string;
  readonly walletSigning: string;
  readonly walletSigned: string;
  readonly noScript: string;
  readonly connectionLost: string;
  readonly nonCustodial: string;
  readonly language: string;
  readonly notFoundTitle: string;
  readonly notFoundBody: string;
  readonly errorTitle: string;
  readonly errorBody: string;
}

const en: Messages = {
  documentTitle: 'Pay {merchant}',
  paymentTo: 'Payment to',
  price: 'Price',
  amountToSend: 'Amount to send',
  network: 'Network',
  networkValue: '{network} · chain ID {chainId}',
  tokenContract: 'USDC token contract',
  depositAddress: 'Deposit address',
  copy: 'Copy',
  copied: 'Copied',
  copyAmount: 'Copy the amount',
  copyAddress: 'Copy the deposit address',
  qrAlt: 'QR code: transfer {amount} USDC on {network} to {address}',
  qrAddressAlt: 'QR code of the deposit address {address}',
  scanHint: 'Scan with your wallet app: it fills in the token, amount and address.',
  openInWallet: 'Open in a wallet app',
  addressOnly: 'Your app cannot read this code? Use the address alone',
  warningTitle: 'Send only USDC on {network}',
  warningBody:
    'Send exactly {amount} on {network}, chain ID {chainId}, to the address above. Any other token, or USDC on another network, cannot be recovered.',
  timeLeft: 'Time left to pay',
  expiresAt: 'This link expires on {time}.',
  waitingTitle: 'Waiting for your payment',
  waitingBody: 'This page updates by itself as soon as your transfer is on chain.',
  partialTitle: 'Partial payment received',
  partialBody: '{received} has arrived. Send the remaining {remaining} to complete the payment.',
  partialConfirming: 'Part of it is still being confirmed.',
  confirmingTitle: 'Payment detected, confirming',
  confirmingBody:
    'Your transfer of {amount} is on chain and being confirmed. This usually takes a few seconds; you can keep this page open.',
  paidTitle: 'Payment complete',
  paidBody: '{merchant} has received your payment of {amount}. Thank you!',
  paidLate: 'It arrived after the link had expired; the merchant has been told.',
  transaction: 'Transaction',
  viewOnExplorer: 'View on the block explorer',
  returnToMerchant: 'Return to {merchant}',
  expiredTitle: 'This payment link has expired',
  expiredBody:
    'No payment arrived before {time}. Do not send anything to this address now: go back to {merchant} for a new link.',
  failedTitle: 'Payment incomplete',
  failedBody: 'Only {received} of the {required} due arrived before the link expired.',
  failedHelp:
    'What arrived goes to {merchant}. Contact them with the payment reference below to complete your order or arrange a refund. Do not send more to this address.',
  reference: 'Payment reference',
  orWallet: 'Or pay from this browser',
  payWithWallet: 'Pay with browser wallet',
  walletWorking: 'Confirm the request in your wallet…',
  chooseWallet: 'Choose the wallet to pay with',
  payWithNamed: 'Pay with {wallet}',
  rateLine: '{price} = {usdc} at {rate} {pair}, until {time}',
  exchangeFee:
    'Paying from an exchange? It deducts its withdrawal fee from what arrives: send the amount shown plus any fee.',
  showQr: 'Show QR code',
  transfers: 'Transfers received',
  transferConfirming: 'confirming',
  overpaid: 'You sent {sent}, {extra} more than the price; the merchant can refund the difference.',
  walletRejected: 'The request was rejected in your wallet. Nothing was sent.',
  walletWrongChain:
    'Your wallet is on another network. Switch it to {network}, chain ID {chainId}, and try again.',
  walletInsufficient: 'Your wallet holds {balance} USDC on {network}, but {amount} USDC is needed.',
  walletSent: 'Transaction sent: {hash}. This page updates when it arrives.',
  walletError: 'The wallet reported an error: {message}',
  gaslessHint: 'No network fee: your wallet only signs the transfer, and we send it for you.',
  payWithGas: 'Pay with a normal transfer instead (you pay the network fee)',
  walletSigning: 'Sign the transfer in your wallet. There is no network fee for you.',
  walletSigned:
    'Signed — your payment is on its way, with no network fee for you. This page updates when it arrives.',
  noScript: 'JavaScript is off: reload this page to see whether your payment has arrived.',
  connectionLost: 'Connection lost. Retrying…',
  nonCustodial:
    'Non-custodial: this address was made for this payment alone and can only pass the funds on to the merchant and its payment provider.',
  language: 'Language',
  notFoundTitle: 'Payment not found',
  notFoundBody: 'There is no payment at this address. Check the link you were given, or go back to the shop.',
  errorTitle: 'Something went wrong',
  errorBody: 'The page could not be shown. Please try again in a moment.',
};

const fr: Messages = {
  documentTitle: 'Payer {merchant}',
  paymentTo: 'Paiement à',
  price: 'Prix',
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
  orWallet: 'Ou payez depuis ce navigateur',
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
};

const de: Messages = {
  documentTitle: '{merchant} bezahlen',
  paymentTo: 'Zahlung an',
  price: 'Preis',
  amountToSend: 'Zu sendender Betrag',
  network: 'Netzwerk',
  networkValue: '{network} · Chain-ID {chainId}',
  tokenContract: 'USDC-Token-Vertrag',
  depositAddress: 'Einzahlungsadresse',
  copy: 'Kopieren',
  copied: 'Kopiert',
  copyAmount: 'Betrag kopieren',
  copyAddress: 'Einzahlungsadresse kopieren',
  qrAlt: 'QR-Code: {amount} USDC auf {network} an {address} überweisen',
  qrAddressAlt: 'QR-Code der Einzahlungsadresse {address}',
  scanHint: 'Mit Ihrer Wallet-App scannen: Token, Betrag und Adresse werden ausgefüllt.',
  openInWallet: 'In einer Wallet-App öffnen',
  addressOnly: 'Ihre App kann diesen Code nicht lesen? Nur die Adresse verwenden',
  warningTitle: 'Senden Sie nur USDC auf {network}',
  warningBody:
    'Senden Sie genau {amount} auf {network}, Chain-ID {chainId}, an die obige Adresse. Andere Token oder USDC auf einem anderen Netzwerk gehen verloren.',
  timeLeft: 'Verbleibende Zeit',
  expiresAt: 'Dieser Link läuft am {time} ab.',
  waitingTitle: 'Warten auf Ihre Zahlung',
  waitingBody: 'Diese Seite aktualisiert sich selbst, sobald Ihre Überweisung auf der Chain ist.',
  partialTitle: 'Teilzahlung erhalten',
  partialBody:
    '{received} sind angekommen. Senden Sie die restlichen {remaining}, um die Zahlung abzuschließen.',
  partialConfirming: 'Ein Teil wird noch bestätigt.',
  confirmingTitle: 'Zahlung erkannt, wird bestätigt',
  confirmingBody:
    'Ihre Überweisung von {amount} ist auf der Chain und wird bestätigt. Das dauert meist nur wenige Sekunden; Sie können diese Seite geöffnet lassen.',
  paidTitle: 'Zahlung abgeschlossen',
  paidBody: '{merchant} hat Ihre Zahlung von {amount} erhalten. Vielen Dank!',
  paidLate: 'Sie kam nach Ablauf des Links an; der Händler wurde benachrichtigt.',
  transaction: 'Transaktion',
  viewOnExplorer: 'Im Block-Explorer ansehen',
  returnToMerchant: 'Zurück zu {merchant}',
  expiredTitle: 'Dieser Zahlungslink ist abgelaufen',
  expiredBody:
    'Bis {time} ist keine Zahlung eingegangen. Senden Sie jetzt nichts mehr an diese Adresse: Holen Sie sich bei {merchant} einen neuen Link.',
  failedTitle: 'Zahlung unvollständig',
  failedBody: 'Nur {received} der fälligen {required} sind vor Ablauf des Links angekommen.',
  failedHelp:
    'Der eingegangene Betrag geht an {merchant}. Kontaktieren Sie den Händler mit der unten stehenden Zahlungsreferenz, um Ihre Bestellung abzuschließen oder eine Erstattung zu vereinbaren. Senden Sie nichts mehr an diese Adresse.',
  reference: 'Zahlungsreferenz',
  orWallet: 'Oder direkt aus diesem Browser bezahlen',
  payWithWallet: 'Mit Browser-Wallet bezahlen',
  walletWorking: 'Bestätigen Sie die Anfrage in Ihrer Wallet…',
  chooseWallet: 'Wählen Sie die Wallet zum Bezahlen',
  payWithNamed: 'Mit {wallet} bezahlen',
  rateLine: '{price} = {usdc} zum Kurs von {rate} {pair}, gültig bis {time}',
  exchangeFee:
    'Sie zahlen von einer Börse? Sie zieht ihre Auszahlungsgebühr vom ankommenden Betrag ab: Senden Sie den angezeigten Betrag plus Gebühr.',
  showQr: 'QR-Code anzeigen',
  transfers: 'Eingegangene Überweisungen',
  transferConfirming: 'wird bestätigt',
  overpaid:
    'Sie haben {sent} gesendet, {extra} mehr als der Preis; der Händler kann Ihnen die Differenz erstatten.',
  walletRejected: 'Die Anfrage wurde in Ihrer Wallet abgelehnt. Es wurde nichts gesendet.',
  walletWrongChain:
    'Ihre Wallet ist mit einem anderen Netzwerk verbunden. Wechseln Sie zu {network}, Chain-ID {chainId}, und versuchen Sie es erneut.',
  walletInsufficient: 'Ihre Wallet enthält {balance} USDC auf {network}, benötigt werden aber {amount} USDC.',
  walletSent: 'Transaktion gesendet: {hash}. Diese Seite aktualisiert sich, sobald sie ankommt.',
  walletError: 'Die Wallet meldete einen Fehler: {message}',
  gaslessHint: 'Keine Netzwerkgebühr: Ihre Wallet signiert nur die Überweisung, wir senden sie für Sie.',
  payWithGas: 'Stattdessen normal überweisen (Sie zahlen die Netzwerkgebühr)',
  walletSigning: 'Signieren Sie die Überweisung in Ihrer Wallet. Für Sie fällt keine Netzwerkgebühr an.',
  walletSigned:
    'Signiert — Ihre Zahlung ist unterwegs, ohne Netzwerkgebühr für Sie. Diese Seite aktualisiert sich, sobald sie ankommt.',
  noScript:
    'JavaScript ist deaktiviert: Laden Sie diese Seite neu, um zu sehen, ob Ihre Zahlung angekommen ist.',
  connectionLost: 'Verbindung unterbrochen. Neuer Versuch…',
  nonCustodial:
    'Ohne Verwahrung: Diese Adresse wurde nur für diese Zahlung erstellt und kann das Geld nur an den Händler und seinen Zahlungsanbieter weiterleiten.',
  language: 'Sprache',
  notFoundTitle: 'Zahlung nicht gefunden',
  notFoundBody:
    'Unter dieser Adresse gibt es keine Zahlung. Prüfen Sie den erhaltenen Link oder kehren Sie zum Shop zurück.',
  errorTitle: 'Etwas ist schiefgelaufen',
  errorBody: 'Die Seite konnte nicht angezeigt werden. Bitte versuchen Sie es gleich noch einmal.',
};

const es: Messages = {
  documentTitle: 'Pagar a {merchant}',
  paymentTo: 'Pago a',
  price: 'Precio',
  amountToSend: 'Importe a enviar',
  network: 'Red',
  networkValue: '{network} · ID de cadena {chainId}',
  tokenContract: 'Contrato del token USDC',
  depositAddress: 'Dirección de depósito',
  copy: 'Copiar',
  copied: 'Copiado',
  copyAmount: 'Copiar el importe',
  copyAddress: 'Copiar la dirección de depósito',
  qrAlt: 'Código QR: transferir {amount} USDC en {network} a {address}',
  qrAddressAlt: 'Código QR de la dirección de depósito {address}',
  scanHint: 'Escanéelo con su billetera: rellena el token, el importe y la dirección.',
  openInWallet: 'Abrir en una billetera',
  addressOnly: '¿Su aplicación no lee este código? Use solo la dirección',
  warningTitle: 'Envíe solo USDC en {network}',
  warningBody:
    'Envíe exactamente {amount} en {network}, ID de cadena {chainId}, a la dirección de arriba. Cualquier otro token, o USDC en otra red, no se podrá recuperar.',
  timeLeft: 'Tiempo restante para pagar',
  expiresAt: 'Este enlace caduca el {time}.',
  waitingTitle: 'Esperando su pago',
  waitingBody: 'Esta página se actualiza sola en cuanto su transferencia esté en la cadena.',
  partialTitle: 'Pago parcial recibido',
  partialBody: 'Han llegado {received}. Envíe los {remaining} restantes para completar el pago.',
  partialConfirming: 'Una parte aún se está confirmando.',
  confirmingTitle: 'Pago detectado, confirmando',
  confirmingBody:
    'Su transferencia de {amount} está en la cadena y se está confirmando. Suele tardar unos segundos; puede mantener esta página abierta.',
  paidTitle: 'Pago completado',
  paidBody: '{merchant} ha recibido su pago de {amount}. ¡Gracias!',
  paidLate: 'Llegó después de que caducara el enlace; se ha avisado al comercio.',
  transaction: 'Transacción',
  viewOnExplorer: 'Ver en el explorador de bloques',
  returnToMerchant: 'Volver a {merchant}',
  expiredTitle: 'Este enlace de pago ha caducado',
  expiredBody:
    'No llegó ningún pago antes del {time}. No envíe nada a esta dirección ahora: vuelva a {merchant} para obtener un nuevo enlace.',
  failedTitle: 'Pago incompleto',
  failedBody: 'Solo llegaron {received} de los {required} debidos antes de que caducara el enlace.',
  failedHelp:
    'Lo recibido va a {merchant}. Contacte con el comercio indicando la referencia de pago de abajo para completar su pedido o acordar un reembolso. No envíe nada más a esta dirección.',
  reference: 'Referencia del pago',
  orWallet: 'O pague desde este navegador',
  payWithWallet: 'Pagar con la billetera del navegador',
  walletWorking: 'Confirme la solicitud en su billetera…',
  chooseWallet: 'Elija la billetera con la que pagar',
  payWithNamed: 'Pagar con {wallet}',
  rateLine: '{price} = {usdc} a {rate} {pair}, hasta las {time}',
  exchangeFee:
    '¿Paga desde una plataforma de intercambio? Descuenta su comisión de retiro de lo que llega: envíe el importe indicado más la comisión.',
  showQr: 'Mostrar código QR',
  transfers: 'Transferencias recibidas',
  transferConfirming: 'confirmando',
  overpaid: 'Ha enviado {sent}, {extra} más que el precio; el comercio puede reembolsarle la diferencia.',
  walletRejected: 'La solicitud fue rechazada en su billetera. No se envió nada.',
  walletWrongChain:
    'Su billetera está en otra red. Cámbiela a {network}, ID de cadena {chainId}, y vuelva a intentarlo.',
  walletInsufficient: 'Su billetera tiene {balance} USDC en {network}, pero se necesitan {amount} USDC.',
  walletSent: 'Transacción enviada: {hash}. Esta página se actualizará cuando llegue.',
  walletError: 'La billetera informó de un error: {message}',
  gaslessHint:
    'Sin comisión de red: su billetera solo firma la transferencia y nosotros la enviamos por usted.',
  payWithGas: 'Pagar con una transferencia normal (usted paga la comisión de red)',
  walletSigning: 'Firme la transferencia en su billetera. No paga ninguna comisión de red.',
  walletSigned:
    'Firmado: su pago está en camino, sin comisión de red para usted. Esta página se actualizará cuando llegue.',
  noScript: 'JavaScript está desactivado: recargue esta página para ver si su pago ha llegado.',
  connectionLost: 'Conexión perdida. Reintentando…',
  nonCustodial:
    'Sin custodia: esta dirección se creó solo para este pago y únicamente puede transferir los fondos al comercio y a su proveedor de pagos.',
  language: 'Idioma',
  notFoundTitle: 'Pago no encontrado',
  notFoundBody: 'No hay ningún pago en esta dirección. Compruebe el enlace recibido o vuelva a la tienda.',
  errorTitle: 'Algo ha fallado',
  errorBody: 'No se pudo mostrar la página. Inténtelo de nuevo en un momento.',
};

export const MESSAGES: Readonly<Record<Language, Messages>> = { en, fr, de, es };

/** Each language's name in itself, for the language switcher. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
};
