import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/herald.mjs', import.meta.url));

export interface SpawnedHerald {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  /** waits until stderr (human messages) or stdout (JSON log lines) matches */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** `node bin/herald.mjs <args>` as a real child process, its output captured */
export function spawnHerald(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): SpawnedHerald {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, HERALD_CONFIG: undefined, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += String(c)));
  child.stderr!.on('data', (c) => (err += String(c)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = err.match(pattern) ?? out.match(pattern);
        if (match) return match;
        // a process ended by a signal has no exit code, only its signal
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
          throw new Error(`no ${pattern} in output (exit ${child.exitCode ?? child.signalCode})\nstdout:\n${out}\nstderr:\n${err}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** a test's herald still running when it ends (a failed assertion before its stop): killed, and waited for */
export async function killLeftOver(spawned: SpawnedHerald | undefined): Promise<void> {
  if (spawned && spawned.child.exitCode === null && spawned.child.signalCode === null) {
    spawned.child.kill('SIGKILL');
    await spawned.exited;
  }
}
