import path from 'node:path';
import { Writable } from 'node:stream';
import { toolsSchema, type ToolsConfig } from '../../src/config/sections/tools-schema.js';
import { createLogger } from '../../src/log/log.js';
import { McpServers } from '../../src/tools/mcp/mcp-servers.js';
import { eventually, tempDir } from '../helpers/start-herald.js';

/** the reference server of every MCP feature, from npm (@modelcontextprotocol/server-everything) */
export const EVERYTHING = path.resolve('node_modules/.bin/mcp-server-everything');

export interface ServersUnderTest {
  servers: McpServers;
  tools: ToolsConfig;
  dir: string;
  /** every log line, raw */
  logs(): string;
  /** waits until the server's state is `state` */
  until(server: string, state: string): Promise<void>;
}

/** McpServers over `tools` (parsed as the config is), started, its logs captured at debug */
export function startServers(tools: Record<string, unknown>, dir = tempDir('herald-mcp-'), options: { checkEveryMs?: number } = {}): ServersUnderTest {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const parsed = toolsSchema.parse(tools);
  const servers = new McpServers({ tools: parsed, baseDir: dir, logger: createLogger({ level: 'debug', destination }), ...options });
  servers.start();
  return {
    servers,
    tools: parsed,
    dir,
    logs: () => lines.join(''),
    async until(server, state) {
      await eventually(() => servers.health().find((h) => h.server === server)?.state === state, 15_000);
    },
  };
}
