import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the subscribe page and the customer portal say, in each language: one file per language. */
export type SubscriptionMessages = Messages<typeof en>;

export const SUBSCRIPTION_MESSAGES = messagesByLanguage(en, { en, fr, de, es });
