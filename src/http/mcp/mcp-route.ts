import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Hono, type Context } from 'hono';
import { HeraldError } from '../../errors.js';
import { mayUseAgent, type ApiPrincipal } from '../../accounts/api-keys.js';
import { parseDocumentUri } from '../../runtime/mcp-endpoint/document-resources.js';
import { bearerToken } from '../auth/bearer-token.js';
import { requesterOf } from '../auth/requester.js';
import { coalesceHead } from '../request/coalesced-head.js';
import { readBody } from '../request/read-body.js';
import { requestHeader } from '../request/request-headers.js';
import type { PlatformGate } from '../v1/platform-auth.js';
import type { McpSession, McpSessions } from './mcp-sessions.js';
import { mcpResourceUrl, resourceMetadataUrl } from './protected-resource.js';
import { ACCESS_TOKEN_PREFIX, type McpGrants } from '../../accounts/mcp-grants.js';
import { sessionServer, subscriptionsOf, type SessionServerDeps } from './session-server.js';
import type { StoredSession, StoredSessions } from '../../runtime/mcp-endpoint/stored-sessions.js';
import type { StoredEvents } from '../../runtime/mcp-endpoint/stored-events.js';

export interface McpRouteDeps extends SessionServerDeps {
  gate: PlatformGate;
  sessions: McpSessions;
  /** herald's OAuth grants (platform.mcp.oauth): their access tokens are accepted beside API keys */
  grants?: McpGrants;
  /** the sessions kept in the store, which any replica on the database may serve */
  stored?: StoredSessions;
  /** the events of the sessions' streams, kept in the store for a client resuming with Last-Event-ID */
  events?: StoredEvents;
}

/** a body that sends nothing for this long is abandoned (408) */
const BODY_IDLE_MS = 30_000;

/**
 * `/mcp`: the Streamable HTTP endpoint (the SDK's web-standard server transport, one per session)
 * behind herald's own gate: Origin checked against DNS rebinding, the API key (401 with
 * `WWW-Authenticate` naming the Protected Resource Metadata, RFC 9728), the key's rate limit,
 * the body read within platform.mcp.maxBodyBytes, sessions capped per key.
 */
export function mcpRoutes(deps: McpRouteDeps): Hono {
  const app = new Hono();
  app.all('/', async function mcpEndpoint(c) {
    checkOrigin(c, deps.config.platform.mcp.allowedOrigins);
    const principal = await admit(deps, c);
    const method = c.req.method;
    let body: unknown;
    if (method === 'POST') {
      const bytes = await readBody(c, { maxBytes: deps.config.platform.mcp.maxBodyBytes, key: 'platform.mcp.maxBodyBytes', idleTimeoutMs: BODY_IDLE_MS });
      try {
        body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
      } catch {
        return jsonRpcError(c, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    const sessionId = requestHeader(c, 'mcp-session-id');
    if (sessionId === undefined) {
      if (method !== 'POST' || !startsSession(body)) return jsonRpcError(c, 400, -32000, 'Bad Request: no Mcp-Session-Id header; a session starts with an initialize request');
      return openSession(deps, principal, c, body);
    }
    // another key's session is unknown to this one, as one that never was; one this process never
    // saw may be another replica's, kept in the store
    const session = deps.sessions.get(sessionId, principal) ?? (await restored(deps, principal, sessionId, c));
    if (!session) return jsonRpcError(c, 404, -32001, 'Session not found: start a new one with initialize');
    session.lastSeenAt = Date.now();
    await deps.stored?.seen(sessionId, session.lastSeenAt);
    // the key behind the session is the one presented now (a reload may have changed its grants)
    session.principal = principal;
    if (method === 'POST') coalesceHead(c);
    return transportOf(session).handleRequest(c.req.raw, { parsedBody: body });
  });
  return app;
}

const transports = new WeakMap<McpSession, WebStandardStreamableHTTPServerTransport>();
const transportOf = (session: McpSession) => transports.get(session)!;

async function openSession(deps: McpRouteDeps, principal: ApiPrincipal, c: Context, body: unknown): Promise<Response> {
  deps.sessions.admit(principal);
  const initialize = (Array.isArray(body) ? body.find(isInitializeRequest) : body) as { params: StoredSession['initialize'] };
  const { transport } = await sessionOf(deps, principal, { id: randomUUID(), initialize: initialize.params, createdAt: Date.now() });
  return transport.handleRequest(c.req.raw, { parsedBody: body });
}

const restoring = new Map<string, Promise<McpSession | undefined>>();

/**
 * A session another replica opened (or this one before a restart), served here from what the
 * store keeps of it; one restore at a time per id (two requests at once share it).
 */
function restored(deps: McpRouteDeps, principal: ApiPrincipal, id: string, c: Context): Promise<McpSession | undefined> {
  if (!deps.stored) return Promise.resolve(undefined);
  let pending = restoring.get(id);
  if (!pending) {
    pending = restore(deps, principal, id, c).finally(() => restoring.delete(id));
    restoring.set(id, pending);
  }
  return pending.then((session) => (session && session.principal.name === principal.name ? session : undefined));
}

async function restore(deps: McpRouteDeps, principal: ApiPrincipal, id: string, c: Context): Promise<McpSession | undefined> {
  const kept = await deps.stored!.get(id);
  if (!kept || kept.key !== principal.name) return undefined;
  deps.sessions.admit(principal);
  const { transport, session, live } = await sessionOf(deps, principal, { id, initialize: kept.initialize, createdAt: kept.createdAt }, true);
  /*
   * The SDK's transport has no public way to start as already initialized (its `_initialized` and
   * `sessionId` are private), nor its Server to be told the client's capabilities. So the client's
   * own `initialize` is handed to them again, as it was sent: the transport takes the session id
   * from `sessionIdGenerator` (the known id) and the Server learns the client's capabilities and
   * version, both through public options. Its answer goes nowhere (the client had its own).
   */
  const replay = await transport.handleRequest(
    new Request(c.req.url, { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } }),
    { parsedBody: { jsonrpc: '2.0', id: 'herald-restore', method: 'initialize', params: kept.initialize } },
  );
  await replay.text();
  live();
  return session();
}

interface SessionStart {
  id: string;
  initialize: StoredSession['initialize'];
  createdAt: number;
}

/** a session's SDK server and transport; its record made when the transport initializes it (and kept in the store when it is new) */
async function sessionOf(deps: McpRouteDeps, principal: ApiPrincipal, start: SessionStart, restoring = false) {
  let session: McpSession | undefined;
  const server = sessionServer(deps, () => session, principal);
  const events = deps.events?.of(() => session?.id ?? start.id);
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => start.id,
    maxRequestBodySize: deps.config.platform.mcp.maxBodyBytes,
    // a restore's own initialize is not an event any client will ask for again
    eventStore: events && { ...events, storeEvent: (streamId, message) => (restoring ? Promise.resolve(`${streamId}.0000000000000000`) : events.storeEvent(streamId, message)) },
    onsessioninitialized: async (id) => {
      const now = Date.now();
      session = {
        id,
        principal,
        createdAt: start.createdAt,
        lastSeenAt: now,
        inFlight: 0,
        calls: 0,
        handle: {
          close: () => server.close(),
          toolsChanged: () => server.sendToolListChanged(),
          resourcesChanged: async (uris) => {
            // only the documents of agents this key may ask: another key's changes are not even told
            const visible = uris.filter((uri) => {
              const parsed = parseDocumentUri(uri);
              return parsed !== undefined && mayUseAgent(session!.principal, parsed.agent);
            });
            if (!visible.length) return;
            await server.sendResourceListChanged();
            const subscribed = subscriptionsOf(server);
            for (const uri of visible) if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
          },
        },
      };
      const info = start.initialize.clientInfo;
      if (restoring && info?.name) session.client = { name: String(info.name).slice(0, 200), version: String(info.version).slice(0, 100) };
      transports.set(session, transport);
      deps.sessions.add(session);
      // kept before the client is answered: its next request may reach another replica
      if (!restoring) await deps.stored?.opened(id, { key: principal.name, initialize: start.initialize, createdAt: start.createdAt });
    },
    onsessionclosed: async (id) => {
      deps.sessions.forget(id);
      await deps.stored?.closed(id);
      await deps.events?.forget(id);
    },
  });
  transport.onclose = () => {
    if (!session) return;
    deps.sessions.forget(session.id);
    deps.stored?.released(session.id);
  };
  server.oninitialized = () => {
    const client = server.getClientVersion();
    if (!session || !client) return;
    session.client = { name: client.name.slice(0, 200), version: client.version.slice(0, 100) };
    void deps.clients?.connected(session.id, { ...session.client, key: session.principal.name }).catch((error: unknown) => deps.logger.warn({ err: error }, "an MCP client's name could not be stored"));
  };
  await server.connect(transport);
  return { transport, session: () => session, /** the restore is done: what the session sends from now on is kept for a resuming client */
    live: () => void (restoring = false) };
}

/** the body is initialize, alone or in a batch */
const startsSession = (body: unknown): boolean => (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));

/**
 * The key's admission (PlatformGate: the key, then its rate limit). A missing or wrong key is
 * told where herald's Protected Resource Metadata is, so a client of the MCP authorization
 * flow knows which resource it stands before (MCP's authorization spec, RFC 9728 §5.1).
 */
async function admit(deps: McpRouteDeps, c: Context): Promise<ApiPrincipal> {
  const presented = bearerToken(c);
  try {
    if (presented?.startsWith(ACCESS_TOKEN_PREFIX) && deps.grants && deps.config.platform.mcp.oauth.enabled) return await admitGranted(deps.gate, deps.grants, c, presented);
    return (await deps.gate.admit(requesterOf(c), presented)).principal;
  } catch (error) {
    if (!(error instanceof HeraldError) || error.code !== 'HERALD_UNAUTHORIZED') throw error;
    const challenge = `Bearer resource_metadata="${resourceMetadataUrl(c)}"${presented ? ', error="invalid_token"' : ''}`;
    throw new HeraldError('HERALD_UNAUTHORIZED', presented ? (presented.startsWith(ACCESS_TOKEN_PREFIX) ? error.message : 'Incorrect API key provided.') : 'Send a platform API key as `Authorization: Bearer <API_KEY>`.', { headers: { 'WWW-Authenticate': challenge } });
  }
}

/** an access token of herald's own authorization server: live, and for this /mcp (its audience), then the key it carries */
async function admitGranted(gate: PlatformGate, grants: McpGrants, c: Context, token: string): Promise<ApiPrincipal> {
  const access = await grants.verify(token);
  if (!access || access.resource !== mcpResourceUrl(new URL(c.req.url).origin)) throw new HeraldError('HERALD_UNAUTHORIZED', 'the access token is unknown, revoked, expired or for another resource');
  return (await gate.admitGranted(requesterOf(c), access.key)).principal;
}

/**
 * DNS rebinding: a browser page may reach a gateway on localhost, but it always says where it
 * comes from. An Origin other than the gateway's own address or one of platform.mcp.allowedOrigins
 * is refused (MCP's transport spec: servers MUST validate the Origin header).
 */
function checkOrigin(c: Context, allowed: readonly string[]): void {
  const origin = requestHeader(c, 'origin');
  if (origin === undefined) return;
  const own = new URL(c.req.url).origin;
  if (origin === own || allowed.includes(origin)) return;
  throw new HeraldError('HERALD_FORBIDDEN', `Origin ${origin.slice(0, 200)} may not use /mcp: list it in platform.mcp.allowedOrigins`);
}

function jsonRpcError(c: Context, status: 400 | 404, code: number, message: string): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);
}
