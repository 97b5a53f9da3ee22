import type { EmailTemplate, RenderedEmail } from '../../app/email/ports.ts';
import type { EmailKind } from '../../domain/email.ts';
import { LANGUAGES } from '../web/i18n.ts';
import { isLanguage, type Language } from '../web/language.ts';
import { EMAIL_MESSAGES, type EmailMessages } from './messages/index.ts';

/**
 * A template of the e-mails to customers: written in every language we have, a message asked in another is
 * rendered in English, and its render gets that language and its section of the message tables.
 */
export function emailTemplate<Data, Section extends keyof EmailMessages>(
  kind: EmailKind,
  section: Section,
  render: (data: Data, language: Language, m: EmailMessages[Section]) => RenderedEmail,
): EmailTemplate<Data> {
  return {
    kind,
    languages: LANGUAGES,
    render(data, requested) {
      const language = isLanguage(requested) ? requested : 'en';
      return render(data, language, EMAIL_MESSAGES[language][section]);
    },
  };
}
