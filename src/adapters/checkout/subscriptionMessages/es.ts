import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the subscribe page and the customer portal say in Spanish. */
export const es: MessageTable<typeof en> = {
  subscribeTitle: 'Suscribirse a {plan} · {merchant}',
  portalTitle: 'Su suscripción · {merchant}',
  eyebrow: 'Suscripción de {merchant}',
  every: {
    day: '{count, plural, one {al día} other {cada # días}}',
    week: '{count, plural, one {a la semana} other {cada # semanas}}',
    month: '{count, plural, one {al mes} other {cada # meses}}',
    year: '{count, plural, one {al año} other {cada # años}}',
  },
  termsTitle: 'Cómo funciona',
  trial:
    '{days, plural, one {Una prueba gratuita de # día: el primer pago vence el {date}.} other {Una prueba gratuita de # días: el primer pago vence el {date}.}}',
  noTrial: 'El primer pago vence ahora: su enlace llega por correo en cuanto se suscriba.',
  pushTerms:
    'Antes de cada período recibe un correo con el enlace de pago de ese período, y usted lo paga, desde cualquier wallet o exchange, en USDC. Nunca se cobra nada de su wallet sin unas condiciones que usted haya firmado en ella.',
  grace:
    '{days, plural, one {Un período no pagado en # día desde su vencimiento termina la suscripción.} other {Un período no pagado en # días desde su vencimiento termina la suscripción.}}',
  noGrace: 'Un período no pagado a su vencimiento termina la suscripción.',
  periods: '{count, plural, one {Dura # período.} other {Dura # períodos.}}',
  untilCanceled: 'Sigue hasta que la cancele.',
  fiatRate:
    'El precio está en {currency}: el importe en USDC de cada período se fija al tipo de cambio del día en que se crea su pago.',
  cancelAnyTime:
    'Puede cancelar en cualquier momento desde el enlace de cada correo; un período ya pagado sigue hasta su final.',
  emailTitle: 'Suscribirse por correo',
  email: 'Su dirección de correo',
  emailUse:
    'Los enlaces de pago y los recordatorios se envían aquí, con el enlace para gestionar su suscripción.',
  subscribe: 'Suscribirse',
  emailError: 'Introduzca una dirección de correo válida.',
  formError: 'No se pudo leer el formulario. Inténtelo de nuevo.',
  foreignForm:
    'Este formulario debe enviarse desde su propia página. Abra de nuevo el enlace de suscripción.',
  rateLimited: 'Demasiados intentos desde su conexión. Espere un minuto e inténtelo de nuevo.',
  unavailable: 'Esta suscripción no puede empezar ahora. Inténtelo más tarde o contacte con {merchant}.',
  planNotFoundTitle: 'Plan de suscripción no encontrado',
  planNotFoundBody: 'No hay ningún plan de suscripción en esta dirección. Compruebe el enlace recibido.',
  archivedTitle: 'Este plan está cerrado',
  archivedBody: '{merchant} ya no acepta nuevas suscripciones a este plan.',
  portalNotFoundTitle: 'Suscripción no encontrada',
  portalNotFoundBody:
    'No hay ninguna suscripción en esta dirección. Abra de nuevo el enlace de su último correo.',
  status: {
    trialing: 'Prueba gratuita hasta el {date}',
    active: 'Activa: pagada hasta el {date}',
    past_due: 'Pago pendiente: pague antes del {date}',
    canceled: 'Cancelada el {date}',
    ended: 'Terminada el {date}',
  },
  endsOn: 'Cancelada: termina el {date} y no se cobra nada más.',
  canceledNotice: 'Su suscripción está cancelada.',
  subscribedNotice: 'Se ha suscrito. Hemos enviado los enlaces a {email}.',
  price: 'Precio',
  customer: 'Correo',
  nextPayment: 'Próximo pago',
  nextPaymentValue: '{amount} el {date}',
  planChange: 'Desde el {date}',
  payments: 'Pagos',
  noPayments: 'Aún no hay pagos: el primero llega por correo antes de su vencimiento.',
  period: 'Período',
  dates: 'Fechas',
  paymentStatus: 'Estado',
  paymentStatuses: {
    pending: 'Por pagar',
    processing: 'En camino',
    paid: 'Pagado',
    expired: 'No pagado',
    failed: 'No pagado',
  },
  pay: 'Pagar',
  receipt: 'Recibo',
  view: 'Ver',
  cancelTitle: 'Cancelar',
  cancelExplain:
    'La suscripción termina al final del período en curso ({date}); después no se cobra nada más.',
  cancelForeign: 'Esta cancelación debe enviarse desde esta página: use el botón de abajo.',
  cancel: 'Cancelar mi suscripción',
  nonCustodial: 'Paylink nunca guarda su dinero: cada pago va directamente a {merchant}.',
  wallet: {
    title: 'Pagar cada periodo desde su monedero',
    explain:
      'Firme una vez en el monedero de su navegador: en cada periodo se cobran {cap} de su monedero para {merchant}, nunca más y nunca dos veces en un periodo. Su correo se sigue pidiendo: allí llegan el enlace del portal y cualquier pago que haga usted mismo.',
    allowance:
      'Su monedero también firma una autorización de USDC de {total} para el contrato de cobro de Paylink (el precio de un periodo por el número de periodos). No paga comisión de red.',
    explainFiat:
      'Firme una vez en el monedero de su navegador: en cada periodo se cobra de su monedero para {merchant} el precio en {currency}, en USDC al cambio del día, como mucho {cap} por periodo y nunca dos veces en un periodo; si el precio en {currency} necesita más, le enviamos en su lugar un enlace por correo. Su correo se sigue pidiendo: allí llegan el enlace del portal y cualquier pago que haga usted mismo.',
    allowanceFiat:
      'Su monedero también firma una autorización de USDC de {total} para el contrato de cobro de Paylink (el máximo por periodo por el número de periodos). No paga comisión de red.',
    allowanceOpenEnded:
      'Su monedero también firma una autorización de USDC de {total} para el contrato de cobro de Paylink: {periods} periodos como máximo, ya que la suscripción dura hasta que la cancele. Cuando quede menos de un periodo, la página de su suscripción permite a su monedero autorizar {periods} más. No paga comisión de red por esta primera autorización.',
    subscribe: 'Suscribirme con mi monedero',
    noWallet:
      'No se encontró ningún monedero en este navegador: suscríbase por correo abajo, o abra esta página donde esté su monedero.',
    working: 'Confirme en su monedero…',
    rejected: 'Lo rechazó en su monedero: no se firmó nada.',
    wrongChain: 'Cambie su monedero a {chain} e inténtelo de nuevo.',
    failed: 'No funcionó:',
    portalTitle: 'Pagado desde su monedero',
    cap: 'Como máximo por periodo',
    period: 'Se cobra',
    end: 'Termina',
    endNever: 'Cuando la cancele',
    wallet: 'Monedero',
    stopped: 'Ya no se cobra de su monedero: el enlace de cada periodo llega por correo.',
    switchExplain: 'No más cobros de su monedero: el enlace de pago de cada periodo llega por correo.',
    switch: 'Pasar a pagos por correo',
    switched: 'Hecho: ya no se cobrará de su monedero. El enlace de cada periodo llega por correo.',
    revokeExplain:
      'Para estar seguro en la cadena, su monedero puede cancelar estas condiciones en el propio contrato (una transacción, con comisión). Poner a 0 la autorización de USDC del contrato (approve) también detiene todo cobro.',
    revoke: 'Revocar en la cadena',
    canceledOnChain: 'Cancelado en la cadena desde su monedero el {date}, transacción',
    revoked: 'Revocado en la cadena: estas condiciones no se podrán cobrar nunca más.',
    allowanceLeft: 'Autorización restante',
    topUpExplain:
      'Queda menos de los {cap} del próximo periodo en la autorización de su monedero al contrato de cobro: el próximo cobro fallaría y su enlace llegaría por correo. Su monedero puede autorizar los próximos {periods} periodos, hasta {total} (approve de USDC: una transacción, con comisión de red).',
    topUp: 'Autorizar {periods} periodos más',
    toppedUp: 'Hecho: el contrato puede cobrar ahora hasta {total} de su monedero, un periodo cada vez.',
  },
};
