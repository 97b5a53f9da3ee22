// The source's shape, checked by `npm run lint`: no file of src/ over 400 lines and no function over 120, so that
// an outline shows a file's operations (docs/architecture.md, "Source layout"). Generated ABIs and per-language
// message files are data, not code, and are exempt from the file rule.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 120;
const root = fileURLToPath(new URL('..', import.meta.url));
export const isExemptFromFileRule = (path: string) =>
  path === 'src/adapters/chain/contractAbis.ts' || /\/messages\/[a-z]{2}\.ts$/.test(path);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) yield path;
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

export function sourceShapeProblems(): string[] {
  const problems: string[] = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(path, 'utf8');
    const rel = relative(root, path);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES && !isExemptFromFileRule(rel))
      problems.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    problems.push(...longFunctions(path, text).map((p) => `${p} (at most ${MAX_FUNCTION_LINES})`));
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = sourceShapeProblems();
  for (const problem of problems) console.error(problem);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
