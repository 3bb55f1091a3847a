import fs from 'node:fs';
import path from 'node:path';
import { expandHome } from './loading/home-path.js';

/** herald's default, the repository's top-level folder */
export const DEFAULT_TRANSFORMS_DIR = './transforms';
/** OpenClaw's default root, `<config dir>/hooks/transforms`: a relative transformsDir names a folder inside it */
const OPENCLAW_ROOT = path.join('hooks', 'transforms');

/** the path itself when it exists, else its nearest existing folder's real path with the rest joined on */
function realPathOf(p: string): string {
  const rest: string[] = [];
  let at = p;
  while (!fs.existsSync(at) && path.dirname(at) !== at) {
    rest.unshift(path.basename(at));
    at = path.dirname(at);
  }
  return path.join(fs.realpathSync(at), ...rest);
}

/**
 * Where transforms are loaded from. herald's `./transforms` (any relative path) is relative to the
 * config file's folder; OpenClaw's layout works unchanged: without a `./transforms` folder the
 * default is `<config dir>/hooks/transforms`, and a relative name found only inside that root is
 * taken from there. A relative transformsDir must stay inside the config file's folder (`..` or a
 * symlink pointing out is a fault naming the key, as OpenClaw refuses it); an absolute one (or
 * `~/...`) is the operator's explicit choice, as a container image's `/app/transforms` is.
 */
export function transformsFolder(configDir: string, value: string): { dir: string; fault?: string } {
  const expanded = expandHome(value);
  let dir = path.resolve(configDir, expanded);
  if (!path.isAbsolute(expanded) && !fs.existsSync(dir)) {
    const openclaw = path.resolve(configDir, OPENCLAW_ROOT, value === DEFAULT_TRANSFORMS_DIR ? '.' : expanded);
    if (fs.existsSync(openclaw)) dir = openclaw;
  }
  if (path.isAbsolute(expanded)) return { dir };
  const root = realPathOf(configDir);
  const relative = path.relative(root, realPathOf(dir));
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return { dir, fault: `hooks.transformsDir: ${dir} is outside the config file's folder (${root}): transforms are loaded only from inside it` };
  }
  return { dir };
}
