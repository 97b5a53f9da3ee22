// The source's shape, checked by `npm run lint`, so that an outline shows a file's operations (docs/architecture.md,
// "Source layout"; decision 0042):
// - code that ships (src/, .ts and .js) and the in-memory fakes of the ports (test/fakes/): no file over 400 lines,
//   no function over 120. Generated ABIs and per-language message files are data, not code, and are exempt from the
//   file rule;
// - stylesheets (src/, .css): no file over 400 lines, split by page or component and served joined;
// - unit tests beside the code (src/**/*.test.ts): no file over 600 lines, split by what they test;
// - integration tests (test/**/*.test.ts): no file over 1,000 lines. Each file pays its own set-up (a chain, the
//   contracts, a server, a browser), so they are split by what they test, not to a unit test's size.
// Tests are outside the function rule: a `describe` block is a function that holds a file's cases.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_STYLESHEET_LINES = 400;
export const MAX_UNIT_TEST_LINES = 600;
export const MAX_INTEGRATION_TEST_LINES = 1_000;
export const MAX_FUNCTION_LINES = 120;
const root = fileURLToPath(new URL('..', import.meta.url));
export const isExemptFromFileRule = (path: string) =>
  path === 'src/adapters/chain/contractAbis.ts' || /\/messages\/[a-z]{2}\.ts$/.test(path);

/** What the check holds a file (its path from the repository's root) to; null: nothing (not source, or data). */
export function shapeRuleOf(path: string): { maxLines: number | null; functions: boolean } | null {
  const inSrc = path.startsWith('src/');
  if (path.endsWith('.test.ts')) {
    if (inSrc) return { maxLines: MAX_UNIT_TEST_LINES, functions: false };
    return path.startsWith('test/') ? { maxLines: MAX_INTEGRATION_TEST_LINES, functions: false } : null;
  }
  if (inSrc && path.endsWith('.css')) return { maxLines: MAX_STYLESHEET_LINES, functions: false };
  if ((inSrc && /\.(ts|js)$/.test(path)) || (path.startsWith('test/fakes/') && path.endsWith('.ts')))
    return { maxLines: isExemptFromFileRule(path) ? null : MAX_FILE_LINES, functions: true };
  return null;
}

function* filesBelow(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesBelow(path);
    else yield path;
  }
}

/** Every function in the file longer than the limit, as "path:line name (N lines)". */
export function longFunctions(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        found.push(`${relative(root, path)}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** What is wrong with one file's shape (its path from the repository's root, and its text). */
export function fileShapeProblems(rel: string, text: string): string[] {
  const rule = shapeRuleOf(rel);
  if (!rule) return [];
  const problems: string[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (rule.maxLines !== null && lines > rule.maxLines)
    problems.push(`${rel}: ${lines} lines (at most ${rule.maxLines})`);
  if (rule.functions)
    problems.push(...longFunctions(join(root, rel), text).map((p) => `${p} (at most ${MAX_FUNCTION_LINES})`));
  return problems;
}

export function sourceShapeProblems(): string[] {
  return [...filesBelow(join(root, 'src')), ...filesBelow(join(root, 'test'))].flatMap((path) => {
    const rel = relative(root, path);
    return shapeRuleOf(rel) ? fileShapeProblems(rel, readFileSync(path, 'utf8')) : [];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = sourceShapeProblems();
  for (const problem of problems) console.error(problem);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
