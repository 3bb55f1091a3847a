import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** a server running in its own process, so its CPU and memory are its own */
export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone */
  stop(graceMs?: number): Promise<void>;
}

export interface ChildServerOptions {
  name: string;
  /** node arguments: flags, script, script arguments */
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** the line announcing the listening URL; its first group is the URL */
  listening?: RegExp;
  startTimeoutMs?: number;
}

/** node's arguments that have a server write a V8 CPU profile into `dir` when it stops (none without one) */
export function cpuProfileArgs(dir: string | undefined): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

/** Spawns `node <args>` and resolves with its URL once it prints its listening line. */
export function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const listening = options.listening ?? /listening on (http:\/\/\S+)/;
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    // stderr is passed through (warnings and errors are worth seeing) and scanned too: herald
    // announces its URL there (stdout holds its JSON log lines)
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(`[${options.name}] ${chunk}`);
      scan(chunk);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start in time; output:\n${output}`));
    }, options.startTimeoutMs ?? 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code} before listening; output:\n${output}`));
    });
    let announced = false;
    const scan = (chunk: Buffer) => {
      if (announced) return;
      output += chunk;
      const match = listening.exec(output);
      if (!match) return;
      announced = true;
      clearTimeout(timer);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({ name: options.name, url: match[1]!, pid: child.pid!, stop: (graceMs) => stopChild(child, exited, graceMs) });
    };
    child.stdout!.on('data', scan);
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * `start(dir)` in a new folder of the system's temporary ones (its store, its config), which goes
 * when the server stops, or at once when it fails to start
 */
export async function startInScratchDir(prefix: string, start: (dir: string) => Promise<ChildServer>): Promise<ChildServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const server = await Promise.resolve(dir).then(start).catch((error: unknown) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...server,
    stop: async (graceMs) => {
      await server.stop(graceMs);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
