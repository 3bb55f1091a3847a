/** The top functions of a V8 CPU profile by self time (bench/mcp-call-profile.ts, bench/tool-call-steps.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** a V8 CPU profile's functions by self time (its samples), as a share of the samples not idle */
export function selfTimes(file: string, count: number): { share: number; name: string }[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: ProfileNode[] };
  const byName = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += hits;
    const where = url ? `${url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    byName.set(name, (byName.get(name) ?? 0) + hits);
  }
  return [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, hits]) => ({ share: hits / total, name }));
}
