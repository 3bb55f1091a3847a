/**
 * Does a large upload cost other requests their latency? herald runs in its own process; a
 * second process (healthz-probe.ts) sends GET /healthz every 5 ms while this one uploads a
 * 20 MB text document to /v1/knowledge/upload, from the first byte sent to the answer.
 * Prints the probe's p50/p99/max over that window.
 * Standalone: `node --import tsx bench/ingest.bench.ts`; `bench/run.ts` calls `run()`.
 * Figures are printed, never asserted: they depend on the machine.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startChildServer } from './child-server.js';
import { writeBenchConfig } from './bench-herald-config.js';

const API_KEY = 'sk-bench-0123456789abcdef';

export interface IngestBenchResult {
  documentBytes: number;
  uploadStatus: number;
  chunks: number;
  uploadSeconds: number;
  healthz: { requests: number; failures: number; p50Ms: number; p99Ms: number; maxMs: number };
}

/** ~`bytes` of prose-like text: sentences of pseudo-random words, paragraphs every few lines */
function document(bytes: number): Buffer {
  let seed = 7;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const words = Array.from({ length: 5000 }, () => Array.from({ length: 3 + Math.floor(rand() * 7) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rand() * 26)]).join(''));
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentence = `${Array.from({ length: 8 + Math.floor(rand() * 12) }, () => words[Math.floor(words.length * rand() ** 2)]).join(' ')}.${rand() < 0.2 ? '\n\n' : ' '}`;
    parts.push(sentence);
    size += sentence.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

function startProbe(url: string): Promise<{ finish(): Promise<IngestBenchResult['healthz']> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/healthz-probe.ts', url, '5'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`probe exited ${code}`)));
    const check = setInterval(() => {
      if (!output.includes('probing')) return;
      clearInterval(check);
      resolve({
        finish: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done(JSON.parse(output.trim().split('\n').pop()!)));
            child.stdin!.end();
          }),
      });
    }, 20);
  });
}

export async function run(options: { bytes?: number } = {}): Promise<IngestBenchResult> {
  const bytes = options.bytes ?? 20_000_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-ingest-'));
  const configFile = writeBenchConfig(dir, API_KEY);
  const herald = await startChildServer({ name: 'herald', args: ['bin/herald.mjs', 'serve', '--config', configFile], cwd: process.cwd(), env: { HERALD_LOG_LEVEL: 'warn' } });
  try {
    const body = document(bytes);
    const form = new FormData();
    form.append('agent_id', 'agent');
    form.append('file', new Blob([body]), 'large.txt');
    const probe = await startProbe(herald.url);
    const started = performance.now();
    const res = await fetch(`${herald.url}/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
    const answer = (await res.json()) as { chunk_count?: number };
    const uploadSeconds = Math.round((performance.now() - started) / 10) / 100;
    const healthz = await probe.finish();
    return { documentBytes: bytes, uploadStatus: res.status, chunks: answer.chunk_count ?? 0, uploadSeconds, healthz };
  } finally {
    await herald.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function print(result: IngestBenchResult): void {
  const h = result.healthz;
  console.log(`ingest: a ${(result.documentBytes / 1e6).toFixed(0)} MB text upload -> ${result.uploadStatus}, ${result.chunks} chunks in ${result.uploadSeconds} s`);
  console.log(`  GET /healthz meanwhile (one every 5 ms from another process, timed from when due): ${h.requests} answers, p50 ${h.p50Ms} ms, p99 ${h.p99Ms} ms, max ${h.maxMs} ms, ${h.failures} failures`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    (result) => {
      print(result);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
