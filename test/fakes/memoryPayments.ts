import type { PaymentStore } from '../../src/app/payments/ports.ts';
import type { KeyMode } from '../../src/domain/credentials.ts';
import type { Payment } from '../../src/domain/payment.ts';

const notUsed = (name: string) => () => {
  throw new Error(`MemoryPayments.${name} is not faked: the use case under test should not need it`);
};

/**
 * The lookups of the `PaymentStore` port in memory. Like adapters/db/paymentRepository.ts: an id matches
 * exactly (ids are stored lowercase and `=` compares case-sensitively in SQLite and PostgreSQL), a merchant
 * sees only its own payments of the key's mode, and a refund's deposit payment (`kind: 'refund'`) is no
 * payment to anyone who looks one up.
 */
export class MemoryPayments implements PaymentStore {
  private readonly payments = new Map<string, Payment>();

  addPayment(payment: Payment): void {
    this.payments.set(payment.id, payment);
  }

  async findForMerchant(merchantId: string, paymentId: string, mode: KeyMode): Promise<Payment | undefined> {
    const payment = this.payments.get(paymentId);
    return payment?.kind === 'payment' && payment.merchantId === merchantId && payment.mode === mode
      ? payment
      : undefined;
  }

  async findById(paymentId: string): Promise<Payment | undefined> {
    const payment = this.payments.get(paymentId);
    return payment?.kind === 'payment' ? payment : undefined;
  }

  insert = notUsed('insert');
  recordPayerLanguage = notUsed('recordPayerLanguage');
  listForMerchant = notUsed('listForMerchant');
  searchForMerchant = notUsed('searchForMerchant');
}
