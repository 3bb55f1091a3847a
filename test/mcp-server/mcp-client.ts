import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import type { TestApp } from '../http/app-fixture.js';

export interface ClientOptions {
  key: string;
  name?: string;
  /** declares elicitation, answering each request so */
  elicit?: (message: string) => 'accept' | 'decline';
}

/**
 * The MCP SDK's own client over Streamable HTTP to herald's /mcp, its requests answered by the
 * app (no socket), as any client that takes a `fetch` would be.
 */
export async function connectClient(h: Pick<TestApp, 'origin' | 'fetch'>, options: ClientOptions): Promise<Client> {
  const client = new Client({ name: options.name ?? 'test-client', version: '1.2.3' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({ action: answer(request.params.message) }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${h.origin}/mcp`), { fetch: h.fetch, requestInit: { headers: { authorization: `Bearer ${options.key}` } } });
  await client.connect(transport);
  onTestFinished(() => client.close().catch(() => undefined));
  return client;
}
