import { isLanguage, LANGUAGES, type Language } from '../../domain/language.ts';

export { isLanguage, LANGUAGES, type Language };

const DEFAULT_LANGUAGE: Language = 'en';
/** A header longer than this is cut (browsers send a few dozen bytes; nobody needs more than this). */
const MAX_HEADER_CHARS = 1_000;
const MAX_RANGES = 32;

interface LanguageRange {
  readonly tag: string;
  readonly q: number;
  readonly position: number;
}

/**
 * The best of our languages for an `Accept-Language` header (RFC 9110 §12.5.4), simplified to what matters
 * here: ranges are ordered by q (ties keep header order), a range matches by its primary subtag (`fr-CA` →
 * `fr`), `q=0` refuses a language, `*` stands for any language not otherwise named, malformed ranges are
 * ignored. Nothing acceptable → English.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  const ranges: LanguageRange[] = [];
  for (const [position, part] of header
    .slice(0, MAX_HEADER_CHARS)
    .split(',')
    .slice(0, MAX_RANGES)
    .entries()) {
    const [rawTag = '', ...params] = part.split(';').map((piece) => piece.trim());
    const tag = rawTag.toLowerCase();
    if (tag !== '*' && !/^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(tag)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const match = /^q\s*=\s*(0(\.\d{0,3})?|1(\.0{0,3})?)$/i.exec(param);
      if (match) q = Number(match[1]);
      else if (/^q\s*=/i.test(param)) valid = false;
    }
    if (valid) ranges.push({ tag, q, position });
  }

  // `de;q=0` refuses German even if `*` or `de-AT` would otherwise admit it; `de-AT;q=0` refuses only de-AT,
  // which is not a language we serve, so it refuses nothing here.
  const refused = new Set(ranges.filter((r) => r.q === 0).map((r) => r.tag));
  const named = new Set(ranges.filter((r) => r.tag !== '*').map((r) => primary(r.tag)));
  const ordered = ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.position - b.position);
  for (const range of ordered) {
    if (range.tag === '*') {
      const any = LANGUAGES.find((language) => !named.has(language) && !refused.has(language));
      if (any) return any;
      continue;
    }
    const language = primary(range.tag);
    if (isLanguage(language) && !refused.has(language)) return language;
  }
  return DEFAULT_LANGUAGE;
}

function primary(tag: string): string {
  return tag.split('-', 1)[0] ?? tag;
}
