import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../helpers/gc-hung-request.ts', import.meta.url));

/**
 * Node 20: `AbortSignal.any([shutdown, AbortSignal.timeout(ms)])` loses its timeout when garbage
 * collection runs during the request, and a platform that never answers then holds the call
 * forever. The calls run in a child process started with --expose-gc, which forces collections
 * every few milliseconds while the fake platform hangs; each call must end with its time limit.
 */
describe('a hung request ends at its time limit even when garbage collection runs meanwhile', () => {
  it('deliveries, the teams token, model calls and google calls', async () => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { name: string; ended: boolean; error: string | null });
    expect(code).toBe(0);
    expect(lines.map((l) => l.name)).toEqual(['delivery (telegram)', 'delivery (teams token)', 'model call (heartbeat, chat: deadline over the shutdown signal)', 'google call (gmail)']);
    for (const line of lines) {
      expect(line.ended, line.name).toBe(true);
      expect(line.error, line.name).toMatch(/timed out|aborted/i);
    }
  });
});
