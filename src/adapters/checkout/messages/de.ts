import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the checkout page says in German. */
export const de: MessageTable<typeof en> = {
  documentTitle: '{merchant} bezahlen',
  paymentTo: 'Zahlung an',
  price: 'Preis',
  orderSummary: 'Ihre Bestellung',
  lineQuantity: '{quantity} × {price}',
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
  networkChoice: 'Netzwerk für die Zahlung',
  networkChoiceHint:
    'Die Einzahlungsadresse ist auf jedem dieser Netzwerke dieselbe. Wählen Sie das Netzwerk, auf dem Ihre USDC liegen.',
  warningTitleMany: 'Senden Sie USDC nur auf {networks}',
  warningBodyMany:
    'Senden Sie genau {amount} auf einem dieser Netzwerke an die obige Adresse. Andere Token oder USDC auf jedem anderen Netzwerk gehen verloren.',
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
  orWallet: 'Oder mit einer anderen Wallet oder einem anderen Gerät bezahlen',
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
  linkDocumentTitle: '{title} · {merchant}',
  linkQuantity: 'Menge (1 bis {max})',
  linkChooseAmount: 'Betrag wählen',
  linkOtherAmount: 'Oder einen Betrag in {currency} eingeben',
  linkAmountRange: 'Von {min} bis {max} {currency}.',
  linkContinue: 'Weiter zur Zahlung',
  linkEmail: 'E-Mail für Ihre Quittung (optional)',
  linkEmailUse: 'Wir senden die Quittung hierhin, sobald Ihre Zahlung eingegangen ist, und sonst nichts.',
  linkEmailError: 'Geben Sie eine E-Mail-Adresse ein oder lassen Sie das Feld leer.',
  linkAmountError: 'Geben Sie einen Betrag von {min} bis {max} {currency} ein.',
  linkDecimalsError:
    'Zu viele Nachkommastellen: Geben Sie den Betrag mit höchstens {places} Nachkommastellen ein.',
  linkQuantityError: 'Wählen Sie eine Menge von 1 bis {max}.',
  linkFormError: 'Das Formular konnte nicht gelesen werden. Bitte wählen Sie erneut.',
  linkForeignForm:
    'Dieses Formular muss von seiner eigenen Seite gesendet werden. Öffnen Sie den Zahlungslink erneut und wählen Sie dort.',
  linkRateLimited:
    'Zu viele Versuche von Ihrer Verbindung. Bitte warten Sie eine Minute und versuchen Sie es erneut.',
  linkNextStep: 'Die nächste Seite zeigt den Betrag in USDC und wohin er zu senden ist.',
  linkNotFoundTitle: 'Zahlungslink nicht gefunden',
  linkNotFoundBody:
    'Unter dieser Adresse gibt es keinen Zahlungslink. Prüfen Sie den Link, den Sie erhalten haben.',
  linkDeactivatedTitle: 'Dieser Zahlungslink ist geschlossen',
  linkDeactivatedBody:
    '{merchant} nimmt über ihn keine Zahlungen mehr an. Wenden Sie sich an den Händler, wenn Sie noch zahlen möchten.',
  linkEndedTitle: 'Dieser Zahlungslink ist abgelaufen',
  linkEndedBody:
    'Er nimmt seit {time} keine Zahlungen mehr an. Wenden Sie sich an {merchant}, wenn Sie noch zahlen möchten.',
  linkSoldOutTitle: 'Dieser Zahlungslink ist ausverkauft',
  linkSoldOutBody:
    'Alle Zahlungen, die er annehmen konnte, sind bezahlt; er nimmt keine weiteren an. Wenden Sie sich an {merchant}, wenn Sie trotzdem bezahlen möchten.',
  linkUsedUpTitle: 'Dieser Zahlungslink ist ausgeschöpft',
  linkUsedUpBody:
    'Er hat vorerst alle Zahlungen angenommen, die er kann. Ein Platz wird frei, wenn eine unvollendete Zahlung abläuft: Versuchen Sie es später erneut.',
  linkUnavailableTitle: 'Zahlung gerade nicht möglich',
  linkUnavailableBody:
    'Über diesen Link ist im Moment keine Zahlung möglich. Versuchen Sie es später erneut oder wenden Sie sich an {merchant}.',
  redirectCountdown: 'Sie werden in {seconds} s zu {merchant} zurückgeleitet.',
  redirectStay: 'Auf dieser Seite bleiben',
  backToMerchant: 'Zurück zu {merchant}',
  leavingCancelsNothing:
    'Das Verlassen dieser Seite bricht nichts ab: Eine bereits gesendete Überweisung zählt weiterhin.',
};
