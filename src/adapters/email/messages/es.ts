import type { MessageTable } from '../../web/i18n.ts';
import type { en } from './en.ts';

/** What the e-mails to customers say in Spanish. */
export const es: MessageTable<typeof en> = {
  receipt: {
    subject: 'Su recibo de {merchant}',
    preheader: 'Pagado: {amount} {currency}',
    heading: 'Gracias por su pago',
    body: '{merchant} ha recibido su pago de {amount} {currency}. Conserve este correo como recibo.',
    purchase: 'Compra',
    details: 'Detalles',
    line: '{quantity} × {price} = {total}',
    items: 'Artículos',
    merchant: 'Pagado a',
    amount: 'Importe',
    usdcPaid: 'USDC pagados',
    transaction: 'Transacción',
    date: 'Fecha',
    order: 'Pedido',
    view: 'Ver su recibo',
    footer: 'Recibe este correo porque {merchant} indicó su dirección con este pago.',
    pageTitle: 'Recibo de {merchant}',
    notFoundTitle: 'Recibo no encontrado',
    notFoundBody: 'Este recibo no existe. Compruebe que la dirección es la de su correo.',
    pdfLink: 'Descargar el recibo (PDF)',
    pdfTitle: 'Recibo',
    pdfNote:
      'Justificante de un pago en USDC a {merchant}. Para una factura con los datos fiscales, diríjase a {merchant}.',
    reference: 'Referencia',
    paid: 'Pagado',
    usdcPrice: 'Precio en USDC',
    rate: 'Tipo de cambio',
    transfers: 'Transferencias recibidas',
    refunds: 'Reembolsos',
    refunded: 'Reembolsado',
  },
  refund: {
    claimSubject: '{merchant} le reembolsa {amount} USDC',
    claimHeading: '¿Adónde enviamos su reembolso?',
    claimBody:
      '{merchant} le reembolsa {amount} USDC. Indique la dirección de su propio monedero USDC en la página del reembolso antes del {time}; el reembolso se envía allí en cuanto {merchant} lo financie.',
    claimAction: 'Indicar mi dirección',
    sentSubject: 'Su reembolso de {merchant} fue enviado',
    sentHeading: 'Su reembolso fue enviado',
    sentBody: '{merchant} le ha reembolsado {amount} USDC. Están en su monedero.',
    amount: 'Reembolso',
    address: 'Enviado a',
    transaction: 'Transacción',
    footer: 'Recibe este correo porque {merchant} indicó su dirección con su pago.',
  },
  request: {
    subject: '{merchant} le solicita el pago de {amount} {currency}',
    heading: 'Solicitud de pago de {merchant}',
    body: '{merchant} le solicita el pago de {amount} {currency} en USDC. El enlace es válido hasta el {time}.',
    amount: 'Importe',
    usdc: 'En USDC',
    order: 'Pedido',
    expires: 'Pagar antes del',
    pay: 'Pagar {amount} {currency}',
    footer:
      'Recibe este correo porque {merchant} le envió esta solicitud de pago. Si no la esperaba, ignórela: no se cobra nada sin su pago.',
  },
};
