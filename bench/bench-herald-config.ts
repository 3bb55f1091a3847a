import fs from 'node:fs';
import path from 'node:path';

/** what a bench's herald has beyond the common part (writeBenchConfig) */
export interface BenchConfigParts {
  /** the agent's fields beside its id (`agent`) */
  agent?: Record<string, unknown>;
  models?: unknown;
  /** the platform API's rate limit (`platform.rateLimit`) */
  rateLimit?: unknown;
}

/**
 * A benchmarked herald's config, written to `<dir>/herald.json` (its path returned): on 127.0.0.1
 * at a free port, SQLite in `dir`, no heartbeat, one agent `agent` and one platform key `bench`.
 */
export function writeBenchConfig(dir: string, apiKey: string, parts: BenchConfigParts = {}): string {
  const file = path.join(dir, 'herald.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0 },
      storage: { sqlite: './herald.db' },
      heartbeat: { every: '0' },
      ...(parts.models !== undefined && { models: parts.models }),
      agents: { list: [{ id: 'agent', ...parts.agent }] },
      platform: { apiKeys: [{ name: 'bench', key: apiKey }], ...(parts.rateLimit !== undefined && { rateLimit: parts.rateLimit }) },
    }),
  );
  return file;
}
