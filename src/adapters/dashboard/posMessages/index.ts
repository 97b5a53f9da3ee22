import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the point of sale says, in each language: a language is one file beside this one (web/i18n.ts). */
export type PosText = Messages<typeof en>;

export const POS_TEXT = messagesByLanguage(en, { en, fr, de, es });
