/**
 * The example answers of README.md's walk-through, read as JSON and compared with what a real sandbox answers, so
 * the README cannot drift from what a user sees.
 *
 * An example is a comment line starting `# {` and the indented `#  ` lines after it. In it, `"…"` (or text around
 * `…`, such as `"0x…"`, `"0x15d3…6A65"`) stands for any string with that start and end; `<id>` and `<rid>` for the
 * payment and refund ids; an unquoted `…` among an object's members for members left out (the others must still
 * come in that order). Otherwise keys come in the same order, none missing and none more, and every value is equal.
 */
const MORE = '…more';

export function walkthroughExamples(readme: string): unknown[] {
  const section = readme.split('\n## Walk-through')[1]?.split('\n## ')[0] ?? '';
  const examples: string[] = [];
  for (const line of section.split('\n')) {
    if (line.startsWith('# {')) examples.push(line.slice(2));
    else if (line.startsWith('#  ') && examples.length > 0 && !isClosed(examples[examples.length - 1]!))
      examples[examples.length - 1] += line.slice(2).trim();
  }
  return examples.map((text) =>
    JSON.parse(text.replace(/,…(?=[}\]])/g, `,"${MORE}":true`).replace(/,…,/g, `,"${MORE}":true,`)),
  );
}

function isClosed(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return depth === 0;
}

/**
 * Where `real` differs from `example`, as readable lines (none: it matches). `substitutions` replaces text in the
 * example's strings first (`<id>`, the README's ports); `shapeOnly` names keys whose value may be any other string
 * of lowercase words (a value another change may rename).
 */
export function differences(
  example: unknown,
  real: unknown,
  substitutions: Readonly<Record<string, string>>,
  shapeOnly: readonly string[] = [],
  path = '$',
): string[] {
  if (typeof example === 'string') {
    const expected = Object.entries(substitutions).reduce(
      (text, [from, to]) => text.split(from).join(to),
      example,
    );
    if (typeof real !== 'string') return [`${path}: ${JSON.stringify(real)} is not a string`];
    if (expected.includes('…')) {
      const [start = '', end = ''] = [
        expected.slice(0, expected.indexOf('…')),
        expected.slice(expected.lastIndexOf('…') + 1),
      ];
      return real.startsWith(start) && real.endsWith(end) && real.length > start.length + end.length
        ? []
        : [`${path}: ${JSON.stringify(real)} is not of the form ${JSON.stringify(expected)}`];
    }
    if (shapeOnly.includes(path.split('.').pop() ?? '')) {
      return /^[a-z_]+$/.test(real)
        ? []
        : [`${path}: ${JSON.stringify(real)} is not a word like ${JSON.stringify(expected)}`];
    }
    return real === expected
      ? []
      : [`${path}: ${JSON.stringify(real)} instead of ${JSON.stringify(expected)}`];
  }
  if (Array.isArray(example)) {
    if (!Array.isArray(real)) return [`${path}: ${JSON.stringify(real)} is not an array`];
    if (example.length === 0)
      return real.length === 0 ? [] : [`${path}: ${real.length} items instead of none`];
    if (real.length === 0) return [`${path}: no items`];
    return differences(example[0], real[0], substitutions, shapeOnly, `${path}[0]`);
  }
  if (example !== null && typeof example === 'object') {
    if (real === null || typeof real !== 'object' || Array.isArray(real)) return [`${path}: not an object`];
    const open = MORE in example;
    const expectedKeys = Object.keys(example).filter((key) => key !== MORE);
    const realKeys = Object.keys(real);
    const problems: string[] = [];
    const missing = expectedKeys.filter((key) => !realKeys.includes(key));
    if (missing.length > 0) problems.push(`${path}: the real answer has no ${missing.join(', ')}`);
    const extra = realKeys.filter((key) => !expectedKeys.includes(key));
    if (!open && extra.length > 0) problems.push(`${path}: the README does not show ${extra.join(', ')}`);
    const order = realKeys.filter((key) => expectedKeys.includes(key));
    const shown = expectedKeys.filter((key) => realKeys.includes(key));
    if (order.join() !== shown.join()) problems.push(`${path}: keys come as ${order.join(', ')}`);
    for (const key of shown) {
      problems.push(
        ...differences(
          (example as Record<string, unknown>)[key],
          (real as Record<string, unknown>)[key],
          substitutions,
          shapeOnly,
          `${path}.${key}`,
        ),
      );
    }
    return problems;
  }
  return Object.is(example, real)
    ? []
    : [`${path}: ${JSON.stringify(real)} instead of ${JSON.stringify(example)}`];
}
