import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { gatewayBase, unreachableGateway } from '../admin/gateway-address.js';

const USAGE = 'usage: herald knowledge upload --agent ID [--url URL] [--api-key KEY] [--chunk-size N] [--chunk-overlap N] [--metadata JSON] FILE...';

/** the gateway to talk to: --url, else the config's listener, else the default one */
async function gatewayUrl(flag: string | undefined, configFlag: string | undefined, builtins: PluginSource[]): Promise<string> {
  if (flag) return flag.replace(/\/+$/, '');
  const file = configPathFrom(configFlag);
  if (!fs.existsSync(file)) return 'http://127.0.0.1:8787';
  return gatewayBase((await loadConfigFile(file, { builtins })).config.gateway, undefined);
}

function progressBar(done: number, total: number, failed: number): string {
  const width = 24;
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} files done${failed ? `, ${failed} failed` : ''}`;
}

/**
 * `herald knowledge upload --agent ID FILE...`: uploads files to a running gateway over its
 * /v1 API (the same checks as any client: types, limits, duplicates), with a progress bar on
 * stderr and one line per file on stdout. The key comes from --api-key or HERALD_API_KEY.
 */
export async function knowledgeUploadCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
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
  const draw = (done: number) => io.stderr.write(`${tty ? '\r' : ''}${progressBar(done, positionals.length, failed)}${tty ? '' : '\n'}`);
  draw(0);
  for (const [i, file] of positionals.entries()) {
    const line = await uploadOne(base, apiKey, values.agent, file, values).catch((error: Error) => ({ ok: false, text: `${path.basename(file)}: ${error.message}` }));
    if (!line.ok) failed++;
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
  options: { 'chunk-size'?: string; 'chunk-overlap'?: string; metadata?: string; url?: string },
): Promise<{ ok: boolean; text: string }> {
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
  const res = await postForm(`${base}/v1/knowledge/upload`, apiKey, form).catch((error: Error) => {
    throw new Error(unreachableGateway(base, error.message, options.url));
  });
  let body: { id?: string; chunk_count?: number; error?: { code?: string; message?: string } } = {};
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    // not JSON (a proxy's page): the status says enough
  }
  if (res.status === 201 || res.status === 200) {
    const state = res.status === 201 ? 'added' : 'already there';
    return { ok: true, text: `${name}: ${body.chunk_count} chunk${body.chunk_count === 1 ? '' : 's'}, ${body.id} (${state})` };
  }
  return { ok: false, text: `${name}: error ${res.status}${body.error?.code ? ` ${body.error.code}` : ''}: ${body.error?.message ?? (res.text.slice(0, 200) || 'no message')}` };
}

/**
 * POSTs a form and returns the server's answer even when the server answers before reading the
 * whole body (a 413 for a file over the limit) and closes the connection under the upload: the
 * write then fails (EPIPE, ECONNRESET), but the answer already arrived and is what the user needs.
 */
async function postForm(url: string, apiKey: string, form: FormData): Promise<{ status: number; text: string }> {
  const encoded = new Request(url, { method: 'POST', body: form });
  const payload = Buffer.from(await encoded.arrayBuffer());
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': payload.byteLength },
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      // the server may have answered and closed while we were still writing: give its answer a moment to be read
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') setTimeout(() => answered || reject(describe(error)), 1000);
      else reject(describe(error));
    });
    request.end(payload);
  });
}

const describe = (error: NodeJS.ErrnoException) => new Error(error.code ? `${error.code}${error.message.includes(error.code) ? '' : `: ${error.message}`}` : error.message);
