import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point downward (README "Layout"): these are the rules a reviewer would otherwise
 * check by hand, read from the import statements of the source files themselves.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.mts') ? [rel] : [];
  });
}

/** every relative module a file names, in import/export statements, import() calls and new URL(...) */
function relativeTargets(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((spec) => path.normalize(path.join(path.dirname(file), spec)));
}

function violations(files: string[], allowed: (target: string) => boolean): string[] {
  return files.flatMap((file) => relativeTargets(file).filter((t) => !allowed(t)).map((t) => `${file} -> ${t}`));
}

describe('dependency direction', () => {
  it('src/ never imports a file of plugins/ (the entry point hands the built-in list in)', () => {
    expect(violations(sourceFiles('src'), (t) => !t.startsWith(`plugins${path.sep}`) && t !== 'plugins')).toEqual([]);
  });

  it('src/config imports nothing above it', () => {
    expect(violations(sourceFiles('src/config'), (t) => t.startsWith(`src${path.sep}config${path.sep}`) || t === path.join('src', 'errors.js'))).toEqual([]);
  });

  it('plugins use only the SDK (src/plugins)', () => {
    expect(violations(sourceFiles('plugins'), (t) => t.startsWith(`plugins${path.sep}`) || t.startsWith(path.join('src', 'plugins') + path.sep))).toEqual([]);
  });

  it('the SDK knows nothing of the host that instantiates plugins', () => {
    expect(violations(sourceFiles('src/plugins'), (t) => !t.startsWith(path.join('src', 'plugin-host') + path.sep))).toEqual([]);
  });
});

/** the modules a file needs when it runs: imports that bring a value (an `import type`, or one naming only types, is erased) */
function runtimeTargets(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const targets: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+['"](\.{1,2}\/[^'"]+)['"]/gms)) {
    if (m[1]) continue;
    const named = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    if (named && named[1]!.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    targets.push(path.normalize(path.join(path.dirname(file), m[3]!)).replace(/\.js$/, '.ts'));
  }
  return targets;
}

/** groups of files that import each other in a loop (Tarjan's strongly connected components) */
function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, runtimeTargets(f).filter((t) => files.includes(t))]));
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
  it('no files of src/ or plugins/ import each other in a loop (type-only imports aside)', () => {
    expect(importCycles([...sourceFiles('src'), ...sourceFiles('plugins')])).toEqual([]);
  });
});
