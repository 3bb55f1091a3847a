import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer, OversizedLineError } from './line-framer.js';
import type { McpSdk } from './mcp-sdk.js';
import { oversizedError } from './oversized.js';
import { TickWriter } from './tick-writer.js';

/** how long a stopping server gets after its stdin closes, then after SIGTERM, before the next step */
export const STOP_GRACE_MS = 2000;

/** POSIX only: on Windows `detached` opens a console of its own, and there are no process groups to signal */
const GROUPS = process.platform !== 'win32';

export interface StdioServerParams {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd: string;
  maxBufferSize: number;
}

/**
 * A stdio MCP server as a process group of its own: the SDK's StdioClientTransport signals only
 * the process it started, so a server started through `sh -c` (or any that starts children) left
 * those children running, holding its pipes, past herald's shutdown. This one starts the server
 * detached (its own group) and stops it as the MCP spec's stdio shutdown says, to the whole group:
 * stdin closed, then SIGTERM, then SIGKILL, each after STOP_GRACE_MS
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#stdio).
 */
export class StdioGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** the server's stderr, readable before start() so no early line is lost */
  readonly stderr = new PassThrough();
  private child?: ChildProcess;
  private closed?: Promise<void>;
  private readonly framer: LineFramer;
  /** the messages sent in one tick go to stdin as one write */
  private readonly stdin = new TickWriter(() => this.child?.stdin ?? undefined);
  /** an answer past the size limit was refused: nothing more of the server's stdout is read */
  private refused = false;

  constructor(
    private readonly sdk: Pick<McpSdk, 'deserializeMessage' | 'serializeMessage' | 'getDefaultEnvironment'>,
    private readonly params: StdioServerParams,
  ) {
    this.framer = new LineFramer(params.maxBufferSize);
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the stdio transport is already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args ?? [], {
        // the SDK's minimal inherited environment (HOME, PATH, ...) under the server's own `env`
        env: { ...this.sdk.getDefaultEnvironment(), ...this.params.env },
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: GROUPS,
        windowsHide: true,
      });
      this.child = child;
      this.closed = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      // the server itself ended: whatever it started goes too, else its children would hold its pipes open
      child.once('exit', () => this.signalGroup('SIGTERM'));
      child.once('close', () => {
        this.framer.clear();
        this.onclose?.();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr!.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error('Not connected'));
    return this.stdin.write(this.sdk.serializeMessage(message));
  }

  /** stdin closed, then SIGTERM, then SIGKILL to the server's group; resolves once its pipes closed (or after the SIGKILL) */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.closed) return;
    this.stdin.flush();
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (await this.closedWithin(STOP_GRACE_MS)) return this.signalGroup('SIGTERM');
    this.signalGroup('SIGTERM');
    if (await this.closedWithin(STOP_GRACE_MS)) return this.signalGroup('SIGTERM');
    this.signalGroup('SIGKILL');
  }

  private read(chunk: Buffer): void {
    if (this.refused) return;
    let lines: string[];
    try {
      lines = this.framer.push(chunk);
    } catch (error) {
      if (!(error instanceof OversizedLineError)) throw error;
      // past the message limit: told (the connection closes itself), and its stdout no longer
      // read, so the server's further writes fail rather than cost herald their parsing
      this.refused = true;
      this.child?.stdout?.destroy();
      this.onerror?.(oversizedError(this.params.maxBufferSize));
      void this.close();
      return;
    }
    for (const line of lines) {
      let message: JSONRPCMessage;
      try {
        message = this.sdk.deserializeMessage(line);
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  private async closedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
    try {
      return await Promise.race([this.closed!.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** the whole group (its leader's pid is its id); a group already gone is no fault */
  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      if (GROUPS) process.kill(-pid, signal);
      else this.child!.kill(signal);
    } catch {
      // ESRCH: nothing of it is left
    }
  }
}
