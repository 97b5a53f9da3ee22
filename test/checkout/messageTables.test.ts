import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { de as checkoutDe } from '../../src/adapters/checkout/messages/de.ts';
import { en as checkoutEn } from '../../src/adapters/checkout/messages/en.ts';
import { es as checkoutEs } from '../../src/adapters/checkout/messages/es.ts';
import { fr as checkoutFr } from '../../src/adapters/checkout/messages/fr.ts';
import { de as refundDe } from '../../src/adapters/checkout/refundMessages/de.ts';
import { en as refundEn } from '../../src/adapters/checkout/refundMessages/en.ts';
import { es as refundEs } from '../../src/adapters/checkout/refundMessages/es.ts';
import { fr as refundFr } from '../../src/adapters/checkout/refundMessages/fr.ts';
import { de as subscribeDe } from '../../src/adapters/checkout/subscriptionMessages/de.ts';
import { en as subscribeEn } from '../../src/adapters/checkout/subscriptionMessages/en.ts';
import { es as subscribeEs } from '../../src/adapters/checkout/subscriptionMessages/es.ts';
import { fr as subscribeFr } from '../../src/adapters/checkout/subscriptionMessages/fr.ts';
import { de as dashboardDe } from '../../src/adapters/dashboard/messages/de.ts';
import { en as dashboardEn } from '../../src/adapters/dashboard/messages/en.ts';
import { es as dashboardEs } from '../../src/adapters/dashboard/messages/es.ts';
import { fr as dashboardFr } from '../../src/adapters/dashboard/messages/fr.ts';
import { DASHBOARD_TEXT } from '../../src/adapters/dashboard/messages/index.ts';
import { de as posDe } from '../../src/adapters/dashboard/posMessages/de.ts';
import { en as posEn } from '../../src/adapters/dashboard/posMessages/en.ts';
import { es as posEs } from '../../src/adapters/dashboard/posMessages/es.ts';
import { fr as posFr } from '../../src/adapters/dashboard/posMessages/fr.ts';
import { de as subscriptionsDe } from '../../src/adapters/dashboard/subscriptionMessages/de.ts';
import { en as subscriptionsEn } from '../../src/adapters/dashboard/subscriptionMessages/en.ts';
import { es as subscriptionsEs } from '../../src/adapters/dashboard/subscriptionMessages/es.ts';
import { fr as subscriptionsFr } from '../../src/adapters/dashboard/subscriptionMessages/fr.ts';
import { de as emailDe } from '../../src/adapters/email/messages/de.ts';
import { en as emailEn } from '../../src/adapters/email/messages/en.ts';
import { es as emailEs } from '../../src/adapters/email/messages/es.ts';
import { fr as emailFr } from '../../src/adapters/email/messages/fr.ts';
import { format } from '../../src/adapters/web/html.ts';
import { fill, LANGUAGES, type Language, Message } from '../../src/adapters/web/i18n.ts';

/**
 * The message tables of the three web surfaces: every language has English's keys and no other, every message
 * parses and uses English's arguments, and every key is read somewhere in src/.
 *
 * How a key counts as read (the rule of `keysRead` below). A surface's pages hold its table, or one section of
 * it, in a short variable: `const m = MESSAGES[language]`, `(…, m: Messages)`, `const l = ctx.t.list`, `const {
 * t } = ctx`, `const { operator: o } = ….t`. A key is read where the sources write `root.key` or `section.key` after such a binding in the same
 * file (for the dashboard, whose root is always `t`, `t.section.key` too). A section read by index or whole
 * (`t.status[payment.status]`, `Object.entries(m.problems)`) counts whole: its keys are a domain type's, which
 * the English table declares it satisfies, or a typed list's. The scan reads every non-test .ts file of src/
 * except the tables themselves, so that it holds wherever the renderers move.
 */

interface Surface {
  readonly name: string;
  readonly english: object;
  readonly tables: Readonly<Record<Language, object>>;
  /** What binds a variable to the whole table: each match's first group is the variable. */
  readonly roots: readonly RegExp[];
  /** Expressions that are the whole table without a variable (`MESSAGES[current]`). */
  readonly fixedRoots: readonly string[];
  /** What binds a variable to one section: each match's first group is the section, its second the variable. */
  readonly sectionBindings?: readonly RegExp[];
}

const SURFACES: readonly Surface[] = [
  {
    name: 'checkout',
    english: checkoutEn,
    tables: { en: checkoutEn, fr: checkoutFr, de: checkoutDe, es: checkoutEs },
    roots: [/(\w+) = MESSAGES\[/g, /(\w+): Messages\b/g],
    fixedRoots: ['MESSAGES\\[\\w+\\]'],
  },
  {
    name: 'refund claim page',
    english: refundEn,
    tables: { en: refundEn, fr: refundFr, de: refundDe, es: refundEs },
    roots: [/(\w+) = REFUND_MESSAGES\[/g, /(\w+): RefundMessages\b/g],
    fixedRoots: ['REFUND_MESSAGES\\[\\w+\\]'],
  },
  {
    name: 'dashboard',
    english: dashboardEn,
    tables: { en: dashboardEn, fr: dashboardFr, de: dashboardDe, es: dashboardEs },
    roots: [/(\w+) = DASHBOARD_TEXT\[/g, /(\w+): DashboardText\b/g],
    // The page context's `t`: `ctx.t`, `input.ctx.t`, `kit.context(request).t`, `const { t } = ctx`.
    fixedRoots: ['\\bt'],
  },
  {
    name: 'e-mails',
    english: emailEn,
    tables: { en: emailEn, fr: emailFr, de: emailDe, es: emailEs },
    roots: [/(\w+) = EMAIL_MESSAGES\[/g, /(\w+): EmailMessages\b/g],
    fixedRoots: ['EMAIL_MESSAGES\\[\\w+\\]'],
    // A template's render gets its section (emailTemplate.ts): `emailTemplate('receipt', 'receipt', (d, l, m) =>`.
    sectionBindings: [/emailTemplate\(\s*'\w+',\s*'(\w+)',\s*\([^)]*?,\s*(\w+)\s*\)\s*=>/g],
  },
  {
    name: 'point of sale',
    english: posEn,
    tables: { en: posEn, fr: posFr, de: posDe, es: posEs },
    roots: [/(\w+) = POS_TEXT\[/g, /(\w+): PosText\b/g],
    fixedRoots: ['POS_TEXT\\[[\\w.()]+\\]'],
  },
  {
    name: 'subscribe page and portal',
    english: subscribeEn,
    tables: { en: subscribeEn, fr: subscribeFr, de: subscribeDe, es: subscribeEs },
    roots: [/(\w+) = SUBSCRIPTION_MESSAGES\[/g, /(\w+): SubscriptionMessages\b/g],
    fixedRoots: ['SUBSCRIPTION_MESSAGES\\[\\w+\\]'],
  },
  {
    name: 'dashboard subscriptions',
    english: subscriptionsEn,
    tables: { en: subscriptionsEn, fr: subscriptionsFr, de: subscriptionsDe, es: subscriptionsEs },
    roots: [/(\w+) = SUBSCRIPTION_TEXT\[[^\]]+\];/g, /(\w+): SubscriptionText\b/g],
    fixedRoots: ['SUBSCRIPTION_TEXT\\[[\\w.]+\\]'],
    sectionBindings: [/const (?=\w+ = SUBSCRIPTION_TEXT\[[^\]]+\]\.(\w+))(\w+)/g],
  },
];

/** Every key path of a table, as `section.key`. */
function keyPaths(table: object, prefix = ''): string[] {
  return Object.entries(table).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keyPaths(value as object, `${prefix}${key}.`),
  );
}

function at(table: object, path: string): string {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], table) as string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return /[/\\](messages|refundMessages|posMessages)$/.test(path) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const SOURCES = sourceFiles(join(import.meta.dirname, '../..', 'src')).map((path) => ({
  path: relative(join(import.meta.dirname, '../..'), path),
  text: readFileSync(path, 'utf8'),
}));

/** The key paths (or whole sections, as `section.*`) that `texts` read of a surface's table. */
function keysRead(surface: Surface, texts: readonly string[]): Set<string> {
  const read = new Set<string>();
  for (const text of texts) {
    for (const pattern of surface.sectionBindings ?? []) {
      for (const [, section, alias] of text.matchAll(pattern))
        for (const use of text.matchAll(new RegExp(`\\b${alias}\\.(\\w+)`, 'g')))
          read.add(`${section}.${use[1]}`);
    }
    const roots = [...surface.fixedRoots];
    for (const pattern of surface.roots)
      for (const match of text.matchAll(pattern)) roots.push(`\\b${match[1]}`);
    for (const root of roots) {
      // Sections taken apart: `const { operator: o, shownOnce: shown } = kit.context(request).t;`.
      for (const binding of text.matchAll(new RegExp(`const \\{([^}]*)\\} = [\\w.()]*?${root}\\s*;`, 'g'))) {
        for (const entry of binding[1]!.split(',')) {
          const [section, alias = section] = entry.split(':').map((part) => part.trim());
          if (!section) continue;
          for (const use of text.matchAll(new RegExp(`\\b${alias}\\.(\\w+)`, 'g')))
            read.add(`${section}.${use[1]}`);
        }
      }
      for (const match of text.matchAll(new RegExp(`${root}\\.(\\w+)(?:\\.(\\w+))?(\\[|\\))?`, 'g'))) {
        const [, first, second, whole] = match;
        read.add(second ? `${first}.${second}` : whole ? `${first}.*` : first!);
        // A section held in a variable: `const l = ctx.t.list;`.
        const alias = new RegExp(`const (\\w+) = [\\w.()]*?${root}\\.${first}\\s*;`, 'g');
        for (const binding of text.matchAll(alias)) {
          for (const use of text.matchAll(new RegExp(`\\b${binding[1]}\\.(\\w+)`, 'g')))
            read.add(`${first}.${use[1]}`);
        }
      }
    }
  }
  return read;
}

function unread(surface: Surface, texts: readonly string[]): string[] {
  const read = keysRead(surface, texts);
  return keyPaths(surface.english).filter((path) => {
    const section = path.split('.')[0];
    return !read.has(path) && !read.has(`${section}.*`);
  });
}

describe.each(SURFACES)('the $name’s message tables', (surface) => {
  const englishPaths = keyPaths(surface.english);

  it.each(LANGUAGES)('%s has every key of English and no other', (language) => {
    expect(keyPaths(surface.tables[language]).sort()).toEqual([...englishPaths].sort());
  });

  it.each(LANGUAGES)(
    '%s: every message parses and uses exactly the arguments of English, each for the same',
    (language) => {
      for (const path of englishPaths) {
        const english = new Message('en', at(surface.english, path)).arguments();
        const own = new Message(language, at(surface.tables[language], path)).arguments();
        expect([...own].sort(), `${language} ${path}`).toEqual([...english].sort());
      }
    },
  );

  it.each(LANGUAGES)(
    '%s: a message without arguments is shown as it is written, with no { in it',
    (language) => {
      // The pages show such a message as it is (messagesByLanguage), and a `{` is what marks one with arguments.
      for (const path of englishPaths) {
        const source = at(surface.tables[language], path);
        const message = new Message(language, source);
        if (message.arguments().size > 0) expect(source, `${language} ${path}`).toContain('{');
        else {
          expect(source, `${language} ${path}`).not.toMatch(/[{}]/);
          expect(fill(message, {}), `${language} ${path}`).toBe(source);
        }
      }
    },
  );

  it('has no key that no page reads', () => {
    expect(
      unread(
        surface,
        SOURCES.map((file) => file.text),
      ),
    ).toEqual([]);
  });
});

describe('the scan for keys that no page reads', () => {
  const [checkout, , dashboard] = SURFACES as [Surface, Surface, Surface];

  it('finds a key read through the table, a section in a variable, or a whole section', () => {
    const page = `const m = MESSAGES[language];
      html\`\${m.copy}\`;
      const l = ctx.t.list;
      l.title; t.payment.title; ctx.t.status[payment.status];`;
    const read = keysRead(checkout, [page]);
    expect(read.has('copy')).toBe(true);
    expect(read.has('copied')).toBe(false);
    const dashboardRead = keysRead(dashboard, [page]);
    expect(['list.title', 'payment.title', 'status.*'].every((key) => dashboardRead.has(key))).toBe(true);
    expect(dashboardRead.has('list.find')).toBe(false);
  });

  it('reports a key nothing reads', () => {
    const everythingButOne = SOURCES.map((file) => file.text.replaceAll('m.copyAmount', 'm.copy'));
    expect(unread(checkout, everythingButOne)).toEqual(['copyAmount']);
  });

  it('finds a key read through the section an e-mail template is given, and only in that section', () => {
    const emails = SURFACES[3]!;
    const template = `export const t = emailTemplate('refund_notice', 'refund', (data: D, language, m) => {
      return fill(m.claimSubject, args);
    });`;
    const read = keysRead(emails, [template]);
    expect(read.has('refund.claimSubject')).toBe(true);
    expect(read.has('refund.claimBody')).toBe(false);
    expect(read.has('request.claimSubject')).toBe(false);
  });
});

describe('plurals by the language’s rules', () => {
  const lag = (language: Language, blocks: number) =>
    format(DASHBOARD_TEXT[language].health.watcherLag, { blocks, time: '2 s' }).toString();
  const delayed = (language: Language, tries: number) =>
    format(DASHBOARD_TEXT[language].payment.payoutDelayed, { reason: 'reverted', tries }).toString();

  it('counts blocks: 1 block, 2 blocks; French 0 and 1 singular', () => {
    expect([lag('en', 1), lag('en', 2), lag('fr', 0), lag('fr', 1), lag('fr', 2)]).toEqual([
      '1 block, 2 s',
      '2 blocks, 2 s',
      '0 bloc, 2 s',
      '1 bloc, 2 s',
      '2 blocs, 2 s',
    ]);
  });

  it('counts a delayed payout’s tries in each language: tried 1 time, not 1 times', () => {
    expect(LANGUAGES.map((language) => delayed(language, 1))).toEqual([
      'Payout delayed: reverted (tried 1 time)',
      'Versement retardé\u00a0: reverted (1 tentative)',
      'Auszahlung verzögert: reverted (1 Versuch)',
      'Liquidación retrasada: reverted (1 intento)',
    ]);
    expect(LANGUAGES.map((language) => delayed(language, 3))).toEqual([
      'Payout delayed: reverted (tried 3 times)',
      'Versement retardé\u00a0: reverted (3 tentatives)',
      'Auszahlung verzögert: reverted (3 Versuche)',
      'Liquidación retrasada: reverted (3 intentos)',
    ]);
  });
});
