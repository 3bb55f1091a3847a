import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importModule } from './import-module.mjs';
import { typescriptLoader } from './typescript-loader.js';

export const TRANSFORM_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts'];

/** What a transform is called with. */
export interface TransformContext {
  payload: unknown;
  headers: Record<string, string>;
  query: Record<string, string>;
  path: string;
  url: string;
  /** the mapping being applied, as configured (with its resolved id) */
  mapping: Record<string, unknown>;
}

export type TransformFunction = (ctx: TransformContext) => unknown;

/** A transform that cannot be used as configured: the caller turns it into a ConfigError. */
export class TransformConfigError extends Error {}

/**
 * The folder or the module is not there (yet): OpenClaw loads a transform on first use, so a
 * config naming one that is missing still starts; the mapping fails (500) until the file appears.
 */
export class TransformMissingError extends TransformConfigError {}

const requireModule = createRequire(import.meta.url);

/**
 * Loads transform modules from `hooks.transformsDir`, never from outside it (realpath, so a
 * symlink cannot point out), and caches each function by file and export. The file's mtime,
 * ctime and size are checked on every use: an edited transform is reloaded without a restart.
 */
export class TransformLoader {
  private readonly cache = new Map<string, { version: string; fn: TransformFunction }>();

  constructor(readonly dir: string) {}

  /** The real path of `module` inside the folder; throws TransformConfigError otherwise. */
  resolve(module: string): string {
    if (path.isAbsolute(module)) throw new TransformConfigError(`"${module}" must be a path relative to hooks.transformsDir, not an absolute path`);
    const ext = path.extname(module).toLowerCase();
    if (!TRANSFORM_EXTENSIONS.includes(ext)) {
      throw new TransformConfigError(`"${module}" must end in ${TRANSFORM_EXTENSIONS.join(', ')}`);
    }
    let realDir: string;
    try {
      realDir = fs.realpathSync(this.dir);
    } catch {
      throw new TransformMissingError(`hooks.transformsDir ${this.dir} does not exist`);
    }
    const candidate = path.resolve(this.dir, module);
    const relative = path.relative(this.dir, candidate);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) throw new TransformConfigError(`"${module}" is outside hooks.transformsDir (${this.dir})`);
    let real: string;
    try {
      real = fs.realpathSync(candidate);
    } catch {
      throw new TransformMissingError(`"${module}" not found in hooks.transformsDir (${this.dir})`);
    }
    if (!real.startsWith(realDir + path.sep)) {
      throw new TransformConfigError(`"${module}" resolves outside hooks.transformsDir (${real}): symlinks may not leave the folder`);
    }
    if (!fs.statSync(real).isFile()) throw new TransformConfigError(`"${module}" is not a file`);
    return real;
  }

  /** the real path of `file`, which must still lie inside the folder */
  private contained(file: string): string {
    const real = fs.realpathSync(file);
    const realDir = fs.realpathSync(this.dir);
    if (!real.startsWith(realDir + path.sep)) {
      throw new TransformConfigError(`${path.basename(file)} now resolves outside hooks.transformsDir: symlinks may not leave the folder`);
    }
    return real;
  }

  /** The transform function, from the cache unless the file changed since it was loaded. */
  async load(file: string, exportName?: string): Promise<TransformFunction> {
    // contained again on every use, not only at start: the file may have been replaced since by a
    // symlink to something outside the folder. What is checked (the real path) is what is imported.
    const real = this.contained(file);
    // ctime and size too: a copy that keeps an old mtime (cp -p, an unpacked archive) is still a change
    const { mtimeMs, ctimeMs, size } = fs.statSync(real);
    const version = `${Math.round(mtimeMs * 1000)}-${Math.round(ctimeMs * 1000)}-${size}`;
    const key = `${file}#${exportName ?? ''}`;
    const cached = this.cache.get(key);
    if (cached && cached.version === version) return cached.fn;
    const fn = pickExport(await importFresh(real, version), exportName, path.basename(file));
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
