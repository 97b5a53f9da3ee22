import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the refund claim page says in German. */
export const de: MessageTable<typeof en> = {
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
