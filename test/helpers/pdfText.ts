import { inflateSync } from 'node:zlib';

/**
 * The text a PDF shows, line by line, read the way a viewer does: each object's stream inflated (FlateDecode),
 * each font's glyph codes mapped back to characters by the font's own ToUnicode CMap, and the text operators
 * (`Tf`, `Tm`, `Tj`, `TJ`) of every page's content followed. Pieces at the same height are one line, left to
 * right. Enough for what pdfkit writes (Identity-H fonts, one `Tm` per piece); not a general PDF reader.
 */
export function pdfText(pdf: Buffer): string[] {
  const objects = readObjects(pdf);
  const lines: string[] = [];
  for (const object of objects.values()) {
    if (!/\/Type\s*\/Page\b/.test(object.dict)) continue;
    const fonts = pageFonts(object.dict, objects);
    const content = /\/Contents\s+(\d+)\s+0\s+R/.exec(object.dict);
    const stream = content && objects.get(Number(content[1]))?.stream;
    if (stream) lines.push(...contentLines(stream.toString('latin1'), fonts));
  }
  return lines;
}

/** The images a PDF embeds (a merchant's logo), by their size in pixels as their dictionaries state it. */
export function pdfImages(pdf: Buffer): { width: number; height: number }[] {
  return [...readObjects(pdf).values()]
    .filter((object) => /\/Subtype\s*\/Image\b/.test(object.dict))
    .map((object) => ({
      width: Number(/\/Width (\d+)/.exec(object.dict)?.[1]),
      height: Number(/\/Height (\d+)/.exec(object.dict)?.[1]),
    }));
}

/** The pages' drawing operators, inflated: where a colour (`r g b rg`) or an image's placement (`Do`) shows. */
export function pdfContent(pdf: Buffer): string {
  const objects = readObjects(pdf);
  return [...objects.values()]
    .filter((object) => /\/Type\s*\/Page\b/.test(object.dict))
    .map((page) => {
      const content = /\/Contents\s+(\d+)\s+0\s+R/.exec(page.dict);
      return (content && objects.get(Number(content[1]))?.stream?.toString('latin1')) ?? '';
    })
    .join('\n');
}

interface PdfObject {
  readonly dict: string;
  readonly stream: Buffer | undefined;
}

function readObjects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const header = /(\d+) 0 obj\s*/g;
  for (let match = header.exec(text); match; match = header.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endobj', start);
    const streamAt = text.indexOf('stream\n', start);
    if (streamAt === -1 || streamAt > end) {
      objects.set(Number(match[1]), { dict: text.slice(start, end), stream: undefined });
      continue;
    }
    const dict = text.slice(start, streamAt);
    const length = Number(/\/Length (\d+)/.exec(dict)?.[1]);
    const raw = pdf.subarray(streamAt + 'stream\n'.length, streamAt + 'stream\n'.length + length);
    const stream = /\/FlateDecode/.test(dict) ? inflateSync(raw) : raw;
    objects.set(Number(match[1]), { dict, stream });
    header.lastIndex = streamAt + length;
  }
  return objects;
}

/** Each of the page's font names (`/F2`) with its glyph codes' characters. */
function pageFonts(pageDict: string, objects: Map<number, PdfObject>): Map<string, Map<number, string>> {
  const resourcesRef = /\/Resources\s+(\d+)\s+0\s+R/.exec(pageDict);
  const resources = resourcesRef ? (objects.get(Number(resourcesRef[1]))?.dict ?? '') : pageDict;
  const fontBlock = /\/Font\s*<<([^>]*)>>/.exec(resources)?.[1] ?? '';
  const fonts = new Map<string, Map<number, string>>();
  for (const [, name, ref] of fontBlock.matchAll(/\/(\w+)\s+(\d+)\s+0\s+R/g)) {
    const toUnicode = /\/ToUnicode\s+(\d+)\s+0\s+R/.exec(objects.get(Number(ref))?.dict ?? '');
    const cmap = toUnicode && objects.get(Number(toUnicode[1]))?.stream;
    fonts.set(name!, cmap ? parseCMap(cmap.toString('latin1')) : new Map());
  }
  return fonts;
}

/** A CMap's UTF-16BE target; a ligature ("ff") is several units, written with spaces between. */
function utf16(hex: string): string {
  const units =
    hex
      .replace(/\s/g, '')
      .match(/.{4}/g)
      ?.map((unit) => Number.parseInt(unit, 16)) ?? [];
  return String.fromCharCode(...units);
}

/** A ToUnicode CMap's `bfchar` and `bfrange` entries (both forms of range). */
function parseCMap(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const [, block] of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
    for (const [, code, unicode] of block!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g))
      map.set(Number.parseInt(code!, 16), utf16(unicode!));
  for (const [, block] of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    const entries = /<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F\s]+>)/g;
    for (const [, from, , target] of block!.matchAll(entries)) {
      const first = Number.parseInt(from!, 16);
      if (target!.startsWith('[')) {
        [...target!.matchAll(/<([0-9a-fA-F\s]+)>/g)].forEach(([, unicode], i) => {
          map.set(first + i, utf16(unicode!));
        });
      } else {
        const to = Number.parseInt(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/.exec(block!)?.[2] ?? from!, 16);
        const base = Number.parseInt(target!.slice(1, -1).replace(/\s/g, ''), 16);
        for (let code = first; code <= to; code += 1) map.set(code, String.fromCharCode(base + code - first));
      }
    }
  }
  return map;
}

/** The text operators of one content stream, as lines (same `Tm` height), top to bottom. */
function contentLines(content: string, fonts: Map<string, Map<number, string>>): string[] {
  const pieces: { x: number; y: number; text: string }[] = [];
  let font = new Map<number, string>();
  let x = 0;
  let y = 0;
  const operators =
    /\/(\w+)\s+[\d.]+\s+Tf|([-\d.]+)\s+([-\d.]+)\s+Tm|(\[[^\]]*\])\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g;
  for (const match of content.matchAll(operators)) {
    if (match[1]) font = fonts.get(match[1]) ?? new Map();
    else if (match[2]) {
      x = Number(match[2]);
      y = Number(match[3]);
    } else {
      const hexes = match[4] ? [...match[4].matchAll(/<([0-9a-fA-F]*)>/g)].map((m) => m[1]!) : [match[5]!];
      const text = hexes
        .flatMap((hex) => hex.match(/.{4}/g) ?? [])
        .map((code) => font.get(Number.parseInt(code, 16)) ?? '\uFFFD')
        .join('');
      pieces.push({ x, y, text });
    }
  }
  const heights = [...new Set(pieces.map((piece) => piece.y))].sort((a, b) => b - a);
  return heights.map((height) =>
    pieces
      .filter((piece) => piece.y === height)
      .sort((a, b) => a.x - b.x)
      .map((piece) => piece.text)
      .join(''),
  );
}
