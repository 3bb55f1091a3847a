import { Writable } from 'node:stream';
import type { CliIo } from '../../src/cli/io/cli-io.js';

/** a CLI's output captured as printed: its lines and what it wrote to its streams (progress), in order */
export function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) => new Writable({ write: (chunk, _e, cb) => (into.push(String(chunk)), cb()) });
  const io: CliIo = { out: (l) => out.push(`${l}\n`), err: (l) => err.push(`${l}\n`), stdout: sink(out), stderr: sink(err) };
  return { io, out: () => out.join(''), err: () => err.join('') };
}
