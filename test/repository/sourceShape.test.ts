import { describe, expect, it } from 'vitest';
import {
  fileShapeProblems,
  isExemptFromFileRule,
  longFunctions,
  MAX_FUNCTION_LINES,
  MAX_INTEGRATION_TEST_LINES,
  MAX_STYLESHEET_LINES,
  MAX_UNIT_TEST_LINES,
  shapeRuleOf,
  sourceShapeProblems,
} from '../../scripts/check-source-shape.ts';

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

  it('holds stylesheets, unit tests and integration tests to their own lengths, one line over and not at it', () => {
    const linesOf = (n: number) => 'x\n'.repeat(n);
    for (const [path, limit] of [
      ['src/adapters/checkout/assets/paymentFacts.css', MAX_STYLESHEET_LINES],
      ['src/app/settlement/advanceInFlight.test.ts', MAX_UNIT_TEST_LINES],
      ['test/checkout/checkout.browser.test.ts', MAX_INTEGRATION_TEST_LINES],
    ] as const) {
      expect(fileShapeProblems(path, linesOf(limit)), path).toEqual([]);
      expect(fileShapeProblems(path, linesOf(limit + 1)), path).toEqual([
        `${path}: ${limit + 1} lines (at most ${limit})`,
      ]);
    }
    expect([MAX_STYLESHEET_LINES, MAX_UNIT_TEST_LINES, MAX_INTEGRATION_TEST_LINES]).toEqual([
      400, 600, 1_000,
    ]);
  });

  it('holds the fakes in test/fakes/ to the rules of shipped code, and leaves tests out of the function rule', () => {
    const over = functionOf('tooLong', MAX_FUNCTION_LINES - 1);
    expect(fileShapeProblems('test/fakes/fakeChain.ts', over)).toHaveLength(1);
    expect(fileShapeProblems('test/fakes/fakeChain.ts', 'x\n'.repeat(401))).toEqual([
      'test/fakes/fakeChain.ts: 401 lines (at most 400)',
    ]);
    expect(fileShapeProblems('src/app/chain/watchChain.test.ts', over)).toEqual([]);
    expect(fileShapeProblems('test/helpers/anvil.ts', 'x\n'.repeat(2_000))).toEqual([]);
    expect(shapeRuleOf('src/adapters/chain/contractAbis.ts')).toEqual({ maxLines: null, functions: true });
    expect(shapeRuleOf('docs/architecture.md')).toBeNull();
  });

  it('holds for src/ and test/ as they are', () => {
    expect(sourceShapeProblems()).toEqual([]);
  });
});
