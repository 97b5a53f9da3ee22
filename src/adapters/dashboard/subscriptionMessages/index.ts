import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the dashboard's subscription pages say, in each language: one file per language. */
export type SubscriptionText = Messages<typeof en>;

export const SUBSCRIPTION_TEXT = messagesByLanguage(en, { en, fr, de, es });
