// Whether dist/ (the compiled JavaScript `npm run build` writes) may run: it exists and no file of
// src/ or plugins/ changed since its build started. Engineers edit src/ while the test suite spawns
// bin/herald.mjs, so a build older than any source is never used: the sources run through tsx instead.
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DIST = path.join(ROOT, 'dist');
/** written last by the build, holding when it started: a failed or partial build has none */
export const STAMP = path.join(DIST, 'build.json');
export const SOURCE_DIRS = ['src', 'plugins'];

/**
 * the newest file modification under a folder (files only: a folder's own time changes when a
 * file is added, which a container's COPY does after the build; a deleted source is harmless, as
 * any source still importing it changed too). Synchronous: ~500 stats of cached inodes take a few
 * ms of one thread, where a promise per stat cost several times that in CPU, most of it on the
 * main thread anyway. Paths joined by hand: every start and every CLI command pays this walk
 * with cold code, and path.join would normalise each path, which the names readdir gives never need.
 */
function newestChange(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0; // not there (an image that ships dist/ only): nothing in it is newer
  }
  let newest = 0;
  for (const entry of entries) {
    const file = dir + path.sep + entry.name;
    const changed = entry.isDirectory() ? newestChange(file) : fs.statSync(file).mtimeMs;
    if (changed > newest) newest = changed;
  }
  return newest;
}

/** true when dist/ holds a finished build started after the last change to the sources */
export function buildIsFresh() {
  let startedAt;
  try {
    startedAt = JSON.parse(fs.readFileSync(STAMP, 'utf8')).startedAt;
  } catch {
    return false;
  }
  const newest = Math.max(...SOURCE_DIRS.map((d) => newestChange(path.join(ROOT, d))));
  return typeof startedAt === 'number' && newest < startedAt;
}
