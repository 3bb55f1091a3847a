import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, type ChildServer } from './child-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** bench/chat-recording-proxy.ts in its own process, fronting `upstream`, on a database of its own that goes when it stops */
export async function startRecordingProxy(upstream: ChildServer, key: string): Promise<ChildServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-recording-'));
  const server = await startChildServer({ name: 'recording', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-recording-proxy.ts'), upstream.url, key, path.join(dir, 'records.db')], cwd: ROOT }).catch(
    (error) => {
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    },
  );
  return {
    ...server,
    stop: async (graceMs) => {
      await server.stop(graceMs);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
