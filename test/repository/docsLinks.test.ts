import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone: README.md and docs/ link only files inside it, each of which exists (and the
 * heading an anchor names), and name no document that lives outside it.
 */

const ROOT = join(import.meta.dirname, '../..');
const markdownFiles = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name)),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replaceAll(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm);
  return new Set([...headings].map(([, text = '']) => slug(text)));
}

describe.each(markdownFiles.map((file) => [relative(ROOT, file), file]))('%s', (_name, file) => {
  const text = readFileSync(file, 'utf8');

  it('links only files inside the repository that exist', () => {
    // Inline links outside code: [text](target). URLs with a scheme are the web's, not the repository's.
    const prose = text.replaceAll(/```[\s\S]*?```/g, '');
    for (const [link, target = ''] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : join(dirname(file), path);
      expect(relative(ROOT, resolved).startsWith('..'), link).toBe(false);
      expect(existsSync(resolved), link).toBe(true);
      if (anchor !== undefined) expect(anchorsOf(resolved).has(anchor), link).toBe(true);
    }
  });

  it('names no document outside the repository', () => {
    expect(text).not.toMatch(/ARCHITECTURE\.md|\.\.\/shared|\/work\/|payment-link-service/);
  });
});
