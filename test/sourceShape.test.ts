import { describe, expect, it } from 'vitest';
import {
  isExemptFromFileRule,
  longFunctions,
  MAX_FUNCTION_LINES,
  sourceShapeProblems,
} from '../scripts/check-source-shape.ts';

/** A function whose body has `n` statements, so that it spans n + 2 lines. */
const functionOf = (name: string, n: number) =>
  `export function ${name}() {\n${Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n')}\n}\n`;

describe('the source shape check (npm run lint)', () => {
  it('finds a function one line over the limit, and not one at it', () => {
    const atLimit = functionOf('fits', MAX_FUNCTION_LINES - 2);
    const over = functionOf('tooLong', MAX_FUNCTION_LINES - 1);
    expect(longFunctions('/x/a.ts', atLimit)).toEqual([]);
    expect(longFunctions('/x/a.ts', over)).toHaveLength(1);
    expect(longFunctions('/x/a.ts', over)[0]).toContain(`tooLong (${MAX_FUNCTION_LINES + 1} lines)`);
  });

  it('finds a long arrow function or method inside another, by its own length', () => {
    const inner = `const handlers = {\n  run: () => {\n${'    work();\n'.repeat(MAX_FUNCTION_LINES)}  },\n};\n`;
    expect(longFunctions('/x/b.ts', inner)).toHaveLength(1);
  });

  it('exempts generated ABIs and per-language message files from the file rule only', () => {
    expect(isExemptFromFileRule('src/adapters/chain/contractAbis.ts')).toBe(true);
    expect(isExemptFromFileRule('src/adapters/dashboard/messages/fr.ts')).toBe(true);
    expect(isExemptFromFileRule('src/adapters/dashboard/messages/index.ts')).toBe(false);
    expect(isExemptFromFileRule('src/adapters/db/schema.ts')).toBe(false);
  });

  it('holds for src/ as it is', () => {
    expect(sourceShapeProblems()).toEqual([]);
  });
});
