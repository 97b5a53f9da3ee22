import { type Messages as MessagesOf, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything checkout says, in each language: a language is one file beside this one (web/i18n.ts). */
export type Messages = MessagesOf<typeof en>;

export const MESSAGES = messagesByLanguage(en, { en, fr, de, es });
