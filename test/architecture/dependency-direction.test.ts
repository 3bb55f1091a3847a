import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point downward (docs/development.md, "Layout"): read from the import statements
 * of the source files themselves, so the documented order cannot drift from the code.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The folders of src/ from the top down, as docs/development.md gives them. A folder imports only
 * folders of the lines below its own; folders on one line do not import each other. A new folder
 * of src/ takes its place here (the test fails until it does).
 */
const LAYERS: string[][] = [
  ['cli'],
  ['gateway'],
  ['http', 'plugin-host'],
  ['runtime'],
  ['mappings', 'agents'],
  ['tools', 'knowledge-stores'],
  ['accounts'],
  ['models', 'knowledge', 'metrics'],
  ['store', 'plugin-sdk'],
  ['config'],
  ['log', 'time', 'utils', 'errors.ts'],
  ['tracing'],
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.mts') ? [rel] : [];
  });
}

/**
 * every relative module a file names: value and type imports, re-exports, side-effect imports,
 * import() calls (in types too) and new URL(...)
 */
function relativeTargets(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((spec) => path.normalize(path.join(path.dirname(file), spec)));
}

function violations(files: string[], allowed: (target: string) => boolean): string[] {
  return files.flatMap((file) => relativeTargets(file).filter((t) => !allowed(t)).map((t) => `${file} -> ${t}`));
}

/** the folder of src/ a path is in (`errors.ts` for the catalog at its root), or undefined outside src/ */
function folderOf(file: string): string | undefined {
  const [top, first, ...rest] = file.split(path.sep);
  if (top !== 'src' || first === undefined) return undefined;
  return rest.length ? first : first.replace(/\.js$/, '.ts');
}

const layerOf = new Map(LAYERS.flatMap((folders, depth) => folders.map((folder): [string, number] => [folder, depth])));

describe('dependency direction', () => {
  it('every folder of src/ has its place in the documented order', () => {
    const folders = fs.readdirSync(path.join(ROOT, 'src')).map((name) => folderOf(path.join('src', name))!);
    expect(folders.filter((f) => !layerOf.has(f))).toEqual([]);
  });

  it('the order is the one docs/development.md gives', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs/development.md'), 'utf8');
    const documented = LAYERS.map((folders) => folders.map((f) => `\`${f.replace(/\.ts$/, '')}\``).join(', ')).join(' → ');
    expect(docs).toContain(documented);
  });

  it('src/ imports only downward: no folder imports one above it or beside it (value and type imports, import() included)', () => {
    const found = sourceFiles('src').flatMap((file) => {
      const from = layerOf.get(folderOf(file)!)!;
      return relativeTargets(file)
        .filter((target) => {
          const to = folderOf(target);
          return to !== undefined && to !== folderOf(file) && !(layerOf.get(to)! > from);
        })
        .map((target) => `${file} -> ${target}`);
    });
    expect(found).toEqual([]);
  });

  it('src/ never imports a file of plugins/ (the entry point hands the built-in list in)', () => {
    expect(violations(sourceFiles('src'), (t) => !t.startsWith(`plugins${path.sep}`) && t !== 'plugins')).toEqual([]);
  });

  it('plugins use only the SDK (src/plugin-sdk)', () => {
    expect(violations(sourceFiles('plugins'), (t) => t.startsWith(`plugins${path.sep}`) || t.startsWith(path.join('src', 'plugin-sdk') + path.sep))).toEqual([]);
  });
});

/**
 * the modules a file needs when it runs: imports that bring a value (an `import type`, or one
 * naming only types, is erased) and import() calls outside types (a module loaded later is still
 * loaded: a loop through one is a loop)
 */
function runtimeTargets(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+['"](\.{1,2}\/[^'"]+)['"]/gms)) {
    if (m[1]) continue;
    const named = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    if (named && named[1]!.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    specs.push(m[3]!);
  }
  for (const m of text.matchAll(/(typeof\s+)?\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g)) if (!m[1]) specs.push(m[2]!);
  return specs.map((spec) => path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts'));
}

/** every module a file names (relativeTargets), as the file it is */
const allTargets = (file: string) => relativeTargets(file).map((t) => t.replace(/\.js$/, '.ts'));

/** groups of files that import each other in a loop (Tarjan's strongly connected components) */
function importCycles(files: string[], targets: (file: string) => string[]): string[][] {
  const graph = new Map(files.map((f) => [f, targets(f).filter((t) => files.includes(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group = stack.splice(stack.indexOf(v));
      if (group.length > 1) cycles.push(group.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import cycles', () => {
  it('no files of src/ or plugins/ import each other in a loop (type-only imports aside, import() included)', () => {
    expect(importCycles([...sourceFiles('src'), ...sourceFiles('plugins')], runtimeTargets)).toEqual([]);
  });

  it('nor through a type: a type two files share lives below both (a shape of its own, or with the lower one)', () => {
    expect(importCycles([...sourceFiles('src'), ...sourceFiles('plugins')], allTargets)).toEqual([]);
  });
});
