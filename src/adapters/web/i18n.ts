import IntlMessageFormat from 'intl-messageformat';
import { LANGUAGES, type Language } from '../../domain/language.ts';

/**
 * What the three web surfaces (checkout, refund claim page, dashboard) share to speak several languages.
 *
 * Each surface keeps one message table per language (`messages/en.ts`, `fr.ts`, …). English is the reference:
 * its keys and the arguments of its messages are what every other language must have (a test checks both).
 * A message with an argument is written in ICU MessageFormat (`{merchant}`, `{tries, plural, one {…} other
 * {…}}`) and formatted by intl-messageformat, so plurals follow each language's CLDR rules (French "0 bloc",
 * "1 bloc"; English "1 block", "2 blocks"). Numbers and dates arrive already written by localeFormat.ts as
 * strings; a number argument is only for choosing a plural form and is shown as its plain digits.
 *
 * Messages are text, never markup: the HTML layer (`format` in html.ts) escapes their words and the string
 * arguments, and inserts only SafeHtml arguments (an amount in <strong>, say) as markup. `fill` gives the plain
 * text, for a title or an attribute that the `html` tag escapes where it lands.
 */

/** The languages the web surfaces are written in (domain/language.ts); the first is the fallback. */
export { LANGUAGES, type Language };

/** Each language's name in itself, for the language switcher. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
};

/** A language's table: the English table's keys, each with a string (nested sections stay nested). */
export type MessageTable<English> = {
  readonly [K in keyof English]: English[K] extends string ? string : MessageTable<English[K]>;
};

/**
 * A table as the pages read it: a message without arguments is its text, one with arguments (a `{` in the
 * English source) is a Message to hand to `format` or `fill`, so that it cannot be shown unfilled.
 */
export type Messages<English> = {
  readonly [K in keyof English]: English[K] extends `${string}{${string}`
    ? Message
    : English[K] extends string
      ? string
      : Messages<English[K]>;
};

/** What an argument is used for in a message: shown as it is given, or choosing a plural form or a variant. */
export type ArgumentKind = 'text' | 'plural' | 'select';

type Ast = ReturnType<IntlMessageFormat['getAst']>;

// The parser's element types (its TYPE enum, which intl-messageformat does not re-export).
const ELEMENT = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;

function collectArguments(ast: Ast, into: Map<string, ArgumentKind>): Map<string, ArgumentKind> {
  for (const element of ast) {
    switch (element.type) {
      case ELEMENT.argument:
        if (!into.has(element.value)) into.set(element.value, 'text');
        break;
      case ELEMENT.plural:
      case ELEMENT.select:
        into.set(element.value, element.type === ELEMENT.plural ? 'plural' : 'select');
        for (const option of Object.values(element.options)) collectArguments(option.value, into);
        break;
      case ELEMENT.number:
      case ELEMENT.date:
      case ELEMENT.time:
      case ELEMENT.tag:
        // Numbers and dates are written by localeFormat.ts before they reach a message, and a message is text.
        throw new Error(`message argument {${element.value}} has a type messages do not use`);
    }
  }
  return into;
}

/** One message in one language, parsed the first time it is formatted and kept parsed from then on. */
export class Message {
  #compiled: IntlMessageFormat | undefined;
  #arguments: ReadonlyMap<string, ArgumentKind> | undefined;

  constructor(
    readonly language: Language,
    readonly source: string,
  ) {}

  #compile(): IntlMessageFormat {
    // ignoreTag: a `<` in a message is a character, not the start of rich text.
    this.#compiled ??= new IntlMessageFormat(this.source, this.language, undefined, { ignoreTag: true });
    return this.#compiled;
  }

  /** The message's arguments by name; throws if the message does not parse or uses a number or date format. */
  arguments(): ReadonlyMap<string, ArgumentKind> {
    this.#arguments ??= collectArguments(this.#compile().getAst(), new Map());
    return this.#arguments;
  }

  /**
   * The message filled in, as text pieces and the argument values that are not text (markup, for the HTML
   * layer to insert). A missing argument is a bug in the page, so it throws rather than showing `{name}`.
   */
  parts<T>(values: Readonly<Record<string, T | string | number | bigint | boolean | null | undefined>>) {
    for (const name of this.arguments().keys()) {
      if (!Object.hasOwn(values, name)) throw new Error(`message parameter {${name}} is missing`);
    }
    return this.#compile()
      .formatToParts<T>(values as Record<string, T>)
      .map((part) => part.value as string | T);
  }
}

/** A message filled in as plain text (for a title or a note that `html` escapes where it lands). */
export function fill(
  message: Message | string,
  values: Readonly<Record<string, string | number | bigint>>,
): string {
  const filled = typeof message === 'string' ? new Message('en', message) : message;
  return filled.parts(values).join('');
}

/**
 * A surface's tables as its pages read them, from each language's table. A leaf is a Message where English has
 * an argument, and the language's text as it is otherwise (the tables' test checks that such a text is what
 * formatting it would give).
 */
export function messagesByLanguage<English extends object>(
  english: English,
  tables: Readonly<Record<Language, MessageTable<English>>>,
): Readonly<Record<Language, Messages<English>>> {
  const view = (language: Language, reference: object, table: object): object =>
    Object.fromEntries(
      Object.entries(reference).map(([key, source]) => {
        const own = (table as Record<string, unknown>)[key];
        if (typeof source !== 'string') return [key, view(language, source as object, own as object)];
        return [key, source.includes('{') ? new Message(language, own as string) : own];
      }),
    );
  return Object.fromEntries(
    LANGUAGES.map((language) => [language, view(language, english, tables[language])]),
  ) as Record<Language, Messages<English>>;
}
