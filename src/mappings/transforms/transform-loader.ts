import fs from 'node:fs';
import path from 'node:path';
import { TransformModules } from './transform-modules.js';
import { TransformConfigError, TransformMissingError, type LocatedTransform, type TransformFunction } from './transform-runner.js';

export const TRANSFORM_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts'];

/**
 * Finds transform modules in `hooks.transformsDir`, never outside it (realpath, so a symlink
 * cannot point out), and names each file's version: its mtime, ctime and size, read on every use,
 * so an edited transform is imported again (by whichever thread runs it) without a restart.
 */
export class TransformLoader {
  private readonly modules = new TransformModules();

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
      realDir = fs.realpathSync.native(this.dir);
    } catch {
      throw new TransformMissingError(`hooks.transformsDir ${this.dir} does not exist`);
    }
    const candidate = path.resolve(this.dir, module);
    const relative = path.relative(this.dir, candidate);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) throw new TransformConfigError(`"${module}" is outside hooks.transformsDir (${this.dir})`);
    let real: string;
    try {
      real = fs.realpathSync.native(candidate);
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
    const real = fs.realpathSync.native(file);
    const realDir = fs.realpathSync.native(this.dir);
    if (!real.startsWith(realDir + path.sep)) {
      throw new TransformConfigError(`${path.basename(file)} now resolves outside hooks.transformsDir: symlinks may not leave the folder`);
    }
    return real;
  }

  /** `file` checked again and stamped with its current version: what a runner imports and calls. */
  locate(file: string, exportName?: string): LocatedTransform {
    // contained again on every use, not only at start: the file may have been replaced since by a
    // symlink to something outside the folder. What is checked (the real path) is what is imported.
    const real = this.contained(file);
    // ctime and size too: a copy that keeps an old mtime (cp -p, an unpacked archive) is still a change
    const { mtimeMs, ctimeMs, size } = fs.statSync(real);
    const version = `${Math.round(mtimeMs * 1000)}-${Math.round(ctimeMs * 1000)}-${size}`;
    return { file: real, version, ...(exportName !== undefined && { exportName }) };
  }

  /** The transform function, imported in this thread (cached until the file changes). */
  async load(file: string, exportName?: string): Promise<TransformFunction> {
    const located = this.locate(file, exportName);
    return this.modules.get(located.file, located.version, located.exportName);
  }
}
