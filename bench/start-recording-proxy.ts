import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, startInScratchDir, type ChildServer } from './child-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** bench/chat-recording-proxy.ts in its own process, fronting `upstream`, on a database of its own that goes when it stops */
export function startRecordingProxy(upstream: ChildServer, key: string): Promise<ChildServer> {
  return startInScratchDir('herald-bench-recording-', (dir) =>
    startChildServer({ name: 'recording', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-recording-proxy.ts'), upstream.url, key, path.join(dir, 'records.db')], cwd: ROOT }),
  );
}
