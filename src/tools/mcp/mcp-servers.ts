import type { Logger } from 'pino';
import { isStdioServer, type McpServerConfig, type ToolsConfig } from '../../config/sections/tools-schema.js';
import type { StateRepo } from '../../store/port.js';
import { HeraldError } from '../../errors.js';
import { OAuthVault } from './oauth/oauth-vault.js';
import type { ToolSignIns } from './oauth/tool-sign-ins.js';
import { SealedBox } from './oauth/sealed-box.js';
import { clientMetadataOf, CALLBACK_PATH, CLIENT_METADATA_PATH, ServerSignIn } from './oauth/server-sign-in.js';
import type { ToolCallOptions, ToolResult, ToolSource, ToolSpec } from '../tool-spec.js';
import { toolName } from '../tool-name.js';
import { McpConnection } from './mcp-connection.js';
import type { ServerQuestions } from './server-questions.js';
import type { ToolServerHealth } from './server-health.js';

export interface McpServersOptions {
  /** the running config's tools section (limits are read from it at each use) */
  tools: ToolsConfig;
  /** the config file's folder: stdio servers' cwd is relative to it */
  baseDir: string;
  logger: Logger;
  /** how often a connected HTTP server is pinged to know it is still there (default 30 s) */
  checkEveryMs?: number;
  /** a server's state or tools changed: the console's live Overview shows them */
  onChange?: () => void;
  /** where servers' questions go (elicitation); set by the gateway once its store is there */
  questions?: ServerQuestions;
  /** where sign-ins are kept (the store's state), shared by replicas; none: nobody can sign in */
  state?: StateRepo;
  /** gateway.publicUrl, or the address herald listens on: sign-ins come back to <publicUrl>/oauth/callback */
  publicUrl?: () => string;
  /** this process among replicas (the one refreshing a server's tokens) */
  replica?: string;
  /** how often a server waiting for a person looks in the store for another replica's sign-in (default 3 s) */
  signInPollMs?: number;
}

const CHECK_EVERY_MS = 30_000;

/**
 * The configured MCP servers as one tool source. `start` connects them all in the background and
 * never waits: herald is up whether a server answers or not, and a server that does not shows
 * in `health()` (/readyz, /metrics, the tools.unhealthy alert). Each server's tools are
 * `<server>__<tool>`; a call goes to its server's connection of the moment.
 */
export class McpServers implements ToolSource, ToolSignIns {
  private readonly connections = new Map<string, McpConnection>();
  private tools_: ToolSpec[] | undefined;
  private started = false;
  private stopped = false;
  private readonly log: Logger;
  private vault?: OAuthVault;
  private vaultKey?: string;

  constructor(private readonly options: McpServersOptions) {
    this.log = options.logger.child({ component: 'tools' });
    for (const [name, config] of Object.entries(options.tools.mcpServers)) this.connections.set(name, this.connection(name, config));
  }

  /** where servers' questions go from now on (the gateway's store and outbox are made after the servers) */
  answerQuestionsWith(questions: ServerQuestions): void {
    this.options.questions = questions;
  }

  /** connects every server in the background */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    for (const connection of this.connections.values()) connection.start();
  }

  /** disconnects every server (stdio servers' processes ended) and waits for them */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  /**
   * Every server's tools, ready or not: a call to a server that is down says so to the model.
   * Names are unique across servers: a name another server's tool already has (`ns` with `_probe`
   * and `ns_` with `probe` both read `ns___probe`) ends in a short hash of its server and tool,
   * stable from one listing to the next; the first server in config order keeps the readable one.
   */
  tools(): ToolSpec[] {
    if (this.tools_) return this.tools_;
    const seen = new Set<string>();
    const all: ToolSpec[] = [];
    for (const connection of this.connections.values()) {
      for (const listed of connection.tools()) {
        const spec = seen.has(listed.name) ? { ...listed, name: toolName(listed.server, listed.tool, true) } : listed;
        if (seen.has(spec.name)) continue;
        seen.add(spec.name);
        all.push(spec);
      }
    }
    return (this.tools_ = all);
  }

  /**
   * Until each of `servers` that is started has been tried once (ready or failed): at start
   * their tools are not known yet. Undefined when there is nothing to wait for.
   */
  untilTried(servers: readonly string[]): Promise<void> | undefined {
    if (!this.started || this.stopped) return undefined;
    const waits = servers.map((name) => this.connections.get(name)?.untilTried()).filter((w) => w !== undefined);
    return waits.length ? Promise.all(waits).then(() => undefined) : undefined;
  }

  /** calls a tool of one of these servers; never throws for a server's fault (see McpConnection.call) */
  call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    const connection = this.connections.get(spec.server);
    if (!connection) return Promise.resolve({ text: `there is no tool server ${spec.server}`, isError: true });
    return connection.call(spec.tool, args, options);
  }

  unavailable(server: string): string | undefined {
    return this.connections.get(server)?.unavailable();
  }

  awaitingSignIn(servers: readonly string[]): string[] {
    return servers.filter((s) => this.connections.get(s)?.health().state === 'needs_authorization');
  }

  /** each server's health; its `tools` are the ones the model is offered from it (tools()) */
  health(): ToolServerHealth[] {
    const offered = new Map<string, number>();
    for (const spec of this.tools()) offered.set(spec.server, (offered.get(spec.server) ?? 0) + 1);
    return [...this.connections.values()].map((c) => {
      const health = c.health();
      return { ...health, tools: offered.get(health.server) ?? 0 };
    });
  }

  /**
   * The servers that are not fully there, for /readyz: each not ready with its state, each whose
   * list was cut at tools.maxToolsPerServer with how much was kept. Undefined when all are well.
   */
  degraded(): Record<string, string> | undefined {
    const out: Record<string, string> = {};
    for (const h of this.health()) {
      if (h.state !== 'ready') out[h.server] = h.state;
      else if (h.listed !== undefined) out[h.server] = `ready, its list cut to ${h.tools} tools (tools.maxToolsPerServer)`;
    }
    return Object.keys(out).length ? out : undefined;
  }

  /**
   * Applies a reloaded tools section: a server whose settings changed is connected again, a
   * removed one stopped, an added one started; the others keep their connection. Returns the
   * names of the servers it connected again, stopped or started.
   */
  async reload(tools: ToolsConfig): Promise<string[]> {
    if (tools !== this.options.tools) Object.assign(this.options.tools, tools);
    const touched: string[] = [];
    const stopping: Promise<void>[] = [];
    for (const [name, connection] of this.connections) {
      const next = tools.mcpServers[name];
      if (next && sameServer(connection.config, next)) continue;
      this.connections.delete(name);
      stopping.push(connection.stop());
      touched.push(name);
    }
    // the old process ends before its successor starts (a server may hold a lock or a port)
    await Promise.all(stopping);
    for (const [name, config] of Object.entries(tools.mcpServers)) {
      if (this.connections.has(name)) continue;
      const connection = this.connection(name, config);
      this.connections.set(name, connection);
      if (!touched.includes(name)) touched.push(name);
      if (this.started && !this.stopped) connection.start();
    }
    this.tools_ = undefined;
    if (touched.length) this.log.info({ servers: touched }, 'tool servers reloaded');
    return touched;
  }

  /**
   * Starts a person's sign-in to a Streamable HTTP server: the authorization URL to open. The
   * browser comes back to <publicUrl>/oauth/callback (finishSignIn).
   */
  async authorize(server: string): Promise<{ authorizationUrl: string }> {
    const connection = this.connections.get(server);
    if (!connection) throw new HeraldError('HERALD_TOOL_SERVER_NOT_FOUND', `there is no tool server ${server} in tools.mcpServers`);
    const signIn = connection.signIn;
    if (!signIn) throw new HeraldError('HERALD_SIGN_IN_NOT_POSSIBLE', isStdioServer(connection.config) ? `the server ${server} runs over stdio: it takes no sign-in` : `the server ${server} sends a fixed Authorization header: it takes no sign-in`);
    return { authorizationUrl: await signIn.begin() };
  }

  /**
   * The browser came back from a sign-in: `state` names the sign-in (one use, 10 minutes),
   * `code` is traded for tokens, and the server is connected. Returns the server's name.
   */
  async finishSignIn(state: string, code: string): Promise<string> {
    const pending = await this.oauthVault()?.takePending(state);
    if (!pending) throw new HeraldError('HERALD_SIGN_IN_STATE');
    const signIn = this.connections.get(pending.server)?.signIn;
    if (!signIn) throw new HeraldError('HERALD_SIGN_IN_STATE', `the server ${pending.server} of this sign-in is no longer configured for one`);
    await signIn.finish(code, pending.verifier);
    return pending.server;
  }

  /** herald's OAuth client metadata document (served at <publicUrl>/oauth/client-metadata.json) */
  clientMetadataDocument(): Record<string, unknown> {
    const base = this.publicUrl().replace(/\/?$/, '/');
    return { client_id: new URL(CLIENT_METADATA_PATH, base).href, ...clientMetadataOf(new URL(CALLBACK_PATH, base).href) };
  }

  private publicUrl(): string {
    return this.options.publicUrl?.() ?? 'http://127.0.0.1:8787';
  }

  /** the vault of the current key (tools.oauth.encryptionKey may come with a reload) */
  private oauthVault(): OAuthVault | undefined {
    const key = this.options.tools.oauth.encryptionKey;
    if (!key || !this.options.state) return undefined;
    if (key !== this.vaultKey) {
      this.vault = new OAuthVault(this.options.state, new SealedBox(key));
      this.vaultKey = key;
    }
    return this.vault;
  }

  private signInOf(server: string, config: McpServerConfig): ServerSignIn | undefined {
    if (isStdioServer(config)) return undefined;
    // a fixed Authorization header is the operator's own sign-in
    if (!config.oauth && Object.keys(config.headers).some((h) => h.toLowerCase() === 'authorization')) return undefined;
    return new ServerSignIn({
      server,
      url: config.url,
      oauth: config.oauth,
      baseDir: this.options.baseDir,
      vault: this.oauthVault(),
      publicUrl: () => this.publicUrl(),
      replica: this.options.replica ?? 'herald',
      logger: this.options.logger,
    });
  }

  private connection(server: string, config: McpServerConfig): McpConnection {
    return new McpConnection({
      signIn: this.signInOf(server, config),
      signInPollMs: this.options.signInPollMs,
      server,
      // a copy: a reload updates the running config in place, and this one is what it is compared with
      config: structuredClone(config),
      tools: this.options.tools,
      baseDir: this.options.baseDir,
      logger: this.options.logger,
      checkEveryMs: this.options.checkEveryMs ?? CHECK_EVERY_MS,
      questions: { ask: (question) => this.options.questions?.ask(question) ?? Promise.resolve({ action: 'decline' }) },
      onChange: () => {
        this.tools_ = undefined;
        this.options.onChange?.();
      },
    });
  }
}

const sameServer = (a: McpServerConfig, b: McpServerConfig) => JSON.stringify(a) === JSON.stringify(b);
