import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the e-mails to customers say, in each language: a language is one file beside this one. */
export type EmailMessages = Messages<typeof en>;

export const EMAIL_MESSAGES = messagesByLanguage(en, { en, fr, de, es });
