import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from 'pino';
import { isStdioServer, type McpServerConfig, type ToolsConfig } from '../../config/sections/tools-schema.js';
import type { ToolCallOptions, ToolResult, ToolSpec } from '../tool-spec.js';
import { maxCallMs } from '../tool-policy.js';
import { callFailure, TOTAL_EXCEEDED } from './call-error.js';
import { capText } from '../result-cap.js';
import { resultText } from './call-result.js';
import { backoffMs, STEADY_MS } from './backoff.js';
import { faultMessage } from './fault-message.js';
import { loadedMcpSdk, loadMcpSdk, type McpSdk } from './mcp-sdk.js';
import { MAX_MESSAGE_BYTES, mcpTransport, OVERSIZED } from './mcp-transport.js';
import type { ToolServerHealth, ToolServerState } from './server-health.js';
import { listServerTools } from './tool-listing.js';
import { secretMask, type SecretMask } from './secret-mask.js';

export interface ConnectionDeps {
  server: string;
  config: McpServerConfig;
  /** the running tools section (limits read at each use: a reload changes them in place) */
  tools: ToolsConfig;
  baseDir: string;
  logger: Logger;
  /** how often an HTTP server is pinged while connected */
  checkEveryMs: number;
  /** its tools or its state changed */
  onChange(): void;
}

const CLIENT_INFO = { name: 'herald', version: '1' };
const SETUP_TIMEOUT_MS = 60_000;

/**
 * One MCP server, kept connected: made at start and again, with backoff, whenever it fails or
 * closes (a stdio server that exits is started again), until stopped. Its tools are read when it
 * connects and again when it says they changed. Calls go to the connection of the moment.
 */
export class McpConnection {
  private state: ToolServerState = 'connecting';
  private since = Date.now();
  private lastError?: string;
  private specs: ToolSpec[] = [];
  private listed?: number;
  private restarts = 0;
  /** the client while it is ready; undefined otherwise */
  private ready?: Client;
  /** the client being made or in use, closed by stop() */
  private current?: Client;
  private stopping = false;
  private supervising?: Promise<void>;
  private wake?: () => void;
  private relisting?: { client: Client; done: Promise<void> };
  private relistAgain = false;
  /** why herald closed the connection itself, told to the calls it fails */
  private transportFault?: string;
  private readonly log: Logger;
  /** the server's configured secrets masked in every text of it herald shows, logs or gives the model */
  private readonly mask: SecretMask;
  /** settles once the first connection was tried: ready, failed or stopped */
  private readonly firstTry: Promise<void>;
  private firstTried?: () => void;

  constructor(private readonly deps: ConnectionDeps) {
    this.log = deps.logger.child({ component: 'tools', server: deps.server });
    this.mask = secretMask(deps.config);
    this.firstTry = new Promise((resolve) => (this.firstTried = resolve));
  }

  /**
   * Until its first connection was tried (ready, failed or stopped): its tools are unknown
   * before, so a turn that needs them waits (bounded by the setup time limit). Undefined once tried.
   */
  untilTried(): Promise<void> | undefined {
    return this.firstTried ? this.firstTry : undefined;
  }

  get config(): McpServerConfig {
    return this.deps.config;
  }

  private get stdio(): boolean {
    return isStdioServer(this.deps.config);
  }

  /** the time limit of a call to this server's tools */
  private get timeoutMs(): number {
    return (this.deps.config.timeoutSeconds ?? this.deps.tools.callTimeoutSeconds) * 1000;
  }

  /** the time limit of connecting and of reading the tools: at least a minute (`npx` may download the server first) */
  private get setupTimeoutMs(): number {
    return Math.max(this.timeoutMs, SETUP_TIMEOUT_MS);
  }

  /** starts connecting in the background: never waits for the server */
  start(): void {
    this.supervising ??= this.supervise();
  }

  /** closes the connection (a stdio server's process is ended) and waits for it */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.current?.close().catch(() => undefined);
    await this.supervising;
    this.ready = undefined;
    this.specs = [];
    this.listed = undefined;
    this.set('stopped');
  }

  tools(): readonly ToolSpec[] {
    return this.specs;
  }

  /** why it cannot take calls now: its state and last connection error; undefined when ready */
  unavailable(): string | undefined {
    if (this.ready) return undefined;
    const why = this.lastError ? `: ${this.lastError}` : '';
    return `the server ${this.deps.server} is not available (${this.state}${why})`;
  }

  health(): ToolServerHealth {
    return {
      server: this.deps.server,
      transport: this.stdio ? 'stdio' : 'http',
      state: this.state,
      since: this.since,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      tools: this.specs.length,
      ...(this.listed !== undefined && { listed: this.listed }),
      restarts: this.restarts,
    };
  }

  /**
   * Calls one of its tools. The server's faults (not ready, an error, no answer in time, gone
   * mid-call, garbage) come back as an `isError` result naming what happened, never as a throw.
   */
  async call(tool: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    const { server } = this.deps;
    const maxChars = this.deps.tools.maxResultChars;
    const client = this.ready;
    if (!client) return { text: capText(this.unavailable() ?? `the server ${server} is not available`, maxChars), isError: true };
    const timeoutMs = Math.min(options.timeoutMs, this.timeoutMs);
    if (options.signal?.aborted) return callFailure(options.signal.reason, { server, stdio: this.stdio, timeoutMs, aborted: true, maxChars });
    const totalMs = maxCallMs(this.deps.tools, this.deps.config);
    // past the total limit the request is aborted: the SDK then tells the server (notifications/cancelled), as it does for the turn's abort and the timeout
    const total = new AbortController();
    const totalTimer = setTimeout(() => total.abort(new (loadedMcpSdk()!.McpError)(loadedMcpSdk()!.ErrorCode.RequestTimeout, TOTAL_EXCEEDED)), totalMs);
    const signal = options.signal ? AbortSignal.any([options.signal, total.signal]) : total.signal;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
        // the server's progress notifications (asked for by giving a progress handler) keep the call alive, up to its total limit
        onprogress: () => undefined,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: totalMs,
      });
      const text = resultText(result as Parameters<typeof resultText>[0], maxChars);
      return { ...text, text: this.mask(text.text) };
    } catch (error) {
      const failure = callFailure(error, { server, stdio: this.stdio, timeoutMs, totalMs, aborted: options.signal?.aborted === true, maxChars, transportFault: this.transportFault });
      // an HTTP server's connection has no process to watch: a failed request is the sign it is gone
      if (failure.lostConnection && !this.stdio && this.ready === client) {
        this.failed(error);
        void client.close().catch(() => undefined);
      }
      const { lostConnection: _, ...result } = failure;
      return { ...result, text: this.mask(result.text) };
    } finally {
      clearTimeout(totalTimer);
    }
  }

  private async supervise(): Promise<void> {
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (error) {
      // the SDK's own files cannot be loaded (a broken install): nothing to connect with
      if (!this.stopping) this.failed(error);
      return;
    }
    const { Client, ErrorCode, McpError, ToolListChangedNotificationSchema } = sdk;
    let failures = 0;
    while (!this.stopping) {
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      this.transportFault = undefined;
      this.current = client;
      const closed = new Promise<void>((resolve) => (client.onclose = resolve));
      client.onerror = (error) => this.transportError(client, error);
      let readyAt: number | undefined;
      try {
        await client.connect(mcpTransport(sdk, this.deps.config, { server: this.deps.server, baseDir: this.deps.baseDir, logger: this.deps.logger, mask: this.mask }), { timeout: this.setupTimeoutMs });
        if (this.stopping) break;
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          this.listing(client).catch((error: unknown) => this.log.warn({ error: this.mask(faultMessage(error)) }, 'tool server: reading its changed tools failed'));
        });
        await this.listing(client);
        if (this.stopping) break;
        this.ready = client;
        readyAt = Date.now();
        this.lastError = undefined;
        this.set('ready');
        this.log.info({ tools: this.specs.length }, 'tool server ready');
        await this.watch(client, closed);
        if (!this.stopping) this.failed(new Error(this.transportFault ?? (this.stdio ? 'the server exited' : 'the connection closed')));
      } catch (error) {
        // the SDK's "Connection closed" while connecting: for a stdio server, its process ended (a wrong command or argument, a crash at start)
        const exited = this.stdio && error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
        if (!this.stopping) this.failed(exited ? new Error('the server exited before it was ready (its stderr is in the log at debug)') : error);
      } finally {
        if (this.ready === client) this.ready = undefined;
        await client.close().catch(() => undefined);
      }
      if (this.stopping) break;
      if (readyAt !== undefined && Date.now() - readyAt >= STEADY_MS) failures = 0;
      await this.pause(backoffMs(failures++));
      this.restarts++;
    }
  }

  /**
   * Waits while the connection holds. A stdio server's process says when it ends; an HTTP
   * server has no connection to lose, so it is pinged every `checkEveryMs` (MCP's ping): one
   * that does not answer (gone, restarted and so without the session) is connected again.
   */
  private async watch(client: Client, closed: Promise<void>): Promise<void> {
    if (this.stdio) return closed;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<'check'>((resolve) => (timer = setTimeout(resolve, this.deps.checkEveryMs, 'check')));
      const next = await Promise.race([closed.then(() => 'closed' as const), tick]);
      clearTimeout(timer);
      if (next === 'closed' || this.stopping) return;
      await client.ping({ timeout: this.timeoutMs });
    }
  }

  /**
   * Most transport faults surface as a failed request or a close, and are only noted here. An
   * answer past the size limit leaves its request waiting (inside an HTTP event stream) or ends
   * the stdio server: the connection is closed, which fails the request at once saying why (and
   * the connection is made again).
   */
  private transportError(client: Client, error: Error): void {
    if (error.message.includes(OVERSIZED)) {
      this.transportFault = `the server's answer is larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`;
      void client.close().catch(() => undefined);
      return;
    }
    this.log.debug({ error: this.mask(faultMessage(error)) }, 'tool server transport error');
  }

  private failed(error: unknown): void {
    this.ready = undefined;
    this.lastError = this.mask(faultMessage(error));
    if (this.state === 'failed') return;
    this.log.warn({ error: this.lastError }, 'tool server failed; it is connected again with backoff');
    this.set('failed');
  }

  private set(state: ToolServerState): void {
    if (state === this.state) return;
    // `since` is when it became ready, or since when it has not been: connecting and failed in turn keep it
    if (state === 'ready' || this.state === 'ready' || state === 'stopped') this.since = Date.now();
    this.state = state;
    this.firstTried?.();
    this.firstTried = undefined;
    this.deps.onChange();
  }

  private async list(client: Client): Promise<void> {
    const listing = await listServerTools(client, this.deps.server, this.deps.tools.maxToolsPerServer, { timeout: this.setupTimeoutMs });
    if (this.current !== client || this.stopping) return;
    if (listing.cut) this.log.warn({ listed: listing.cut.listed, kept: listing.specs.length }, 'tool server lists more tools than tools.maxToolsPerServer: the list is cut');
    this.specs = listing.specs;
    this.listed = listing.cut?.listed;
    this.deps.onChange();
  }

  /**
   * Reads the tools, one read at a time: a list_changed during a read (or a burst of them) is one
   * more read after it, so the last read is always the newest list.
   */
  private listing(client: Client): Promise<void> {
    if (this.relisting?.client === client) {
      this.relistAgain = true;
      return this.relisting.done;
    }
    const done = (async () => {
      do {
        this.relistAgain = false;
        await this.list(client);
      } while (this.relistAgain && this.current === client && !this.stopping);
    })().finally(() => {
      if (this.relisting?.done === done) this.relisting = undefined;
    });
    this.relisting = { client, done };
    return done;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
