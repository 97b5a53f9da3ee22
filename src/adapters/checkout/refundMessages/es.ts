import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the refund claim page says in Spanish. */
export const es: MessageTable<typeof en> = {
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
