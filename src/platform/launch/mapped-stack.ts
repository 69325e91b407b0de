import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A stack trace with the bundle's positions put back in the TypeScript sources, read from the bundle's source map
 * when an error is logged (decision 0250). Node's `--enable-source-maps` parses every map when its module loads and
 * keeps the decoded positions for the life of the process: about 19 MB of heap for the bundle's, to map the few
 * stacks a server ever logs. Frames of files without a map, and stacks mapped already, are left as they are.
 */
export function mappedStack(stack: string): string {
  return stack.replace(FRAME, (whole, file: string, line: string, column: string) => {
    const map = sourceMapOf(file);
    // findEntry's positions count from 0; a stack's from 1.
    const entry = map?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return whole;
    const original = entry.originalSource;
    const source = original.startsWith('file://') ? fileURLToPath(original) : path.resolve(path.dirname(pathOf(file)), original);
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/** `file:///…/dist/serve.js:12:34` or `/…/dist/serve.js:12:34` in a frame. */
const FRAME = /((?:file:\/\/)?\/[^\s():]+\.js):(\d+):(\d+)/g;

/** Maps read for the stacks being mapped now; dropped soon after, so that an error does not keep them. */
const maps = new Map<string, SourceMap | null>();
let forget: NodeJS.Timeout | null = null;

function sourceMapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = readMap(file);
    maps.set(file, map);
    forget ??= setTimeout(() => {
      maps.clear();
      forget = null;
    }, 10_000).unref();
  }
  return map;
}

const pathOf = (file: string): string => (file.startsWith('file://') ? fileURLToPath(file) : file);

function readMap(file: string): SourceMap | null {
  const js = pathOf(file);
  // Only the bundle's own maps (beside its files): packages are not mapped.
  if (js.includes('/node_modules/')) return null;
  try {
    const payload = JSON.parse(readFileSync(`${js}.map`, 'utf8'));
    // The sources' own text is not needed to name a line.
    delete payload.sourcesContent;
    return new SourceMap(payload);
  } catch {
    return null;
  }
}
