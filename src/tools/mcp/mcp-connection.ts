import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from 'pino';
import { isStdioServer, type McpServerConfig, type ToolsConfig } from '../../config/sections/tools-schema.js';
import type { ToolCallOptions, ToolResult, ToolSpec } from '../tool-spec.js';
import { maxCallMs } from '../tool-policy.js';
import { callFailure, TOTAL_EXCEEDED } from './call-error.js';
import { capText } from '../result-cap.js';
import { resultText } from './call-result.js';
import { callsAsTask, callToolTasked, taskResult } from './task-call.js';
import { backoffMs, STEADY_MS } from './backoff.js';
import { faultMessage } from './fault-message.js';
import { loadedMcpSdk, loadMcpSdk, type McpSdk } from './mcp-sdk.js';
import { MAX_MESSAGE_BYTES, mcpTransport, OVERSIZED } from './mcp-transport.js';
import type { ToolServerHealth, ToolServerState } from './server-health.js';
import { listServerTools } from './tool-listing.js';
import type { ServerSignIn } from './oauth/server-sign-in.js';
import { isSignInNeeded, type SignInNeeded } from './oauth/sign-in-needed.js';
import { secretMask, type SecretMask } from './secret-mask.js';
import { CallDeadline } from './call-deadline.js';
import type { QuestionAnswer, ServerQuestions } from './server-questions.js';

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
  /** where its questions go (elicitation); without it they are declined */
  questions?: ServerQuestions;
  /** a Streamable HTTP server's OAuth sign-in (oauth/server-sign-in.ts) */
  signIn?: ServerSignIn;
  /** how often a server waiting for a person looks in the store for a sign-in another replica finished */
  signInPollMs?: number;
}

const CLIENT_INFO = { name: 'herald', version: '1' };
/**
 * What herald can do for a server: ask a person its questions, as a form (the schema's defaults
 * applied by the SDK to an accepted answer) or as a page to open (MCP 2025-11-25).
 */
const CLIENT_CAPABILITIES = { elicitation: { form: { applyDefaults: true }, url: {} } };
/** the SDK's own time limit of a call, past herald's deadline: never the one that fires */
const BACKSTOP_MS = 5000;

interface InflightCall {
  options: ToolCallOptions;
  deadline: CallDeadline;
  timeoutMs: number;
  /** aborted when the call ends early (its turn, its limits) */
  signal: AbortSignal;
}

/** the errors a call past its idle or total limit is aborted with, as the SDK's own limits word them (made once) */
let deadlineErrors: { idle: () => Error; total: () => Error } | undefined;
const timeoutErrors = ({ McpError, ErrorCode }: McpSdk) => ({
  idle: () => new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
  total: () => new McpError(ErrorCode.RequestTimeout, TOTAL_EXCEEDED),
});

type ElicitParams = { mode?: 'form' | 'url'; message: string; requestedSchema?: unknown; url?: string };
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
  /** its tools listed as callable as tasks (execution.taskSupport), by their name at the server */
  private taskTools: ReadonlySet<string> = new Set();
  private listed?: number;
  private restarts = 0;
  /** the calls waiting for the server's answer: a question comes during one of them */
  private readonly inflight = new Set<InflightCall>();
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
  /** the server waits for a person to sign in: told by a request of the connection or of a call */
  private needed?: SignInNeeded;

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

  get signIn(): ServerSignIn | undefined {
    return this.deps.signIn;
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
    this.taskTools = new Set();
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
    if (!client && this.state === 'needs_authorization') return { text: capText(`the server ${server} waits for a person to sign in (${this.lastError ?? 'needs_authorization'})`, maxChars), isError: true };
    if (!client) return { text: capText(this.unavailable() ?? `the server ${server} is not available`, maxChars), isError: true };
    const timeoutMs = Math.min(options.timeoutMs, this.timeoutMs);
    if (options.signal?.aborted) return callFailure(options.signal.reason, { server, stdio: this.stdio, timeoutMs, aborted: true, maxChars });
    const totalMs = maxCallMs(this.deps.tools, this.deps.config);
    // past a limit the request is aborted: the SDK then tells the server (notifications/cancelled), as it does for the turn's abort
    const deadline = new CallDeadline(timeoutMs, totalMs, (deadlineErrors ??= timeoutErrors(loadedMcpSdk()!)), options.signal);
    const signal = deadline.signal;
    const inflight: InflightCall = { options, deadline, timeoutMs, signal };
    this.inflight.add(inflight);
    try {
      const requestOptions = {
        signal,
        // the deadline decides; the SDK's own limit only backs it up
        timeout: totalMs + BACKSTOP_MS,
        // the server's progress notifications (asked for by giving a progress handler) keep the call alive, up to its total limit
        onprogress: () => deadline.touch(),
      };
      // a task's status reports, like progress, show the server at work
      const hooks = { onTask: (task: { taskId: string; pollInterval?: number }) => options.onTask?.({ server, ...task }), onStatus: () => deadline.touch() };
      const result = options.resumeTask ? await taskResult(client, options.resumeTask, requestOptions, hooks) : await callToolTasked(client, tool, args, requestOptions, hooks, callsAsTask(client, tool, this.taskTools));
      const read = resultText(result, maxChars, this.deps.tools.maxMediaBytes);
      return { ...read, text: this.mask(read.text), ...(read.parts && { parts: JSON.parse(this.mask(JSON.stringify(read.parts))) as typeof read.parts }) };
    } catch (error) {
      // the transport tells its error (which closes the connection) before the call's own rejection
      const needed = isSignInNeeded(error) ? error : this.needed;
      if (needed) {
        this.needPerson(client, needed);
        return { text: capText(`the server ${server} waits for a person to sign in: ${needed.message}`, maxChars), isError: true };
      }
      const failure = callFailure(error, { server, stdio: this.stdio, timeoutMs, totalMs, aborted: options.signal?.aborted === true, maxChars, transportFault: this.transportFault });
      // an HTTP server's connection has no process to watch: a failed request is the sign it is gone
      if (failure.lostConnection && !this.stdio && this.ready === client) {
        this.failed(error);
        void client.close().catch(() => undefined);
      }
      const { lostConnection: _, ...result } = failure;
      return { ...result, text: this.mask(result.text) };
    } finally {
      deadline.dispose();
      this.inflight.delete(inflight);
    }
  }

  /**
   * A server's question during a call (MCP elicitation/create). It is put to a person for the
   * call it came during, while the call's idle limit waits for the answer; declined when the
   * server's `elicitation` is `decline`, when no call is in flight, and when several are (the
   * SDK does not say which one asks, and a question must never reach another run's person).
   */
  private async elicit(params: ElicitParams): Promise<QuestionAnswer> {
    const questions = this.deps.questions;
    const calls = [...this.inflight];
    const call = calls.length === 1 ? calls[0]! : undefined;
    const context = call?.options.context;
    if (this.deps.config.elicitation === 'decline' || !questions || !call || !context?.owner) {
      this.log.info({ inflight: calls.length }, 'tool server question declined');
      return { action: 'decline' };
    }
    call.deadline.hold();
    try {
      return await questions.ask({
        server: this.deps.server,
        call: { agentId: context.agentId, callRecordId: context.callRecordId, owner: context.owner },
        mode: params.mode === 'url' ? 'url' : 'form',
        message: this.mask(params.message),
        ...(params.requestedSchema !== undefined && { requestedSchema: params.requestedSchema as Record<string, unknown> }),
        ...(typeof params.url === 'string' && { url: params.url }),
        timeoutMs: call.timeoutMs,
        signal: call.signal,
      });
    } finally {
      call.deadline.release();
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
    const { Client, ErrorCode, McpError, ToolListChangedNotificationSchema, ElicitRequestSchema } = sdk;
    let failures = 0;
    while (!this.stopping) {
      const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
      client.setRequestHandler(ElicitRequestSchema, async (request) => ({ ...(await this.elicit(request.params as ElicitParams)) }));
      this.transportFault = undefined;
      this.current = client;
      const closed = new Promise<void>((resolve) => (client.onclose = resolve));
      client.onerror = (error) => this.transportError(client, error);
      let readyAt: number | undefined;
      try {
        await client.connect(mcpTransport(sdk, this.deps.config, { server: this.deps.server, baseDir: this.deps.baseDir, logger: this.deps.logger, mask: this.mask, signIn: this.deps.signIn }), { timeout: this.setupTimeoutMs });
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
        if (this.needed) throw this.needed;
        if (!this.stopping) this.failed(new Error(this.transportFault ?? (this.stdio ? 'the server exited' : 'the connection closed')));
      } catch (error) {
        if (isSignInNeeded(error) && !this.stopping) this.needed = error;
        // the SDK's "Connection closed" while connecting: for a stdio server, its process ended (a wrong command or argument, a crash at start)
        const exited = this.stdio && error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
        if (!this.stopping && !this.needed) this.failed(exited ? new Error('the server exited before it was ready (its stderr is in the log at debug)') : error);
      } finally {
        if (this.ready === client) this.ready = undefined;
        await client.close().catch(() => undefined);
      }
      if (this.stopping) break;
      if (this.needed) {
        // no backoff against a server only a person can let in: wait for the sign-in
        await this.untilSignedIn(this.needed);
        failures = 0;
        continue;
      }
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
    if (isSignInNeeded(error)) {
      this.needPerson(client, error);
      return;
    }
    if (error.message.includes(OVERSIZED)) {
      this.transportFault = `the server's answer is larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`;
      void client.close().catch(() => undefined);
      return;
    }
    this.log.debug({ error: this.mask(faultMessage(error)) }, 'tool server transport error');
  }

  /** a request found that only a person can let herald in: the connection closes and waits (supervise) */
  private needPerson(client: Client, error: SignInNeeded): void {
    if (this.current !== client || this.needed === error) return;
    this.needed = error;
    if (this.ready === client) this.ready = undefined;
    this.lastError = error.message;
    this.set('needs_authorization');
    void client.close().catch(() => undefined);
  }

  private async untilSignedIn(needed: SignInNeeded): Promise<void> {
    const signIn = this.deps.signIn;
    if (this.state !== 'needs_authorization' || this.lastError !== needed.message) {
      this.lastError = needed.message;
      this.log.warn({ reason: needed.message }, 'tool server needs a person to sign in');
      this.set('needs_authorization');
      this.deps.onChange();
    }
    const stop = new AbortController();
    this.wake = () => stop.abort();
    await signIn?.untilSignedIn(stop.signal, this.deps.signInPollMs ?? 3000);
    this.needed = undefined;
  }

  private failed(error: unknown): void {
    this.ready = undefined;
    this.lastError = this.deps.signIn ? this.deps.signIn.mask(this.mask(faultMessage(error))) : this.mask(faultMessage(error));
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
    this.taskTools = listing.taskTools;
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
