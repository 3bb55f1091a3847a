import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../plugin-host/load-config.js';
import type { PluginDefinition } from '../plugins/sdk.js';
import type { CliIo } from './cli-io.js';
import { configPathFrom } from './config-path.js';

const USAGE = 'usage: herald knowledge upload --agent ID [--url URL] [--api-key KEY] [--chunk-size N] [--chunk-overlap N] [--metadata JSON] FILE...';

/** the gateway to talk to: --url, else the config's listener, else the default one */
async function gatewayUrl(flag: string | undefined, configFlag: string | undefined, builtins: PluginDefinition[]): Promise<string> {
  if (flag) return flag.replace(/\/+$/, '');
  const file = configPathFrom(configFlag);
  if (!fs.existsSync(file)) return 'http://127.0.0.1:8787';
  const { host, port } = (await loadConfigFile(file, { builtins })).config.gateway;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

function progressBar(done: number, total: number, bytes: number): string {
  const width = 24;
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files, ${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * `herald knowledge upload --agent ID FILE...`: uploads files to a running gateway over its
 * /v1 API (the same checks as any client: types, limits, duplicates), with a progress bar on
 * stderr and one line per file on stdout. The key comes from --api-key or HERALD_API_KEY.
 */
export async function knowledgeUploadCommand(argv: string[], io: CliIo, builtins: PluginDefinition[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      agent: { type: 'string', short: 'a' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'chunk-size': { type: 'string' },
      'chunk-overlap': { type: 'string' },
      metadata: { type: 'string' },
      config: { type: 'string', short: 'c' },
    },
  });
  const apiKey = values['api-key'] ?? process.env.HERALD_API_KEY;
  if (!values.agent || positionals.length === 0) {
    io.err(USAGE);
    return 2;
  }
  if (!apiKey) {
    io.err('herald: an API key is needed: pass --api-key or set HERALD_API_KEY (create one with `herald keys create --name NAME`)');
    return 2;
  }
  const base = await gatewayUrl(values.url, values.config, builtins);
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
  let failed = 0;
  let sentBytes = 0;
  const draw = (done: number) => io.stderr.write(`${tty ? '\r' : ''}${progressBar(done, positionals.length, sentBytes)}${tty ? '' : '\n'}`);
  draw(0);
  for (const [i, file] of positionals.entries()) {
    const line = await uploadOne(base, apiKey, values.agent, file, values).catch((error: Error) => ({ ok: false, text: `${path.basename(file)}: ${error.message}`, bytes: 0 }));
    if (!line.ok) failed++;
    sentBytes += line.bytes;
    if (tty) io.stderr.write('\r\x1b[K');
    io.out(line.text);
    draw(i + 1);
  }
  if (tty) io.stderr.write('\n');
  io.err(`${positionals.length - failed} uploaded, ${failed} failed`);
  return failed ? 1 : 0;
}

async function uploadOne(
  base: string,
  apiKey: string,
  agent: string,
  file: string,
  options: { 'chunk-size'?: string; 'chunk-overlap'?: string; metadata?: string },
): Promise<{ ok: boolean; text: string; bytes: number }> {
  const name = path.basename(file);
  const bytes = await fs.promises.readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? 'no such file' : error.message);
  });
  const form = new FormData();
  form.append('agent_id', agent);
  if (options['chunk-size']) form.append('chunk_size', options['chunk-size']);
  if (options['chunk-overlap']) form.append('chunk_overlap', options['chunk-overlap']);
  if (options.metadata) form.append('metadata', options.metadata);
  form.append('file', new Blob([bytes]), name);
  let res: Response;
  try {
    res = await fetch(`${base}/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  } catch (error) {
    throw new Error(`cannot reach ${base} (${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}); is \`herald serve\` running?`);
  }
  const body = (await res.json().catch(() => ({}))) as { id?: string; chunk_count?: number; error?: { code?: string; message?: string } };
  if (res.status === 201 || res.status === 200) {
    const state = res.status === 201 ? 'added' : 'already there';
    return { ok: true, text: `${name}: ${body.chunk_count} chunk${body.chunk_count === 1 ? '' : 's'}, ${body.id} (${state})`, bytes: bytes.byteLength };
  }
  return { ok: false, text: `${name}: error ${res.status} ${body.error?.code ?? ''}: ${body.error?.message ?? res.statusText}`, bytes: 0 };
}
