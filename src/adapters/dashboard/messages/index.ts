import { type Messages, messagesByLanguage } from '../../web/i18n.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

/** Everything the dashboard says, in each language: a language is one file beside this one (web/i18n.ts). */
export type DashboardText = Messages<typeof en>;

export const DASHBOARD_TEXT = messagesByLanguage(en, { en, fr, de, es });
