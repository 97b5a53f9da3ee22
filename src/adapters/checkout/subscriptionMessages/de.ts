import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the subscribe page and the customer portal say in German. */
export const de: MessageTable<typeof en> = {
  subscribeTitle: '{plan} abonnieren · {merchant}',
  portalTitle: 'Ihr Abonnement · {merchant}',
  eyebrow: 'Abonnement bei {merchant}',
  every: {
    day: '{count, plural, one {pro Tag} other {alle # Tage}}',
    week: '{count, plural, one {pro Woche} other {alle # Wochen}}',
    month: '{count, plural, one {pro Monat} other {alle # Monate}}',
    year: '{count, plural, one {pro Jahr} other {alle # Jahre}}',
  },
  termsTitle: 'So funktioniert es',
  trial:
    '{days, plural, one {# Tag kostenlos testen: die erste Zahlung ist am {date} fällig.} other {# Tage kostenlos testen: die erste Zahlung ist am {date} fällig.}}',
  noTrial: 'Die erste Zahlung ist sofort fällig: ihr Link kommt per E-Mail, sobald Sie abonnieren.',
  pushTerms:
    'Vor jeder Periode erhalten Sie eine E-Mail mit dem Zahlungslink dieser Periode und zahlen sie selbst, aus jeder Wallet oder Börse, in USDC. Von Ihrer Wallet wird nie etwas abgebucht ohne Bedingungen, die Sie darin unterschrieben haben.',
  grace:
    '{days, plural, one {Eine Periode, die nicht binnen # Tag nach Fälligkeit bezahlt ist, beendet das Abonnement.} other {Eine Periode, die nicht binnen # Tagen nach Fälligkeit bezahlt ist, beendet das Abonnement.}}',
  noGrace: 'Eine Periode, die bei Fälligkeit nicht bezahlt ist, beendet das Abonnement.',
  periods: '{count, plural, one {Es läuft # Periode.} other {Es läuft # Perioden.}}',
  untilCanceled: 'Es läuft, bis Sie es kündigen.',
  fiatRate:
    'Der Preis ist in {currency} festgelegt: der USDC-Betrag jeder Periode wird zum Tageskurs bestimmt, wenn ihre Zahlung erstellt wird.',
  cancelAnyTime:
    'Sie können jederzeit über den Link in jeder E-Mail kündigen; eine bereits bezahlte Periode läuft bis zu ihrem Ende.',
  emailTitle: 'Per E-Mail abonnieren',
  email: 'Ihre E-Mail-Adresse',
  emailUse:
    'Zahlungslinks und Erinnerungen gehen an diese Adresse, mit dem Link zur Verwaltung Ihres Abonnements.',
  subscribe: 'Abonnieren',
  emailError: 'Geben Sie eine gültige E-Mail-Adresse ein.',
  formError: 'Das Formular konnte nicht gelesen werden. Bitte versuchen Sie es erneut.',
  foreignForm:
    'Dieses Formular muss von seiner eigenen Seite gesendet werden. Öffnen Sie den Abonnement-Link erneut.',
  rateLimited:
    'Zu viele Versuche von Ihrer Verbindung. Bitte warten Sie eine Minute und versuchen Sie es erneut.',
  unavailable:
    'Dieses Abonnement kann gerade nicht beginnen. Bitte versuchen Sie es später erneut oder wenden Sie sich an {merchant}.',
  planNotFoundTitle: 'Abonnement-Tarif nicht gefunden',
  planNotFoundBody: 'Unter dieser Adresse gibt es keinen Abonnement-Tarif. Prüfen Sie den erhaltenen Link.',
  archivedTitle: 'Dieser Tarif ist geschlossen',
  archivedBody: '{merchant} nimmt für diesen Tarif keine neuen Abonnements mehr an.',
  portalNotFoundTitle: 'Abonnement nicht gefunden',
  portalNotFoundBody:
    'Unter dieser Adresse gibt es kein Abonnement. Öffnen Sie den Link in Ihrer letzten E-Mail erneut.',
  status: {
    trialing: 'Kostenloser Test bis {date}',
    active: 'Aktiv: bezahlt bis {date}',
    past_due: 'Zahlung fällig: zahlen Sie vor dem {date}',
    canceled: 'Gekündigt am {date}',
    ended: 'Beendet am {date}',
  },
  endsOn: 'Gekündigt: es endet am {date}, danach wird nichts mehr berechnet.',
  canceledNotice: 'Ihr Abonnement ist gekündigt.',
  subscribedNotice: 'Sie haben abonniert. Wir haben die Links an {email} gesendet.',
  price: 'Preis',
  customer: 'E-Mail',
  nextPayment: 'Nächste Zahlung',
  nextPaymentValue: '{amount} am {date}',
  planChange: 'Ab {date}',
  payments: 'Zahlungen',
  noPayments: 'Noch keine Zahlung: die erste kommt vor ihrer Fälligkeit per E-Mail.',
  period: 'Periode',
  dates: 'Zeitraum',
  paymentStatus: 'Status',
  paymentStatuses: {
    pending: 'Offen',
    processing: 'Kommt an',
    paid: 'Bezahlt',
    expired: 'Nicht bezahlt',
    failed: 'Nicht bezahlt',
  },
  pay: 'Zahlen',
  receipt: 'Beleg',
  view: 'Ansehen',
  cancelTitle: 'Kündigen',
  cancelExplain:
    'Das Abonnement endet mit der laufenden Periode ({date}); danach wird nichts mehr berechnet.',
  cancelForeign: 'Diese Kündigung muss von dieser Seite gesendet werden: nutzen Sie die Schaltfläche unten.',
  cancel: 'Mein Abonnement kündigen',
  nonCustodial: 'Paylink verwahrt nie Ihr Geld: jede Zahlung geht direkt an {merchant}.',
  wallet: {
    title: 'Jede Periode aus Ihrer Wallet zahlen',
    explain:
      'Einmal in Ihrer Browser-Wallet unterschreiben: In jeder Periode werden {cap} aus Ihrer Wallet an {merchant} abgebucht, nie mehr und nie zweimal in einer Periode. Ihre E-Mail-Adresse wird trotzdem erfragt: Der Link zum Kundenbereich und jede Zahlung, die Sie selbst leisten, gehen dorthin.',
    allowance:
      'Ihre Wallet unterschreibt auch eine USDC-Freigabe über {total} für den Abbuchungsvertrag von Paylink (der Preis einer Periode mal die Zahl der Perioden). Sie zahlen keine Netzwerkgebühr.',
    explainFiat:
      'Einmal in Ihrer Browser-Wallet unterschreiben: In jeder Periode wird der Preis in {currency} zum Tageskurs in USDC aus Ihrer Wallet an {merchant} abgebucht, höchstens {cap} pro Periode und nie zweimal in einer Periode; braucht der Preis in {currency} mehr, schicken wir Ihnen stattdessen einen Link per E-Mail. Ihre E-Mail-Adresse wird trotzdem erfragt: Der Link zum Kundenbereich und jede Zahlung, die Sie selbst leisten, gehen dorthin.',
    allowanceFiat:
      'Ihre Wallet unterschreibt auch eine USDC-Freigabe über {total} für den Abbuchungsvertrag von Paylink (der Höchstbetrag einer Periode mal die Zahl der Perioden). Sie zahlen keine Netzwerkgebühr.',
    allowanceOpenEnded:
      'Ihre Wallet unterschreibt auch eine USDC-Freigabe über {total} für den Abbuchungsvertrag von Paylink: höchstens {periods} Perioden, da das Abo bis zu Ihrer Kündigung läuft. Wenn weniger als eine Periode übrig ist, kann Ihre Wallet auf der Seite Ihres Abos {periods} weitere freigeben. Für diese erste Freigabe zahlen Sie keine Netzwerkgebühr.',
    subscribe: 'Mit meiner Wallet abonnieren',
    noWallet:
      'In diesem Browser wurde keine Wallet gefunden: Abonnieren Sie unten per E-Mail, oder öffnen Sie diese Seite dort, wo Ihre Wallet ist.',
    working: 'Bestätigen Sie in Ihrer Wallet …',
    rejected: 'Sie haben in Ihrer Wallet abgelehnt: Nichts wurde unterschrieben.',
    wrongChain: 'Wechseln Sie Ihre Wallet zu {chain} und versuchen Sie es erneut.',
    failed: 'Das hat nicht geklappt:',
    portalTitle: 'Aus Ihrer Wallet bezahlt',
    cap: 'Höchstens pro Periode',
    period: 'Abgebucht',
    end: 'Endet',
    endNever: 'Wenn Sie kündigen',
    wallet: 'Wallet',
    stopped: 'Ihre Wallet wird nicht mehr belastet: Der Link jeder Periode kommt per E-Mail.',
    switchExplain:
      'Keine Abbuchungen mehr aus Ihrer Wallet: Der Zahlungslink jeder Periode kommt stattdessen per E-Mail.',
    switch: 'Zu Zahlungen per E-Mail wechseln',
    switched: 'Erledigt: Ihre Wallet wird nicht mehr belastet. Der Link jeder Periode kommt per E-Mail.',
    revokeExplain:
      'Um auf der Chain sicherzugehen, kann Ihre Wallet diese Bedingungen im Vertrag selbst kündigen (eine Transaktion, mit Gebühr). Die USDC-Freigabe des Vertrags auf 0 zu setzen (approve) stoppt ebenfalls jede Abbuchung.',
    revoke: 'Auf der Chain widerrufen',
    canceledOnChain: 'Am {date} von Ihrer Wallet auf der Chain gekündigt, Transaktion',
    revoked: 'Auf der Chain widerrufen: Diese Bedingungen können nie wieder belastet werden.',
    allowanceLeft: 'Verbleibende Freigabe',
    topUpExplain:
      'Von der Freigabe Ihrer Wallet für den Abbuchungsvertrag ist weniger als die {cap} der nächsten Periode übrig: Die nächste Abbuchung würde scheitern und ihr Link käme per E-Mail. Ihre Wallet kann die nächsten {periods} Perioden freigeben, bis zu {total} (approve von USDC: eine Transaktion, mit Netzwerkgebühr).',
    topUp: '{periods} weitere Perioden freigeben',
    toppedUp:
      'Erledigt: Der Vertrag darf jetzt bis zu {total} von Ihrer Wallet abbuchen, eine Periode nach der anderen.',
  },
};
