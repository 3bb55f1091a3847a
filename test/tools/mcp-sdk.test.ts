import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMcpSdk, loadedMcpSdk } from '../../src/tools/mcp/mcp-sdk.js';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

describe('the MCP SDK', () => {
  // a static import anywhere would load it with herald's bundle, at every start, servers or not
  it('is imported only by src/tools/mcp/mcp-sdk.ts, which loads it with the first connection, and by the /mcp server, loaded with its first request; elsewhere only its types', () => {
    const importers = [...sourceFiles('src'), ...sourceFiles('plugins')].filter((file) =>
      /^\s*(import|export)\s+(?!type\b)[^;]*from\s+['"]@modelcontextprotocol\/sdk/m.test(fs.readFileSync(file, 'utf8')),
    );
    expect(importers.filter((file) => !file.startsWith(path.join('src', 'http', 'mcp')))).toEqual([]);
    // the /mcp server's room is mounted lazily: nothing else imports it
    expect(fs.readFileSync('src/http/create-app.ts', 'utf8')).toMatch(/import\('\.\/mcp\/mcp-route\.js'\)/);
    const staticImporters = [...sourceFiles('src')].filter((file) => !file.startsWith(path.join('src', 'http', 'mcp')) && /^\s*import\s+(?!type\b)[^;]*from\s+['"][./]*mcp\/(mcp-route|session-server)\.js['"]/m.test(fs.readFileSync(file, 'utf8')));
    expect(staticImporters).toEqual([]);
    expect(fs.readFileSync('src/tools/mcp/mcp-sdk.ts', 'utf8')).toMatch(/import\('@modelcontextprotocol\/sdk\/client\/index\.js'\)/);
  });

  it('is there once loaded, for telling its errors apart', async () => {
    const sdk = await loadMcpSdk();
    expect(loadedMcpSdk()).toBe(sdk);
    expect(new sdk.McpError(sdk.ErrorCode.ConnectionClosed, 'closed')).toBeInstanceOf(Error);
  });
});
