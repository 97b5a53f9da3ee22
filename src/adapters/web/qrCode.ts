import QRCode from 'qrcode';

/**
 * A QR code as SVG, drawn on the server (no script needed to see it, nothing fetched from elsewhere).
 * Error correction M survives a phone camera at an angle on a glossy screen without making the code denser
 * than a 232 px image can show crisply for a ~150-character EIP-681 link.
 */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#111827ff', light: '#ffffffff' },
  });
}
