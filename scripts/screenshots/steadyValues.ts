import { createHash } from 'node:crypto';
import { getAddress } from 'viem';

/**
 * The values that differ from one run of the screenshots to the next, each given a stand-in that stays the same:
 * ids, addresses and hashes (random or derived from random ids), keys, and moments (the clock). A value the run
 * names (a scene's payment, the sandbox's ports) gets a stand-in named after its role; any other gets one named
 * after the page and the order it first appeared in there, so a page added to the list moves no other's values.
 * The same value keeps its stand-in on every page, in the QR codes too.
 */
export interface SteadyValues {
  /** The stand-in of every varying value found in `texts`, first seen on `page`: a table of real → steady. */
  tableFor(page: string, texts: readonly string[]): Record<string, string>;
  /** `text` with every varying value in it replaced (its values met on `page` if new). */
  steady(page: string, text: string): string;
}

/** The day every screenshot shows as today (a run's own day is moved there, and the days around it with it). */
export const SHOWN_DAY = Date.UTC(2026, 10, 20);
/** The time of day every moment shows: minutes vary with the load of the machine, so none is kept. */
export const SHOWN_TIME = '10:24';
const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** What varies, by its shape: each pattern's match is replaced by a stand-in of the same shape. */
const SHAPES: readonly {
  readonly pattern: RegExp;
  readonly make: (value: string, seed: string) => string;
}[] = [
  { pattern: /0x[0-9a-fA-F]{64}\b/g, make: (value, seed) => `0x${hex(seed, 64, value)}` },
  { pattern: /0x[0-9a-fA-F]{40}\b/g, make: (value, seed) => address(value, seed) },
  {
    pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g,
    make: (_value, seed) => {
      const h = hex(seed, 32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20)}`;
    },
  },
  {
    // A second factor's secret (base32), offered on the security page.
    pattern: /\b[A-Z2-7]{32}\b/g,
    make: (value, seed) => base32(seed, value.length),
  },
  {
    // Public ids and secrets with a prefix (mch_, evt_, sk_live_, whsec_, …): the prefix kept, the rest replaced.
    pattern: /\b(?:sk_live|sk_test|whsec|mch|evt|usr|ref)_[A-Za-z0-9]{4,}/g,
    make: (value, seed) => {
      const cut = value.lastIndexOf('_') + 1;
      return value.slice(0, cut) + alphanumeric(seed, value.length - cut);
    },
  },
];

/** Steady stand-ins for one run; `named` gives values the run knows by role (its ids, ports, e-mail). */
export function steadyValues(
  named: Record<string, string>,
  runDay: number = dayOf(Date.now()),
): SteadyValues {
  const known = new Map<string, string>(Object.entries(named));
  const found = new Map<string, number>();
  const standIn = (page: string, value: string, make: (value: string, seed: string) => string) => {
    const key = value.toLowerCase();
    let stand = known.get(value) ?? known.get(key);
    if (stand === undefined) {
      const n = (found.get(page) ?? 0) + 1;
      found.set(page, n);
      stand = make(value, `${page}#${n}`);
      known.set(key, make === SHAPES[1]!.make ? stand.toLowerCase() : stand);
    }
    return sameCase(value, stand);
  };
  const tableFor = (page: string, texts: readonly string[]) => {
    const table: Record<string, string> = {};
    for (const text of texts) {
      for (const [real, stand] of known) if (text.includes(real)) table[real] = stand;
      for (const { pattern, make } of SHAPES)
        for (const [value] of text.matchAll(pattern)) table[value] = standIn(page, value, make);
      for (const [value] of text.matchAll(SHORT_ADDRESS)) {
        const full = [...known.keys()].find((k) => shortens(value, k));
        if (full) table[value] = shortened(value, known.get(full)!);
      }
      for (const [value] of text.matchAll(MOMENTS)) table[value] = moment(value, runDay);
    }
    return table;
  };
  return {
    tableFor,
    steady: (page, text) => replaceAll(text, tableFor(page, [text])),
  };
}

/** `text` with each key of `table` found in it replaced by its value, longest keys first. */
export function replaceAll(text: string, table: Record<string, string>): string {
  const keys = Object.keys(table).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const pattern = new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, (match) => table[match] ?? match);
}

const SHORT_ADDRESS = /0x[0-9a-fA-F]{4,8}…[0-9a-fA-F]{4,8}/g;
/**
 * Dates as the pages write them in English ("21 Nov 2026", "2026-11-21"), times of day ("14:05"), countdowns
 * ("23:59:31"), ages ("103 s"), the watcher's lag ("1 block") and the relayer's gas ("9999.9874 ETH").
 */
const MOMENTS = new RegExp(
  `\\b\\d+ min ago\\b|\\b\\d+ s\\b|\\b\\d+ blocks?\\b|\\b\\d+\\.\\d+ ETH\\b|\\b\\d{1,2} (?:${MONTHS.join('|')}) \\d{4}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?\\b`,
  'g',
);

function moment(value: string, runDay: number): string {
  // hh:mm:ss is a countdown (a day's payment, watched a few minutes after it was made): its hour is kept.
  if (/^\d{2}:\d{2}:\d{2}$/.test(value)) return `${value.slice(0, 2)}:59:00`;
  // How long ago something was read or written ("read 103 s ago", "read 2 min ago"): a few seconds, whatever the load.
  if (/^\d+ s$/.test(value)) return '2 s';
  if (/^\d+ min ago$/.test(value)) return '2 s ago';
  // How far the watcher was behind the chain's head when the page was read.
  if (/^\d+ blocks?$/.test(value)) return '0 blocks';
  // The relayer's gas, spent by the run's own transactions at the chain's moving base fee.
  if (value.endsWith(' ETH')) return '9999.99 ETH';
  if (/^\d{2}:\d{2}$/.test(value)) return SHOWN_TIME;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = iso
    ? Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]))
    : Date.parse(`${value} 00:00 UTC`);
  const shown = new Date(SHOWN_DAY + (day - runDay));
  if (iso) return shown.toISOString().slice(0, 10);
  return `${shown.getUTCDate()} ${MONTHS[shown.getUTCMonth()]} ${shown.getUTCFullYear()}`;
}

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function shortens(short: string, full: string): boolean {
  const [head, tail] = short.split('…') as [string, string];
  return (
    full.length === 42 &&
    full.toLowerCase().startsWith(head.toLowerCase()) &&
    full.toLowerCase().endsWith(tail.toLowerCase())
  );
}

function shortened(short: string, stand: string): string {
  const [head, tail] = short.split('…') as [string, string];
  const full = short === short.toLowerCase() ? stand.toLowerCase() : getAddress(stand.toLowerCase());
  return `${full.slice(0, head.length)}…${full.slice(full.length - tail.length)}`;
}

/** The stand-in written as the value is: lowercase, uppercase or mixed (an address's checksum). */
function sameCase(value: string, stand: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return stand;
  if (value === value.toLowerCase()) return stand.toLowerCase();
  return getAddress(stand.toLowerCase());
}

function address(value: string, seed: string): string {
  const stand = `0x${hex(seed, 40)}`;
  return value === value.toLowerCase() ? stand : getAddress(stand);
}

/** A stand-in of `value`'s shape (an id, an address, a hash, a prefixed id) or, for any other, letters and digits. */
export function standInLike(value: string, seed: string): string {
  for (const { pattern, make } of SHAPES)
    if (new RegExp(`^(?:${pattern.source})$`).test(value)) return make(value, seed);
  return alphanumeric(seed, value.length);
}

function hex(seed: string, length: number, _value?: string): string {
  let out = '';
  for (let i = 0; out.length < length; i += 1)
    out += createHash('sha256').update(`${seed}/${i}`).digest('hex');
  return out.slice(0, length);
}

function base32(seed: string, length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, i) => alphabet[bytes[i % bytes.length]! % alphabet.length]).join('');
}

function alphanumeric(seed: string, length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, i) => alphabet[bytes[i % bytes.length]! % alphabet.length]).join('');
}
