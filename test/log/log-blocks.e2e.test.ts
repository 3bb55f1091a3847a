import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { LogBlocks } from '../../src/log/log-blocks.js';

/** what reached the destination, one entry per write */
function recorder() {
  const writes: string[] = [];
  return { writes, write: (block: string) => void writes.push(block) };
}

describe('log lines written in blocks', () => {
  it('gathers lines until 4 KiB, then hands them on in one write, in order', () => {
    const out = recorder();
    const blocks = new LogBlocks(out);
    const line = `${JSON.stringify({ msg: 'request', pad: 'x'.repeat(80) })}\n`;
    const count = Math.ceil(4096 / line.length);
    for (let i = 0; i < count - 1; i++) blocks.write(line);
    expect(out.writes).toEqual([]);
    blocks.write(line);
    expect(out.writes).toEqual([line.repeat(count)]);
  });

  it('hands on what is gathered when flushed (the timer, logger.flush()), and writes nothing when nothing was logged', () => {
    const out = recorder();
    const blocks = new LogBlocks(out);
    blocks.flush();
    expect(out.writes).toEqual([]);
    blocks.write('{"msg":"one"}\n');
    blocks.flush();
    blocks.flush();
    expect(out.writes).toEqual(['{"msg":"one"}\n']);
  });

  it('runs no timer while nothing is gathered, and writes a lone line within 100 ms (an idle process is not woken)', async () => {
    // the one timer of the process's blocks, armed by an earlier test's lines, fires first
    await new Promise((resolve) => setTimeout(resolve, 150));
    vi.useFakeTimers();
    try {
      const out = recorder();
      const blocks = new LogBlocks(out);
      expect(vi.getTimerCount()).toBe(0);
      blocks.write('{"msg":"one"}\n');
      blocks.write('{"msg":"two"}\n');
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(99);
      expect(out.writes).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(out.writes).toEqual(['{"msg":"one"}\n{"msg":"two"}\n']);
      expect(vi.getTimerCount()).toBe(0);
      blocks.write('{"msg":"three"}\n');
      vi.advanceTimersByTime(100);
      expect(out.writes).toEqual(['{"msg":"one"}\n{"msg":"two"}\n', '{"msg":"three"}\n']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('calls back once the destination has written what was gathered (serve waits for it before exiting)', async () => {
    const out = { ...recorder(), flush: (done: () => void) => setImmediate(done) };
    const blocks = new LogBlocks(out);
    blocks.write('{"msg":"stopped"}\n');
    await new Promise<void>((resolve) => blocks.flush(() => resolve()));
    expect(out.writes).toEqual(['{"msg":"stopped"}\n']);
    await new Promise<void>((resolve) => new LogBlocks(recorder()).flush(() => resolve()));
  });

  it('writes what is left synchronously at exit', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-log-blocks-')), 'out.log');
    const fd = fs.openSync(file, 'w');
    const blocks = new LogBlocks(recorder(), fd);
    blocks.write('{"msg":"shutting down"}\n');
    blocks.flushSync();
    fs.closeSync(fd);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"msg":"shutting down"}\n');
  });

  it('passes every line to a herald process\'s stdout before it exits', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `import { createLogger } from ${JSON.stringify(path.resolve('src/log/log.ts'))};
      const logger = createLogger({ level: 'info' });
      for (let i = 0; i < 3; i++) logger.info({ n: i }, 'line');
      process.exit(0);`;
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l).n)).toEqual([0, 1, 2]);
  });
});
