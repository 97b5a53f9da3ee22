import type { PaymentStatus } from '../../domain/paymentStatus.ts';
import type { PayoutStatus } from '../../domain/payout.ts';
import type { RefundStatus } from '../../domain/refund.ts';
import type { DeliveryStatus } from '../../domain/webhookDelivery.ts';
import type { Language } from '../web/language.ts';

/**
 * Everything the dashboard says, in the checkout's four languages and with its conventions (`{name}`
 * placeholders filled by `format`, which escapes; a no-break space before French : ? ! ;). What the service's
 * use cases refuse with (a bad wallet, too large a refund) is the API's own error message, in English, the same
 * words a developer reads from the API.
 */
export interface DashboardText {
  readonly nav: {
    readonly main: string;
    readonly payments: string;
    readonly developers: string;
    readonly security: string;
    readonly merchants: string;
    readonly payouts: string;
    readonly webhooks: string;
    readonly health: string;
    readonly signOut: string;
  };
  readonly signIn: {
    readonly title: string;
    readonly email: string;
    readonly password: string;
    readonly code: string;
    readonly codeHint: string;
    readonly button: string;
    readonly passwordSet: string;
    readonly wrong: string;
    /** `{minutes}`: until the next attempt is taken, rounded up. */
    readonly tooMany: string;
  };
  readonly setPassword: {
    readonly title: string;
    readonly rules: string;
    readonly newPassword: string;
    readonly button: string;
  };
  readonly refusal: {
    readonly notFound: string;
    readonly cannot: string;
    readonly back: string;
    readonly forged: string;
    readonly otherOrigin: string;
  };
  readonly secondFactor: {
    readonly title: string;
    readonly required: string;
    readonly scan: string;
    readonly qrAlt: string;
    readonly orType: string;
    readonly code: string;
    readonly turnOn: string;
    readonly on: string;
  };
  readonly status: Readonly<Record<PaymentStatus, string>>;
  /** A paid payment's status in the list once refunds reached the customer: part of what arrived, or all of it. */
  readonly refunded: { readonly partly: string; readonly fully: string };
  readonly refundStatus: Readonly<Record<RefundStatus, string>>;
  /** A payment's payout status (the API's payout_status), shown until a payout transaction exists. */
  readonly payoutStatus: Readonly<Record<PayoutStatus, string>>;
  /** A webhook event's delivery status. */
  readonly deliveryStatus: Readonly<Record<DeliveryStatus, string>>;
  readonly list: {
    readonly title: string;
    readonly testMode: string;
    readonly find: string;
    readonly search: string;
    readonly status: string;
    readonly any: string;
    readonly from: string;
    readonly before: string;
    readonly orderId: string;
    readonly mode: string;
    readonly live: string;
    readonly test: string;
    readonly show: string;
    readonly clear: string;
    readonly exportFrom: string;
    readonly exportTo: string;
    readonly exportPayments: string;
    readonly exportRefunds: string;
    readonly noMatchFor: string;
    readonly noMatch: string;
    readonly newestFirst: string;
    readonly created: string;
    readonly payment: string;
    readonly price: string;
    readonly usdcDue: string;
    readonly usdcReceived: string;
    readonly order: string;
    readonly older: string;
  };
  readonly payment: {
    readonly title: string;
    readonly depositAddress: string;
    readonly paid: string;
    readonly payout: string;
    readonly payoutValue: string;
    readonly timeline: string;
    readonly createdDue: string;
    readonly transferSeen: string;
    readonly final: string;
    readonly confirming: string;
    readonly orphaned: string;
    readonly paidEvent: string;
    readonly paidLate: string;
    readonly payoutSent: string;
    readonly payoutDelayed: string;
    readonly expired: string;
    readonly underpaid: string;
    readonly transfers: string;
    readonly transaction: string;
    readonly usdc: string;
    readonly finality: string;
    readonly noTransfer: string;
    readonly webhooks: string;
    readonly noAttempt: string;
    readonly noWebhook: string;
    readonly noAnswer: string;
    readonly inFlight: string;
    readonly sendAgain: string;
  };
  readonly refunds: {
    readonly title: string;
    readonly none: string;
    readonly claimLink: string;
    readonly to: string;
    readonly fundIt: string;
    readonly openInWallet: string;
    readonly fundFromWallet: string;
    readonly fundSent: string;
    readonly fundRejected: string;
    readonly fundWrongChain: string;
    readonly fundError: string;
    readonly fundingQrAlt: string;
    readonly sent: string;
    readonly delayed: string;
    readonly cancel: string;
    readonly formTitle: string;
    readonly amount: string;
    readonly received: string;
    readonly receivedOverpaid: string;
    readonly reason: string;
    readonly reasonHint: string;
    readonly address: string;
    readonly addressHint: string;
    readonly start: string;
    readonly refundOverpaid: string;
  };
  readonly developers: {
    readonly title: string;
    readonly apiKeys: string;
    readonly keysHint: string;
    readonly key: string;
    readonly mode: string;
    readonly created: string;
    readonly valid: string;
    readonly current: string;
    readonly until: string;
    readonly roll: string;
    readonly webhooks: string;
    readonly endpoint: string;
    readonly noneSet: string;
    readonly wallet: string;
    readonly commission: string;
    readonly tolerance: string;
    readonly setByAdministrator: string;
    readonly rotateSecret: string;
    readonly sendTest: string;
    readonly testSent: string;
    readonly answered: string;
    readonly noAnswer: string;
    readonly received: string;
    readonly response: string;
    readonly sentBody: string;
    readonly lastDeliveries: string;
    readonly noDelivery: string;
    readonly event: string;
    readonly delivery: string;
    readonly lastAnswer: string;
    readonly action: string;
  };
  readonly shownOnce: {
    readonly copyIt: string;
    readonly copyThem: string;
    readonly copy: string;
    readonly copied: string;
    readonly done: string;
    readonly newKey: string;
    readonly newSecret: string;
    readonly apiKey: string;
    readonly signingSecret: string;
    readonly keysKeepWorking: string;
    readonly keysStopped: string;
    readonly switchSecret: string;
  };
  readonly operator: {
    readonly merchants: string;
    readonly newMerchant: string;
    readonly name: string;
    readonly id: string;
    readonly status: string;
    readonly commission: string;
    readonly wallet: string;
    readonly payments: string;
    readonly walletLabel: string;
    readonly webhookUrl: string;
    readonly commissionPercent: string;
    readonly tolerancePercent: string;
    readonly create: string;
    readonly save: string;
    readonly settings: string;
    readonly createdAt: string;
    readonly apiKeys: string;
    readonly rollLive: string;
    readonly rollTest: string;
    readonly oldKeysKeep: string;
    readonly graceNone: string;
    readonly grace1h: string;
    readonly grace24h: string;
    readonly grace7d: string;
    readonly secretAndStatus: string;
    readonly rotateSecret: string;
    readonly disable: string;
    readonly enable: string;
    readonly disableHint: string;
    readonly active: string;
    readonly disabled: string;
    readonly created: string;
    readonly giveBoth: string;
    readonly liveKey: string;
    readonly newKeyFor: string;
    readonly newSecretFor: string;
  };
  readonly payouts: {
    readonly delayedTitle: string;
    readonly owedTitle: string;
    readonly onlyDelayed: string;
    readonly everyOwed: string;
    readonly nothingOwed: string;
    readonly noneFailing: string;
    readonly payment: string;
    readonly merchant: string;
    readonly owed: string;
    readonly tries: string;
    readonly nextAttempt: string;
    readonly why: string;
    readonly nextPass: string;
    readonly merchantShare: string;
    readonly commission: string;
    readonly waiting: string;
    readonly retry: string;
    readonly action: string;
  };
  readonly failing: {
    readonly title: string;
    readonly hint: string;
    readonly allFine: string;
    readonly merchant: string;
    readonly endpoint: string;
    readonly givenUp: string;
    readonly retrying: string;
    readonly lastAttempt: string;
    readonly lastAnswer: string;
  };
  readonly health: {
    readonly title: string;
    readonly asOf: string;
    readonly database: string;
    readonly up: string;
    readonly down: string;
    readonly paymentsByStatus: string;
    readonly webhooksByDelivery: string;
    readonly oldestOwed: string;
    readonly payoutsPending: string;
    readonly payoutsDelayed: string;
    readonly oldestDelayed: string;
    readonly relayerGas: string;
    readonly relayerValue: string;
    readonly low: string;
    readonly chain: string;
    readonly rpc: string;
    readonly watcherBehind: string;
    /** By the plural category of the number of blocks (Intl.PluralRules of the page's language). */
    readonly watcherLag: Readonly<Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }>;
    readonly cursorWritten: string;
    readonly finalizedAge: string;
    readonly unknown: string;
    readonly none: string;
  };
}

const en: DashboardText = {
  nav: {
    main: 'Main',
    payments: 'Payments',
    developers: 'Developers',
    security: 'Security',
    merchants: 'Merchants',
    payouts: 'Payouts',
    webhooks: 'Webhooks',
    health: 'Health',
    signOut: 'Sign out',
  },
  signIn: {
    title: 'Sign in',
    email: 'E-mail',
    password: 'Password',
    code: 'Authentication code',
    codeHint: '(if you set one up)',
    button: 'Sign in',
    passwordSet: 'Your password is set. Sign in with it.',
    wrong: 'Wrong e-mail, password or code',
    tooMany: 'Too many sign-in attempts: try again in {minutes} min.',
  },
  setPassword: {
    title: 'Set your password',
    rules: 'At least 12 characters. A sentence you will remember is a good password.',
    newPassword: 'New password',
    button: 'Set password',
  },
  refusal: {
    notFound: 'Not found',
    cannot: 'Cannot do that',
    back: 'Back to the dashboard',
    forged: 'Refused: reload the page and try again.',
    otherOrigin: 'Refused: this form did not come from the dashboard.',
  },
  secondFactor: {
    title: 'Second factor',
    required: 'Operators must set up a second factor before going on.',
    scan: 'Scan this with an authenticator app, then type the code it shows.',
    qrAlt: 'QR code of your authenticator secret',
    orType: 'Or type this secret into the app:',
    code: 'Code from the app',
    turnOn: 'Turn on',
    on: 'On: signing in asks for a code from your authenticator app.',
  },
  status: {
    pending: 'pending',
    processing: 'processing',
    paid: 'paid',
    failed: 'failed',
    expired: 'expired',
  },
  refunded: { partly: 'partly refunded', fully: 'refunded' },
  refundStatus: {
    awaiting_address: 'awaiting address',
    awaiting_funds: 'awaiting funds',
    processing: 'processing',
    refunded: 'refunded',
    canceled: 'canceled',
    expired: 'expired',
  },
  payoutStatus: {
    not_due: 'not due: the payment is not paid',
    pending: 'on its way',
    sent: 'sent',
    delayed: 'delayed',
  },
  deliveryStatus: {
    pending: 'pending',
    delivering: 'delivering',
    delivered: 'delivered',
    failed: 'failed',
    stopped: 'stopped',
  },
  list: {
    title: 'Payments',
    testMode: 'Test mode',
    find: 'Find payments',
    search: 'Payment id, deposit address or transaction',
    status: 'Status',
    any: 'Any',
    from: 'Created from',
    before: 'Created before',
    orderId: 'Order id',
    mode: 'Mode',
    live: 'Live',
    test: 'Test',
    show: 'Show',
    clear: 'Clear',
    exportFrom: 'Export from',
    exportTo: 'to (not included)',
    exportPayments: 'Export payments',
    exportRefunds: 'Export refunds',
    noMatchFor: 'No payment matches {term}.',
    noMatch: 'No payments match.',
    newestFirst: 'Newest first',
    created: 'Created',
    payment: 'Payment',
    price: 'Price',
    usdcDue: 'USDC due',
    usdcReceived: 'USDC received',
    order: 'Order',
    older: 'Older payments',
  },
  payment: {
    title: 'Payment',
    depositAddress: 'Deposit address',
    paid: 'Paid',
    payout: 'Payout',
    payoutValue: '{merchant} to the merchant, {commission} commission',
    timeline: 'Timeline',
    createdDue: 'Created: {due} due',
    transferSeen: 'Transfer of {amount} seen, {finality}:',
    final: 'final',
    confirming: 'confirming',
    orphaned: 'orphaned by a reorg',
    paidEvent: 'Paid',
    paidLate: 'Paid (after the link expired)',
    payoutSent: 'Payout sent: the merchant received {merchant}, the commission was {commission}:',
    payoutDelayed: 'Payout delayed: {reason} (tried {tries} times)',
    expired: 'Expired',
    underpaid: 'Failed: underpaid at expiry',
    transfers: 'Transfers',
    transaction: 'Transaction',
    usdc: 'USDC',
    finality: 'Finality',
    noTransfer: 'None seen yet.',
    webhooks: 'Webhooks',
    noAttempt: 'No attempt yet.',
    noWebhook: 'None sent yet.',
    noAnswer: 'no answer',
    inFlight: 'in flight',
    sendAgain: 'Send again',
  },
  refunds: {
    title: 'Refunds',
    none: 'None.',
    claimLink: 'Link for the customer to give an address',
    to: 'To',
    fundIt: 'Fund it: send {amount} USDC to {address} (chain {chain}), from any wallet, or',
    openInWallet: 'open it in a wallet app',
    fundFromWallet: 'Fund from my browser wallet',
    fundSent: 'Sent from your wallet; the refund goes out once it is final. Transaction:',
    fundRejected: 'You declined in your wallet: nothing was sent.',
    fundWrongChain: 'Your wallet is on another network: switch it to chain {chain} and try again.',
    fundError: 'Your wallet could not send it:',
    fundingQrAlt: "QR code to send {amount} USDC to the refund's deposit address",
    sent: 'Sent:',
    delayed: 'Delayed: {reason}',
    cancel: 'Cancel this refund',
    formTitle: 'Refund this payment',
    amount: 'Amount (USDC)',
    received: 'Received {received}. A smaller amount is a partial refund.',
    receivedOverpaid:
      'Received {received}, of which {overpaid} beyond the price. A smaller amount is a partial refund.',
    reason: 'Reason',
    reasonHint: '(optional, shown to the customer)',
    address: "Customer's address",
    addressHint: '(optional: without one, you get a link to send them)',
    start: 'Start refund',
    refundOverpaid: 'Refund the {overpaid} beyond the price',
  },
  developers: {
    title: 'Developers',
    apiKeys: 'API keys',
    keysHint:
      'Only the start of each key is kept. Rolling a key shows the new one once; the old one keeps working for 24 hours.',
    key: 'Key',
    mode: 'Mode',
    created: 'Created',
    valid: 'Valid',
    current: 'current',
    until: 'until',
    roll: 'Roll {mode} key',
    webhooks: 'Webhooks',
    endpoint: 'Endpoint',
    noneSet: 'none set',
    wallet: 'Payout wallet',
    commission: 'Commission',
    tolerance: 'Underpayment tolerance',
    setByAdministrator: 'Your administrator sets these.',
    rotateSecret: 'Rotate signing secret',
    sendTest: 'Send test webhook',
    testSent: 'Test webhook sent',
    answered: 'Your server answered HTTP {status} in {ms} ms',
    noAnswer: 'No answer: {error}',
    received: 'received.',
    response: 'Response:',
    sentBody: 'Sent {body} to {url}',
    lastDeliveries: 'Last deliveries',
    noDelivery: 'No webhook yet.',
    event: 'Event',
    delivery: 'Delivery',
    lastAnswer: 'Last answer',
    action: 'Action',
  },
  shownOnce: {
    copyIt: 'Copy it now: it is not shown again.',
    copyThem: 'Copy them now: they are not shown again.',
    copy: 'Copy',
    copied: 'Copied',
    done: 'Done',
    newKey: 'New {mode} API key',
    newSecret: 'New webhook signing secret',
    apiKey: 'API key',
    signingSecret: 'Signing secret',
    keysKeepWorking: 'Your previous {mode} keys keep working until',
    keysStopped: 'The previous {mode} keys stopped working now.',
    switchSecret:
      'Switch your verification to this secret: webhooks carry a signature with the previous one as well until',
  },
  operator: {
    merchants: 'Merchants',
    newMerchant: 'New merchant',
    name: 'Name',
    id: 'Id',
    status: 'Status',
    commission: 'Commission',
    wallet: 'Wallet',
    payments: 'Payments',
    walletLabel: 'Payout wallet (Polygon address)',
    webhookUrl: 'Webhook URL',
    commissionPercent: 'Commission (%)',
    tolerancePercent: 'Underpayment tolerance (%)',
    create: 'Create merchant',
    save: 'Save',
    settings: 'Settings',
    createdAt: 'created',
    apiKeys: 'API keys',
    rollLive: 'Roll live key',
    rollTest: 'Roll test key',
    oldKeysKeep: 'Old {mode} keys keep working',
    graceNone: 'not at all',
    grace1h: '1 hour',
    grace24h: '24 hours',
    grace7d: '7 days',
    secretAndStatus: 'Webhook secret and status',
    rotateSecret: 'Rotate webhook secret',
    disable: 'Disable merchant',
    enable: 'Enable merchant',
    disableHint: 'Disabling stops its API keys and signs its users out at once; its payments still settle.',
    active: 'active',
    disabled: 'disabled',
    created: 'Merchant {name} created',
    giveBoth: 'Give both to the merchant over a safe channel.',
    liveKey: 'Live API key',
    newKeyFor: 'New {mode} API key for {name}',
    newSecretFor: 'New webhook signing secret for {name}',
  },
  payouts: {
    delayedTitle: 'Delayed payouts',
    owedTitle: 'Payouts owed',
    onlyDelayed: 'Only the delayed ones',
    everyOwed: 'Every payout still owed',
    nothingOwed: 'Nothing is owed.',
    noneFailing: 'No payout is failing.',
    payment: 'Payment',
    merchant: 'Merchant',
    owed: 'USDC owed',
    tries: 'Tries',
    nextAttempt: 'Next attempt',
    why: 'Why',
    nextPass: 'next pass',
    merchantShare: 'merchant share: {reason}',
    commission: 'commission: {reason}',
    waiting: 'waiting for the next flush',
    retry: 'Retry now',
    action: 'Action',
  },
  failing: {
    title: 'Failing webhook endpoints',
    hint: "Events given up on are delivered only when resent (paylink webhooks resend, or the merchant's dashboard).",
    allFine: 'Every endpoint takes its webhooks.',
    merchant: 'Merchant',
    endpoint: 'Endpoint',
    givenUp: 'Given up',
    retrying: 'Retrying',
    lastAttempt: 'Last attempt',
    lastAnswer: 'Last answer',
  },
  health: {
    title: 'Health',
    asOf: 'As of {time}; the same figures as /metrics.',
    database: 'Database',
    up: 'up',
    down: 'DOWN',
    paymentsByStatus: 'Payments by status',
    webhooksByDelivery: 'Webhooks by delivery',
    oldestOwed: 'Oldest webhook owed',
    payoutsPending: 'Payouts pending',
    payoutsDelayed: 'Payouts delayed',
    oldestDelayed: 'Oldest delayed payout failing for',
    relayerGas: 'Relayer gas, chain {chain}',
    relayerValue: '{balance} (read {age} ago)',
    low: 'LOW: top it up',
    chain: 'Chain {chain}',
    rpc: 'RPC',
    watcherBehind: 'Watcher behind the head',
    watcherLag: { one: '{blocks} block, {time}', other: '{blocks} blocks, {time}' },
    cursorWritten: 'Watcher last wrote its cursor',
    finalizedAge: 'Age of the finalized head',
    unknown: 'unknown',
    none: 'none',
  },
};

const fr: DashboardText = {
  nav: {
    main: 'Principal',
    payments: 'Paiements',
    developers: 'Développeurs',
    security: 'Sécurité',
    merchants: 'Marchands',
    payouts: 'Versements',
    webhooks: 'Webhooks',
    health: 'État',
    signOut: 'Se déconnecter',
  },
  signIn: {
    title: 'Connexion',
    email: 'E-mail',
    password: 'Mot de passe',
    code: "Code d'authentification",
    codeHint: '(si vous en avez configuré un)',
    button: 'Se connecter',
    passwordSet: 'Votre mot de passe est enregistré. Connectez-vous avec.',
    wrong: 'E-mail, mot de passe ou code incorrect',
    tooMany: 'Trop de tentatives de connexion\u00a0: réessayez dans {minutes}\u00a0min.',
  },
  setPassword: {
    title: 'Choisissez votre mot de passe',
    rules: 'Au moins 12 caractères. Une phrase dont vous vous souviendrez fait un bon mot de passe.',
    newPassword: 'Nouveau mot de passe',
    button: 'Enregistrer le mot de passe',
  },
  refusal: {
    notFound: 'Introuvable',
    cannot: 'Action impossible',
    back: 'Retour au tableau de bord',
    forged: 'Refusé\u00a0: rechargez la page et réessayez.',
    otherOrigin: 'Refusé\u00a0: ce formulaire ne vient pas du tableau de bord.',
  },
  secondFactor: {
    title: 'Second facteur',
    required: 'Les opérateurs doivent configurer un second facteur avant de continuer.',
    scan: "Scannez ceci avec une application d'authentification, puis saisissez le code qu'elle affiche.",
    qrAlt: "QR code de votre secret d'authentification",
    orType: "Ou saisissez ce secret dans l'application\u00a0:",
    code: "Code de l'application",
    turnOn: 'Activer',
    on: "Activé\u00a0: la connexion demande un code de votre application d'authentification.",
  },
  status: {
    pending: 'en attente',
    processing: 'en cours',
    paid: 'payé',
    failed: 'échoué',
    expired: 'expiré',
  },
  refunded: { partly: 'partiellement remboursé', fully: 'remboursé' },
  refundStatus: {
    awaiting_address: "en attente d'adresse",
    awaiting_funds: 'en attente de fonds',
    processing: 'en cours',
    refunded: 'remboursé',
    canceled: 'annulé',
    expired: 'expiré',
  },
  payoutStatus: {
    not_due: "pas encore due : le paiement n'est pas payé",
    pending: 'en route',
    sent: 'envoyé',
    delayed: 'retardé',
  },
  deliveryStatus: {
    pending: 'en attente',
    delivering: 'en cours de livraison',
    delivered: 'livré',
    failed: 'échoué',
    stopped: 'arrêté',
  },
  list: {
    title: 'Paiements',
    testMode: 'Mode test',
    find: 'Rechercher des paiements',
    search: 'Identifiant de paiement, adresse de dépôt ou transaction',
    status: 'Statut',
    any: 'Tous',
    from: 'Créés à partir du',
    before: 'Créés avant le',
    orderId: 'Numéro de commande',
    mode: 'Mode',
    live: 'Réel',
    test: 'Test',
    show: 'Afficher',
    clear: 'Effacer',
    exportFrom: 'Exporter du',
    exportTo: 'au (non inclus)',
    exportPayments: 'Exporter les paiements',
    exportRefunds: 'Exporter les remboursements',
    noMatchFor: 'Aucun paiement ne correspond à {term}.',
    noMatch: 'Aucun paiement ne correspond.',
    newestFirst: 'Les plus récents en premier',
    created: 'Créé',
    payment: 'Paiement',
    price: 'Prix',
    usdcDue: 'USDC dus',
    usdcReceived: 'USDC reçus',
    order: 'Commande',
    older: 'Paiements plus anciens',
  },
  payment: {
    title: 'Paiement',
    depositAddress: 'Adresse de dépôt',
    paid: 'Payé',
    payout: 'Versement',
    payoutValue: '{merchant} au marchand, {commission} de commission',
    timeline: 'Historique',
    createdDue: 'Créé\u00a0: {due} dus',
    transferSeen: 'Transfert de {amount} vu, {finality}\u00a0:',
    final: 'définitif',
    confirming: 'en confirmation',
    orphaned: 'annulé par une réorganisation',
    paidEvent: 'Payé',
    paidLate: "Payé (après l'expiration du lien)",
    payoutSent:
      'Versement envoyé\u00a0: le marchand a reçu {merchant}, la commission était de {commission}\u00a0:',
    payoutDelayed: 'Versement retardé\u00a0: {reason} ({tries} tentatives)',
    expired: 'Expiré',
    underpaid: "Échoué\u00a0: montant insuffisant à l'expiration",
    transfers: 'Transferts',
    transaction: 'Transaction',
    usdc: 'USDC',
    finality: 'Finalité',
    noTransfer: 'Aucun pour le moment.',
    webhooks: 'Webhooks',
    noAttempt: 'Aucune tentative pour le moment.',
    noWebhook: 'Aucun envoyé pour le moment.',
    noAnswer: 'pas de réponse',
    inFlight: 'en cours',
    sendAgain: 'Renvoyer',
  },
  refunds: {
    title: 'Remboursements',
    none: 'Aucun.',
    claimLink: 'Lien pour que le client donne une adresse',
    to: 'Vers',
    fundIt:
      "Financez-le\u00a0: envoyez {amount} USDC à {address} (chaîne {chain}), depuis n'importe quel portefeuille, ou",
    openInWallet: 'ouvrez-le dans une application de portefeuille',
    fundFromWallet: 'Financer depuis mon portefeuille de navigateur',
    fundSent:
      'Envoyé depuis votre portefeuille\u00a0; le remboursement part dès que c’est définitif. Transaction\u00a0:',
    fundRejected: 'Vous avez refusé dans votre portefeuille\u00a0: rien n’a été envoyé.',
    fundWrongChain:
      'Votre portefeuille est sur un autre réseau\u00a0: passez sur la chaîne {chain} et réessayez.',
    fundError: 'Votre portefeuille n’a pas pu l’envoyer\u00a0:',
    fundingQrAlt: "QR code pour envoyer {amount} USDC à l'adresse de dépôt du remboursement",
    sent: 'Envoyé\u00a0:',
    delayed: 'Retardé\u00a0: {reason}',
    cancel: 'Annuler ce remboursement',
    formTitle: 'Rembourser ce paiement',
    amount: 'Montant (USDC)',
    received: 'Reçu {received}. Un montant inférieur est un remboursement partiel.',
    receivedOverpaid:
      'Reçu {received}, dont {overpaid} au-delà du prix. Un montant inférieur est un remboursement partiel.',
    reason: 'Motif',
    reasonHint: '(facultatif, montré au client)',
    address: 'Adresse du client',
    addressHint: '(facultative\u00a0: sans elle, vous obtenez un lien à lui envoyer)',
    start: 'Lancer le remboursement',
    refundOverpaid: 'Rembourser les {overpaid} au-delà du prix',
  },
  developers: {
    title: 'Développeurs',
    apiKeys: "Clés d'API",
    keysHint:
      "Seul le début de chaque clé est conservé. Renouveler une clé affiche la nouvelle une seule fois\u00a0; l'ancienne fonctionne encore 24 heures.",
    key: 'Clé',
    mode: 'Mode',
    created: 'Créée',
    valid: 'Validité',
    current: 'actuelle',
    until: "jusqu'au",
    roll: 'Renouveler la clé {mode}',
    webhooks: 'Webhooks',
    endpoint: 'Adresse de réception',
    noneSet: 'non renseigné',
    wallet: 'Portefeuille de versement',
    commission: 'Commission',
    tolerance: 'Tolérance de paiement insuffisant',
    setByAdministrator: 'Votre administrateur les définit.',
    rotateSecret: 'Changer le secret de signature',
    sendTest: 'Envoyer un webhook de test',
    testSent: 'Webhook de test envoyé',
    answered: 'Votre serveur a répondu HTTP {status} en {ms} ms',
    noAnswer: 'Pas de réponse\u00a0: {error}',
    received: 'reçu.',
    response: 'Réponse\u00a0:',
    sentBody: '{body} envoyé à {url}',
    lastDeliveries: 'Derniers envois',
    noDelivery: 'Aucun webhook pour le moment.',
    event: 'Événement',
    delivery: 'Livraison',
    lastAnswer: 'Dernière réponse',
    action: 'Action',
  },
  shownOnce: {
    copyIt: 'Copiez-le maintenant\u00a0: il ne sera plus affiché.',
    copyThem: 'Copiez-les maintenant\u00a0: ils ne seront plus affichés.',
    copy: 'Copier',
    copied: 'Copié',
    done: 'Terminé',
    newKey: "Nouvelle clé d'API {mode}",
    newSecret: 'Nouveau secret de signature des webhooks',
    apiKey: "Clé d'API",
    signingSecret: 'Secret de signature',
    keysKeepWorking: 'Vos anciennes clés {mode} fonctionnent encore jusqu’au',
    keysStopped: 'Les anciennes clés {mode} ne fonctionnent plus.',
    switchSecret:
      "Vérifiez désormais avec ce secret\u00a0: les webhooks portent aussi une signature avec l'ancien jusqu'au",
  },
  operator: {
    merchants: 'Marchands',
    newMerchant: 'Nouveau marchand',
    name: 'Nom',
    id: 'Identifiant',
    status: 'Statut',
    commission: 'Commission',
    wallet: 'Portefeuille',
    payments: 'Paiements',
    walletLabel: 'Portefeuille de versement (adresse Polygon)',
    webhookUrl: 'URL des webhooks',
    commissionPercent: 'Commission (%)',
    tolerancePercent: 'Tolérance de paiement insuffisant (%)',
    create: 'Créer le marchand',
    save: 'Enregistrer',
    settings: 'Réglages',
    createdAt: 'créé le',
    apiKeys: "Clés d'API",
    rollLive: 'Renouveler la clé réelle',
    rollTest: 'Renouveler la clé de test',
    oldKeysKeep: 'Les anciennes clés {mode} fonctionnent encore',
    graceNone: 'pas du tout',
    grace1h: '1 heure',
    grace24h: '24 heures',
    grace7d: '7 jours',
    secretAndStatus: 'Secret des webhooks et statut',
    rotateSecret: 'Changer le secret des webhooks',
    disable: 'Désactiver le marchand',
    enable: 'Réactiver le marchand',
    disableHint:
      "La désactivation arrête ses clés d'API et déconnecte ses utilisateurs immédiatement\u00a0; ses paiements sont toujours versés.",
    active: 'actif',
    disabled: 'désactivé',
    created: 'Marchand {name} créé',
    giveBoth: 'Transmettez les deux au marchand par un canal sûr.',
    liveKey: "Clé d'API réelle",
    newKeyFor: "Nouvelle clé d'API {mode} pour {name}",
    newSecretFor: 'Nouveau secret de signature des webhooks pour {name}',
  },
  payouts: {
    delayedTitle: 'Versements retardés',
    owedTitle: 'Versements dus',
    onlyDelayed: 'Seulement les retardés',
    everyOwed: 'Tous les versements encore dus',
    nothingOwed: "Rien n'est dû.",
    noneFailing: "Aucun versement n'échoue.",
    payment: 'Paiement',
    merchant: 'Marchand',
    owed: 'USDC dus',
    tries: 'Tentatives',
    nextAttempt: 'Prochaine tentative',
    why: 'Pourquoi',
    nextPass: 'prochain passage',
    merchantShare: 'part du marchand\u00a0: {reason}',
    commission: 'commission\u00a0: {reason}',
    waiting: 'en attente du prochain envoi',
    retry: 'Réessayer maintenant',
    action: 'Action',
  },
  failing: {
    title: 'Adresses de webhooks en échec',
    hint: "Les événements abandonnés ne sont livrés que s'ils sont renvoyés (paylink webhooks resend, ou le tableau de bord du marchand).",
    allFine: 'Toutes les adresses reçoivent leurs webhooks.',
    merchant: 'Marchand',
    endpoint: 'Adresse',
    givenUp: 'Abandonnés',
    retrying: 'En reprise',
    lastAttempt: 'Dernière tentative',
    lastAnswer: 'Dernière réponse',
  },
  health: {
    title: 'État',
    asOf: 'Au {time}\u00a0; les mêmes chiffres que /metrics.',
    database: 'Base de données',
    up: 'disponible',
    down: 'HORS SERVICE',
    paymentsByStatus: 'Paiements par statut',
    webhooksByDelivery: 'Webhooks par livraison',
    oldestOwed: 'Plus ancien webhook dû',
    payoutsPending: 'Versements en attente',
    payoutsDelayed: 'Versements retardés',
    oldestDelayed: 'Plus ancien versement retardé en échec depuis',
    relayerGas: 'Gaz du relais, chaîne {chain}',
    relayerValue: '{balance} (lu il y a {age})',
    low: 'BAS\u00a0: à recharger',
    chain: 'Chaîne {chain}',
    rpc: 'RPC',
    watcherBehind: 'Retard de la surveillance sur la tête',
    watcherLag: {
      one: '{blocks} bloc, {time}',
      many: '{blocks} de blocs, {time}',
      other: '{blocks} blocs, {time}',
    },
    cursorWritten: 'Dernière écriture du curseur de surveillance',
    finalizedAge: 'Âge de la tête finalisée',
    unknown: 'inconnu',
    none: 'aucun',
  },
};

const de: DashboardText = {
  nav: {
    main: 'Hauptmenü',
    payments: 'Zahlungen',
    developers: 'Entwickler',
    security: 'Sicherheit',
    merchants: 'Händler',
    payouts: 'Auszahlungen',
    webhooks: 'Webhooks',
    health: 'Zustand',
    signOut: 'Abmelden',
  },
  signIn: {
    title: 'Anmelden',
    email: 'E-Mail',
    password: 'Passwort',
    code: 'Authentifizierungscode',
    codeHint: '(falls eingerichtet)',
    button: 'Anmelden',
    passwordSet: 'Ihr Passwort ist gesetzt. Melden Sie sich damit an.',
    wrong: 'E-Mail, Passwort oder Code falsch',
    tooMany: 'Zu viele Anmeldeversuche: Versuchen Sie es in {minutes} Min. erneut.',
  },
  setPassword: {
    title: 'Passwort festlegen',
    rules: 'Mindestens 12 Zeichen. Ein Satz, den Sie sich merken, ist ein gutes Passwort.',
    newPassword: 'Neues Passwort',
    button: 'Passwort festlegen',
  },
  refusal: {
    notFound: 'Nicht gefunden',
    cannot: 'Nicht möglich',
    back: 'Zurück zum Dashboard',
    forged: 'Abgelehnt: Laden Sie die Seite neu und versuchen Sie es erneut.',
    otherOrigin: 'Abgelehnt: Dieses Formular kam nicht vom Dashboard.',
  },
  secondFactor: {
    title: 'Zweiter Faktor',
    required: 'Operatoren müssen einen zweiten Faktor einrichten, bevor es weitergeht.',
    scan: 'Scannen Sie dies mit einer Authenticator-App und geben Sie den angezeigten Code ein.',
    qrAlt: 'QR-Code Ihres Authenticator-Geheimnisses',
    orType: 'Oder geben Sie dieses Geheimnis in die App ein:',
    code: 'Code aus der App',
    turnOn: 'Einschalten',
    on: 'Ein: Die Anmeldung fragt nach einem Code aus Ihrer Authenticator-App.',
  },
  status: {
    pending: 'ausstehend',
    processing: 'in Bearbeitung',
    paid: 'bezahlt',
    failed: 'fehlgeschlagen',
    expired: 'abgelaufen',
  },
  refunded: { partly: 'teilweise erstattet', fully: 'erstattet' },
  refundStatus: {
    awaiting_address: 'wartet auf Adresse',
    awaiting_funds: 'wartet auf Deckung',
    processing: 'in Bearbeitung',
    refunded: 'erstattet',
    canceled: 'storniert',
    expired: 'abgelaufen',
  },
  payoutStatus: {
    not_due: 'noch nicht fällig: die Zahlung ist nicht bezahlt',
    pending: 'unterwegs',
    sent: 'gesendet',
    delayed: 'verzögert',
  },
  deliveryStatus: {
    pending: 'ausstehend',
    delivering: 'wird zugestellt',
    delivered: 'zugestellt',
    failed: 'fehlgeschlagen',
    stopped: 'gestoppt',
  },
  list: {
    title: 'Zahlungen',
    testMode: 'Testmodus',
    find: 'Zahlungen suchen',
    search: 'Zahlungs-ID, Einzahlungsadresse oder Transaktion',
    status: 'Status',
    any: 'Alle',
    from: 'Erstellt ab',
    before: 'Erstellt vor',
    orderId: 'Bestellnummer',
    mode: 'Modus',
    live: 'Live',
    test: 'Test',
    show: 'Anzeigen',
    clear: 'Zurücksetzen',
    exportFrom: 'Exportieren ab',
    exportTo: 'bis (ausschließlich)',
    exportPayments: 'Zahlungen exportieren',
    exportRefunds: 'Erstattungen exportieren',
    noMatchFor: 'Keine Zahlung passt zu {term}.',
    noMatch: 'Keine passenden Zahlungen.',
    newestFirst: 'Neueste zuerst',
    created: 'Erstellt',
    payment: 'Zahlung',
    price: 'Preis',
    usdcDue: 'USDC fällig',
    usdcReceived: 'USDC erhalten',
    order: 'Bestellung',
    older: 'Ältere Zahlungen',
  },
  payment: {
    title: 'Zahlung',
    depositAddress: 'Einzahlungsadresse',
    paid: 'Bezahlt',
    payout: 'Auszahlung',
    payoutValue: '{merchant} an den Händler, {commission} Provision',
    timeline: 'Verlauf',
    createdDue: 'Erstellt: {due} fällig',
    transferSeen: 'Überweisung von {amount} gesehen, {finality}:',
    final: 'endgültig',
    confirming: 'wird bestätigt',
    orphaned: 'durch eine Reorganisation verworfen',
    paidEvent: 'Bezahlt',
    paidLate: 'Bezahlt (nach Ablauf des Links)',
    payoutSent: 'Auszahlung gesendet: Der Händler erhielt {merchant}, die Provision betrug {commission}:',
    payoutDelayed: 'Auszahlung verzögert: {reason} ({tries} Versuche)',
    expired: 'Abgelaufen',
    underpaid: 'Fehlgeschlagen: bei Ablauf zu wenig bezahlt',
    transfers: 'Überweisungen',
    transaction: 'Transaktion',
    usdc: 'USDC',
    finality: 'Endgültigkeit',
    noTransfer: 'Noch keine gesehen.',
    webhooks: 'Webhooks',
    noAttempt: 'Noch kein Versuch.',
    noWebhook: 'Noch keine gesendet.',
    noAnswer: 'keine Antwort',
    inFlight: 'läuft',
    sendAgain: 'Erneut senden',
  },
  refunds: {
    title: 'Erstattungen',
    none: 'Keine.',
    claimLink: 'Link, über den der Kunde eine Adresse angibt',
    to: 'An',
    fundIt:
      'Decken Sie sie: Senden Sie {amount} USDC an {address} (Chain {chain}) aus einer beliebigen Wallet, oder',
    openInWallet: 'öffnen Sie sie in einer Wallet-App',
    fundFromWallet: 'Aus meiner Browser-Wallet decken',
    fundSent: 'Aus Ihrer Wallet gesendet; die Erstattung geht raus, sobald dies endgültig ist. Transaktion:',
    fundRejected: 'Sie haben in Ihrer Wallet abgelehnt: Nichts wurde gesendet.',
    fundWrongChain:
      'Ihre Wallet ist in einem anderen Netzwerk: Wechseln Sie zu Chain {chain} und versuchen Sie es erneut.',
    fundError: 'Ihre Wallet konnte es nicht senden:',
    fundingQrAlt: 'QR-Code, um {amount} USDC an die Einzahlungsadresse der Erstattung zu senden',
    sent: 'Gesendet:',
    delayed: 'Verzögert: {reason}',
    cancel: 'Diese Erstattung stornieren',
    formTitle: 'Diese Zahlung erstatten',
    amount: 'Betrag (USDC)',
    received: 'Erhalten: {received}. Ein kleinerer Betrag ist eine Teilerstattung.',
    receivedOverpaid:
      'Erhalten: {received}, davon {overpaid} über dem Preis. Ein kleinerer Betrag ist eine Teilerstattung.',
    reason: 'Grund',
    reasonHint: '(optional, wird dem Kunden gezeigt)',
    address: 'Adresse des Kunden',
    addressHint: '(optional: ohne sie erhalten Sie einen Link, den Sie ihm schicken)',
    start: 'Erstattung starten',
    refundOverpaid: 'Die {overpaid} über dem Preis erstatten',
  },
  developers: {
    title: 'Entwickler',
    apiKeys: 'API-Schlüssel',
    keysHint:
      'Nur der Anfang jedes Schlüssels wird gespeichert. Ein neuer Schlüssel wird einmal angezeigt; der alte funktioniert noch 24 Stunden.',
    key: 'Schlüssel',
    mode: 'Modus',
    created: 'Erstellt',
    valid: 'Gültig',
    current: 'aktuell',
    until: 'bis',
    roll: '{mode}-Schlüssel erneuern',
    webhooks: 'Webhooks',
    endpoint: 'Empfangsadresse',
    noneSet: 'nicht gesetzt',
    wallet: 'Auszahlungs-Wallet',
    commission: 'Provision',
    tolerance: 'Toleranz für Unterzahlung',
    setByAdministrator: 'Diese legt Ihr Administrator fest.',
    rotateSecret: 'Signaturgeheimnis wechseln',
    sendTest: 'Test-Webhook senden',
    testSent: 'Test-Webhook gesendet',
    answered: 'Ihr Server antwortete HTTP {status} in {ms} ms',
    noAnswer: 'Keine Antwort: {error}',
    received: 'empfangen.',
    response: 'Antwort:',
    sentBody: '{body} an {url} gesendet',
    lastDeliveries: 'Letzte Zustellungen',
    noDelivery: 'Noch kein Webhook.',
    event: 'Ereignis',
    delivery: 'Zustellung',
    lastAnswer: 'Letzte Antwort',
    action: 'Aktion',
  },
  shownOnce: {
    copyIt: 'Jetzt kopieren: Er wird nicht noch einmal angezeigt.',
    copyThem: 'Jetzt kopieren: Sie werden nicht noch einmal angezeigt.',
    copy: 'Kopieren',
    copied: 'Kopiert',
    done: 'Fertig',
    newKey: 'Neuer {mode}-API-Schlüssel',
    newSecret: 'Neues Signaturgeheimnis für Webhooks',
    apiKey: 'API-Schlüssel',
    signingSecret: 'Signaturgeheimnis',
    keysKeepWorking: 'Ihre bisherigen {mode}-Schlüssel funktionieren noch bis',
    keysStopped: 'Die bisherigen {mode}-Schlüssel funktionieren ab sofort nicht mehr.',
    switchSecret:
      'Prüfen Sie ab jetzt mit diesem Geheimnis: Webhooks tragen auch eine Signatur mit dem alten bis',
  },
  operator: {
    merchants: 'Händler',
    newMerchant: 'Neuer Händler',
    name: 'Name',
    id: 'ID',
    status: 'Status',
    commission: 'Provision',
    wallet: 'Wallet',
    payments: 'Zahlungen',
    walletLabel: 'Auszahlungs-Wallet (Polygon-Adresse)',
    webhookUrl: 'Webhook-URL',
    commissionPercent: 'Provision (%)',
    tolerancePercent: 'Toleranz für Unterzahlung (%)',
    create: 'Händler anlegen',
    save: 'Speichern',
    settings: 'Einstellungen',
    createdAt: 'erstellt',
    apiKeys: 'API-Schlüssel',
    rollLive: 'Live-Schlüssel erneuern',
    rollTest: 'Test-Schlüssel erneuern',
    oldKeysKeep: 'Alte {mode}-Schlüssel funktionieren noch',
    graceNone: 'gar nicht',
    grace1h: '1 Stunde',
    grace24h: '24 Stunden',
    grace7d: '7 Tage',
    secretAndStatus: 'Webhook-Geheimnis und Status',
    rotateSecret: 'Webhook-Geheimnis wechseln',
    disable: 'Händler deaktivieren',
    enable: 'Händler aktivieren',
    disableHint:
      'Deaktivieren sperrt sofort seine API-Schlüssel und meldet seine Benutzer ab; seine Zahlungen werden weiter ausgezahlt.',
    active: 'aktiv',
    disabled: 'deaktiviert',
    created: 'Händler {name} angelegt',
    giveBoth: 'Übergeben Sie beides dem Händler über einen sicheren Kanal.',
    liveKey: 'Live-API-Schlüssel',
    newKeyFor: 'Neuer {mode}-API-Schlüssel für {name}',
    newSecretFor: 'Neues Webhook-Signaturgeheimnis für {name}',
  },
  payouts: {
    delayedTitle: 'Verzögerte Auszahlungen',
    owedTitle: 'Offene Auszahlungen',
    onlyDelayed: 'Nur die verzögerten',
    everyOwed: 'Alle noch offenen Auszahlungen',
    nothingOwed: 'Nichts ist offen.',
    noneFailing: 'Keine Auszahlung schlägt fehl.',
    payment: 'Zahlung',
    merchant: 'Händler',
    owed: 'USDC offen',
    tries: 'Versuche',
    nextAttempt: 'Nächster Versuch',
    why: 'Grund',
    nextPass: 'nächster Durchlauf',
    merchantShare: 'Händleranteil: {reason}',
    commission: 'Provision: {reason}',
    waiting: 'wartet auf die nächste Auszahlung',
    retry: 'Jetzt erneut versuchen',
    action: 'Aktion',
  },
  failing: {
    title: 'Fehlschlagende Webhook-Adressen',
    hint: 'Aufgegebene Ereignisse werden nur zugestellt, wenn sie erneut gesendet werden (paylink webhooks resend oder das Dashboard des Händlers).',
    allFine: 'Alle Adressen nehmen ihre Webhooks an.',
    merchant: 'Händler',
    endpoint: 'Adresse',
    givenUp: 'Aufgegeben',
    retrying: 'Wird wiederholt',
    lastAttempt: 'Letzter Versuch',
    lastAnswer: 'Letzte Antwort',
  },
  health: {
    title: 'Zustand',
    asOf: 'Stand {time}; dieselben Zahlen wie /metrics.',
    database: 'Datenbank',
    up: 'erreichbar',
    down: 'AUSGEFALLEN',
    paymentsByStatus: 'Zahlungen nach Status',
    webhooksByDelivery: 'Webhooks nach Zustellung',
    oldestOwed: 'Ältester offener Webhook',
    payoutsPending: 'Ausstehende Auszahlungen',
    payoutsDelayed: 'Verzögerte Auszahlungen',
    oldestDelayed: 'Älteste verzögerte Auszahlung schlägt fehl seit',
    relayerGas: 'Relayer-Gas, Chain {chain}',
    relayerValue: '{balance} (vor {age} gelesen)',
    low: 'NIEDRIG: bitte aufladen',
    chain: 'Chain {chain}',
    rpc: 'RPC',
    watcherBehind: 'Rückstand der Überwachung',
    watcherLag: { one: '{blocks} Block, {time}', other: '{blocks} Blöcke, {time}' },
    cursorWritten: 'Cursor der Überwachung zuletzt geschrieben',
    finalizedAge: 'Alter des finalisierten Blocks',
    unknown: 'unbekannt',
    none: 'keine',
  },
};

const es: DashboardText = {
  nav: {
    main: 'Principal',
    payments: 'Pagos',
    developers: 'Desarrolladores',
    security: 'Seguridad',
    merchants: 'Comercios',
    payouts: 'Liquidaciones',
    webhooks: 'Webhooks',
    health: 'Estado',
    signOut: 'Cerrar sesión',
  },
  signIn: {
    title: 'Iniciar sesión',
    email: 'Correo electrónico',
    password: 'Contraseña',
    code: 'Código de autenticación',
    codeHint: '(si configuró uno)',
    button: 'Iniciar sesión',
    passwordSet: 'Su contraseña está guardada. Inicie sesión con ella.',
    wrong: 'Correo, contraseña o código incorrectos',
    tooMany: 'Demasiados intentos de inicio de sesión: inténtelo de nuevo en {minutes} min.',
  },
  setPassword: {
    title: 'Elija su contraseña',
    rules: 'Al menos 12 caracteres. Una frase que recuerde es una buena contraseña.',
    newPassword: 'Nueva contraseña',
    button: 'Guardar contraseña',
  },
  refusal: {
    notFound: 'No encontrado',
    cannot: 'No se puede hacer',
    back: 'Volver al panel',
    forged: 'Rechazado: recargue la página e inténtelo de nuevo.',
    otherOrigin: 'Rechazado: este formulario no viene del panel.',
  },
  secondFactor: {
    title: 'Segundo factor',
    required: 'Los operadores deben configurar un segundo factor antes de continuar.',
    scan: 'Escanee esto con una aplicación de autenticación y escriba el código que muestra.',
    qrAlt: 'Código QR de su secreto de autenticación',
    orType: 'O escriba este secreto en la aplicación:',
    code: 'Código de la aplicación',
    turnOn: 'Activar',
    on: 'Activado: el inicio de sesión pide un código de su aplicación de autenticación.',
  },
  status: {
    pending: 'pendiente',
    processing: 'en proceso',
    paid: 'pagado',
    failed: 'fallido',
    expired: 'caducado',
  },
  refunded: { partly: 'reembolsado en parte', fully: 'reembolsado' },
  refundStatus: {
    awaiting_address: 'esperando dirección',
    awaiting_funds: 'esperando fondos',
    processing: 'en proceso',
    refunded: 'reembolsado',
    canceled: 'cancelado',
    expired: 'caducado',
  },
  payoutStatus: {
    not_due: 'aún no corresponde: el pago no está pagado',
    pending: 'en camino',
    sent: 'enviada',
    delayed: 'retrasada',
  },
  deliveryStatus: {
    pending: 'pendiente',
    delivering: 'entregándose',
    delivered: 'entregado',
    failed: 'fallido',
    stopped: 'detenido',
  },
  list: {
    title: 'Pagos',
    testMode: 'Modo de prueba',
    find: 'Buscar pagos',
    search: 'Id. de pago, dirección de depósito o transacción',
    status: 'Estado',
    any: 'Todos',
    from: 'Creados desde',
    before: 'Creados antes del',
    orderId: 'Número de pedido',
    mode: 'Modo',
    live: 'Real',
    test: 'Prueba',
    show: 'Mostrar',
    clear: 'Borrar',
    exportFrom: 'Exportar desde',
    exportTo: 'hasta (no incluido)',
    exportPayments: 'Exportar pagos',
    exportRefunds: 'Exportar reembolsos',
    noMatchFor: 'Ningún pago coincide con {term}.',
    noMatch: 'Ningún pago coincide.',
    newestFirst: 'Los más recientes primero',
    created: 'Creado',
    payment: 'Pago',
    price: 'Precio',
    usdcDue: 'USDC a pagar',
    usdcReceived: 'USDC recibidos',
    order: 'Pedido',
    older: 'Pagos anteriores',
  },
  payment: {
    title: 'Pago',
    depositAddress: 'Dirección de depósito',
    paid: 'Pagado',
    payout: 'Liquidación',
    payoutValue: '{merchant} al comercio, {commission} de comisión',
    timeline: 'Historial',
    createdDue: 'Creado: {due} a pagar',
    transferSeen: 'Transferencia de {amount} vista, {finality}:',
    final: 'definitiva',
    confirming: 'confirmándose',
    orphaned: 'descartada por una reorganización',
    paidEvent: 'Pagado',
    paidLate: 'Pagado (después de caducar el enlace)',
    payoutSent: 'Liquidación enviada: el comercio recibió {merchant}, la comisión fue {commission}:',
    payoutDelayed: 'Liquidación retrasada: {reason} ({tries} intentos)',
    expired: 'Caducado',
    underpaid: 'Fallido: pago insuficiente al caducar',
    transfers: 'Transferencias',
    transaction: 'Transacción',
    usdc: 'USDC',
    finality: 'Finalidad',
    noTransfer: 'Ninguna todavía.',
    webhooks: 'Webhooks',
    noAttempt: 'Ningún intento todavía.',
    noWebhook: 'Ninguno enviado todavía.',
    noAnswer: 'sin respuesta',
    inFlight: 'en curso',
    sendAgain: 'Reenviar',
  },
  refunds: {
    title: 'Reembolsos',
    none: 'Ninguno.',
    claimLink: 'Enlace para que el cliente indique una dirección',
    to: 'A',
    fundIt: 'Fináncielo: envíe {amount} USDC a {address} (cadena {chain}) desde cualquier billetera, o',
    openInWallet: 'ábralo en una aplicación de billetera',
    fundFromWallet: 'Financiar desde mi billetera del navegador',
    fundSent: 'Enviado desde su billetera; el reembolso sale en cuanto sea definitivo. Transacción:',
    fundRejected: 'Lo rechazó en su billetera: no se envió nada.',
    fundWrongChain: 'Su billetera está en otra red: cámbiela a la cadena {chain} e inténtelo de nuevo.',
    fundError: 'Su billetera no pudo enviarlo:',
    fundingQrAlt: 'Código QR para enviar {amount} USDC a la dirección de depósito del reembolso',
    sent: 'Enviado:',
    delayed: 'Retrasado: {reason}',
    cancel: 'Cancelar este reembolso',
    formTitle: 'Reembolsar este pago',
    amount: 'Importe (USDC)',
    received: 'Recibido {received}. Un importe menor es un reembolso parcial.',
    receivedOverpaid:
      'Recibido {received}, de los cuales {overpaid} por encima del precio. Un importe menor es un reembolso parcial.',
    reason: 'Motivo',
    reasonHint: '(opcional, se muestra al cliente)',
    address: 'Dirección del cliente',
    addressHint: '(opcional: sin ella, obtiene un enlace para enviarle)',
    start: 'Iniciar reembolso',
    refundOverpaid: 'Reembolsar los {overpaid} por encima del precio',
  },
  developers: {
    title: 'Desarrolladores',
    apiKeys: 'Claves de API',
    keysHint:
      'Solo se guarda el comienzo de cada clave. Renovar una clave muestra la nueva una sola vez; la anterior sigue funcionando 24 horas.',
    key: 'Clave',
    mode: 'Modo',
    created: 'Creada',
    valid: 'Válida',
    current: 'actual',
    until: 'hasta',
    roll: 'Renovar clave {mode}',
    webhooks: 'Webhooks',
    endpoint: 'Dirección de recepción',
    noneSet: 'sin definir',
    wallet: 'Billetera de liquidación',
    commission: 'Comisión',
    tolerance: 'Tolerancia de pago insuficiente',
    setByAdministrator: 'Su administrador los define.',
    rotateSecret: 'Cambiar el secreto de firma',
    sendTest: 'Enviar webhook de prueba',
    testSent: 'Webhook de prueba enviado',
    answered: 'Su servidor respondió HTTP {status} en {ms} ms',
    noAnswer: 'Sin respuesta: {error}',
    received: 'recibido.',
    response: 'Respuesta:',
    sentBody: '{body} enviado a {url}',
    lastDeliveries: 'Últimos envíos',
    noDelivery: 'Ningún webhook todavía.',
    event: 'Evento',
    delivery: 'Entrega',
    lastAnswer: 'Última respuesta',
    action: 'Acción',
  },
  shownOnce: {
    copyIt: 'Cópielo ahora: no se volverá a mostrar.',
    copyThem: 'Cópielos ahora: no se volverán a mostrar.',
    copy: 'Copiar',
    copied: 'Copiado',
    done: 'Listo',
    newKey: 'Nueva clave de API {mode}',
    newSecret: 'Nuevo secreto de firma de webhooks',
    apiKey: 'Clave de API',
    signingSecret: 'Secreto de firma',
    keysKeepWorking: 'Sus claves {mode} anteriores siguen funcionando hasta',
    keysStopped: 'Las claves {mode} anteriores dejaron de funcionar ahora.',
    switchSecret:
      'Verifique desde ahora con este secreto: los webhooks llevan también una firma con el anterior hasta',
  },
  operator: {
    merchants: 'Comercios',
    newMerchant: 'Nuevo comercio',
    name: 'Nombre',
    id: 'Id.',
    status: 'Estado',
    commission: 'Comisión',
    wallet: 'Billetera',
    payments: 'Pagos',
    walletLabel: 'Billetera de liquidación (dirección de Polygon)',
    webhookUrl: 'URL de webhooks',
    commissionPercent: 'Comisión (%)',
    tolerancePercent: 'Tolerancia de pago insuficiente (%)',
    create: 'Crear comercio',
    save: 'Guardar',
    settings: 'Ajustes',
    createdAt: 'creado el',
    apiKeys: 'Claves de API',
    rollLive: 'Renovar clave real',
    rollTest: 'Renovar clave de prueba',
    oldKeysKeep: 'Las claves {mode} anteriores siguen funcionando',
    graceNone: 'nada',
    grace1h: '1 hora',
    grace24h: '24 horas',
    grace7d: '7 días',
    secretAndStatus: 'Secreto de webhooks y estado',
    rotateSecret: 'Cambiar el secreto de webhooks',
    disable: 'Desactivar comercio',
    enable: 'Activar comercio',
    disableHint:
      'Desactivarlo detiene sus claves de API y cierra la sesión de sus usuarios al instante; sus pagos se siguen liquidando.',
    active: 'activo',
    disabled: 'desactivado',
    created: 'Comercio {name} creado',
    giveBoth: 'Entregue ambos al comercio por un canal seguro.',
    liveKey: 'Clave de API real',
    newKeyFor: 'Nueva clave de API {mode} para {name}',
    newSecretFor: 'Nuevo secreto de firma de webhooks para {name}',
  },
  payouts: {
    delayedTitle: 'Liquidaciones retrasadas',
    owedTitle: 'Liquidaciones pendientes',
    onlyDelayed: 'Solo las retrasadas',
    everyOwed: 'Todas las liquidaciones pendientes',
    nothingOwed: 'No se debe nada.',
    noneFailing: 'Ninguna liquidación está fallando.',
    payment: 'Pago',
    merchant: 'Comercio',
    owed: 'USDC pendientes',
    tries: 'Intentos',
    nextAttempt: 'Próximo intento',
    why: 'Motivo',
    nextPass: 'próxima pasada',
    merchantShare: 'parte del comercio: {reason}',
    commission: 'comisión: {reason}',
    waiting: 'esperando el próximo envío',
    retry: 'Reintentar ahora',
    action: 'Acción',
  },
  failing: {
    title: 'Direcciones de webhooks con fallos',
    hint: 'Los eventos abandonados solo se entregan si se reenvían (paylink webhooks resend, o el panel del comercio).',
    allFine: 'Todas las direcciones reciben sus webhooks.',
    merchant: 'Comercio',
    endpoint: 'Dirección',
    givenUp: 'Abandonados',
    retrying: 'Reintentando',
    lastAttempt: 'Último intento',
    lastAnswer: 'Última respuesta',
  },
  health: {
    title: 'Estado',
    asOf: 'A las {time}; las mismas cifras que /metrics.',
    database: 'Base de datos',
    up: 'disponible',
    down: 'CAÍDA',
    paymentsByStatus: 'Pagos por estado',
    webhooksByDelivery: 'Webhooks por entrega',
    oldestOwed: 'Webhook pendiente más antiguo',
    payoutsPending: 'Liquidaciones pendientes',
    payoutsDelayed: 'Liquidaciones retrasadas',
    oldestDelayed: 'La liquidación retrasada más antigua falla desde hace',
    relayerGas: 'Gas del relé, cadena {chain}',
    relayerValue: '{balance} (leído hace {age})',
    low: 'BAJO: recárguelo',
    chain: 'Cadena {chain}',
    rpc: 'RPC',
    watcherBehind: 'Retraso del vigilante respecto a la cabeza',
    watcherLag: {
      one: '{blocks} bloque, {time}',
      many: '{blocks} de bloques, {time}',
      other: '{blocks} bloques, {time}',
    },
    cursorWritten: 'Última escritura del cursor del vigilante',
    finalizedAge: 'Antigüedad de la cabeza finalizada',
    unknown: 'desconocido',
    none: 'ninguno',
  },
};

/** Fills `{name}` placeholders as plain text (for a title or a note that `html` escapes where it lands). */
export function fill(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** The form of a counted phrase for `count` in the language's plural rules (French 0 and 1 are singular). */
export function plural(
  lang: Language,
  forms: Readonly<Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }>,
  count: number,
): string {
  return forms[new Intl.PluralRules(lang).select(count)] ?? forms.other;
}

export const DASHBOARD_TEXT: Readonly<Record<Language, DashboardText>> = { en, fr, de, es };
