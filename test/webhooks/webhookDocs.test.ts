import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES } from '../../src/domain/paymentStatus.ts';

/**
 * docs/webhooks.md against the code: its events table names every event the service can send. Markdown ends a
 * table at the first line that is not a row, so a blank line inside it hides the rows after it from readers.
 */

const guide = readFileSync(join(import.meta.dirname, '../..', 'docs/webhooks.md'), 'utf8');

/** The events of the table under "## Events": its header row, then every row up to the first non-row line. */
function eventsTable(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Events\n')) ?? '';
  const lines = section.split('\n');
  const header = lines.findIndex((line) => /^\| event \| when \|$/.test(line));
  if (header < 0) return [];
  const rows: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(/^\| `([a-z_.]+)` \|/.exec(line)?.[1] ?? line);
  }
  return rows;
}

describe('docs/webhooks.md', () => {
  it('lists every event the code can send in one unbroken table, and no other', () => {
    const table = eventsTable(guide);
    expect(table.length).toBeGreaterThan(0);
    expect([...table].sort()).toEqual([...PAYMENT_EVENT_TYPES].sort());
  });
});
