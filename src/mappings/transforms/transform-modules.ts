import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importModule } from './import-module.mjs';
import { TransformConfigError, type TransformFunction } from './transform-runner.js';
import { typescriptLoader } from './typescript-loader.js';

const requireModule = createRequire(import.meta.url);

/**
 * Imported transform functions, cached by file and export and kept while the file's version
 * (the caller's stat of it) is the same: an edited transform is imported again without a restart.
 * One per thread: the gateway's transform workers each hold one, `herald hooks test` its own.
 */
export class TransformModules {
  private readonly cache = new Map<string, { version: string; fn: TransformFunction }>();

  async get(file: string, version: string, exportName?: string): Promise<TransformFunction> {
    const key = `${file}#${exportName ?? ''}`;
    const cached = this.cache.get(key);
    if (cached && cached.version === version) return cached.fn;
    const fn = pickExport(await importFresh(file, version), exportName, path.basename(file));
    this.cache.set(key, { version, fn });
    return fn;
  }
}

/** Imports a module past the runtime's module cache, so an edited file is read again. */
async function importFresh(file: string, version: string): Promise<Record<string, unknown>> {
  // a .js or .ts file outside a "type": "module" package is CommonJS even when imported
  delete requireModule.cache[file];
  if (path.extname(file).toLowerCase() === '.ts') await typescriptLoader();
  if (path.extname(file).toLowerCase() === '.cjs') {
    const exported = requireModule(file) as unknown;
    return typeof exported === 'function' ? { default: exported } : (exported as Record<string, unknown>);
  }
  // the query string makes a new ESM cache entry; tsx (and vitest) load .ts files the same way
  return importModule(`${pathToFileURL(file).href}?v=${version}`);
}

/**
 * `export` if named, else `default`, else `transform`. A CommonJS module's exports count as its
 * default; an ES module compiled to CommonJS (a `.ts` file outside a `"type": "module"`
 * package) arrives as `{ default: { default, transform, ... } }`.
 */
export function pickExport(mod: Record<string, unknown>, exportName: string | undefined, label: string): TransformFunction {
  const inner = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>) : {};
  const asFunction = (value: unknown) => (typeof value === 'function' ? value : undefined);
  const fn = exportName
    ? (asFunction(mod[exportName]) ?? inner[exportName])
    : (asFunction(mod.default) ?? asFunction(mod.transform) ?? asFunction(inner.default) ?? inner.transform);
  if (typeof fn !== 'function') {
    throw new TransformConfigError(
      exportName ? `${label}: export "${exportName}" is not a function` : `${label}: neither the default export nor "transform" is a function`,
    );
  }
  return fn as TransformFunction;
}
