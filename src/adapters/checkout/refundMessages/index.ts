import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the refund claim page says, in each language: a language is one file beside this one. */
export type RefundMessages = Messages<typeof en>;

export const REFUND_MESSAGES = messagesByLanguage(en, { en, fr, de, es });
