import { z } from 'zod';
import { alertTargetSchema } from './alerts-schema.js';
import { positiveDuration } from './duration-schema.js';

/**
 * Tools: MCP servers herald connects to, what each agent, mapping and preset may call, and who
 * approves. Least privilege is decided here, in config, never by a payload (docs/tools.md).
 */

/** a server's name is the prefix of its tools' names (`github__create_issue`): no `__` inside it */
export const serverName = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/, 'letters, digits, - and single _ (the name prefixes its tools: <server>__<tool>)')
  .max(32);

/** tool names or globs (`github__*`, `*__search*`), matched against the name the model sees */
const toolPatterns = z.array(z.string().min(1)).describe('Tool names as the model sees them (<server>__<tool>) or globs (* matches any run of characters).');

export const requireApprovalSchema = z
  .union([z.enum(['always', 'never']), z.object({ tools: toolPatterns }).strict()])
  .describe('Which calls wait for a person: "always", "never", or { tools: [names or globs] }. Unset: the rules of docs/tools.md (a tool that is not read-only, in a run over outside content, waits unless its mapping grants it).');
export type RequireApproval = z.output<typeof requireApprovalSchema>;

const serverCommon = {
  requireApproval: requireApprovalSchema.optional(),
  timeoutSeconds: z.number().positive().max(3600).optional().describe("Time limit of one call to this server's tools; defaults to tools.callTimeoutSeconds."),
  maxCallSeconds: z
    .number()
    .positive()
    .max(86_400)
    .optional()
    .describe("Most a call to this server's tools may take while its progress notifications keep it alive past timeoutSeconds; defaults to tools.maxCallSeconds."),
  elicitation: z
    .enum(['ask', 'decline'])
    .default('ask')
    .describe("A question the server asks during a call (MCP elicitation): `ask` puts a hook run's to a person beside the approvals (GET /admin/approvals, kind question; unanswered within the call's time limit it is cancelled), and a turn no person waits for (chat completions, Responses) declines it; `decline` declines them all."),
};

export const stdioServerSchema = z
  .object({
    command: z.string().min(1).describe('The program herald starts (npx, node, uvx, a path); supervised: restarted with backoff when it exits, stopped on shutdown.'),
    args: z.array(z.string()).default([]).describe('Its arguments.'),
    env: z.record(z.string(), z.string()).default({}).describe('Environment added to a minimal inherited one (PATH, HOME, ...); values may be ${ENV} secrets.'),
    cwd: z.string().optional().describe('Working directory, relative to the config file.'),
    ...serverCommon,
  })
  .strict();

/** how herald signs in to a Streamable HTTP server that asks for OAuth 2.1 (docs/tools.md, "Signing in to a server") */
export const serverOAuthSchema = z
  .object({
    grant: z
      .enum(['authorization_code', 'client_credentials'])
      .default('authorization_code')
      .describe('authorization_code: a person signs in once (console, herald tools authorize, the admin API); client_credentials: herald gets its tokens alone, from clientId and clientSecret or privateKeyFile.'),
    clientId: z.string().min(1).optional().describe("A client registered with the server's authorization server. Unset: herald's client metadata document (when gateway.publicUrl is https and the server supports it), else dynamic registration."),
    clientSecret: z.string().min(1).optional().describe('Its secret (${ENV}); sent as client_secret_basic or client_secret_post, as the authorization server says. Unset: a public client (none).'),
    privateKeyFile: z.string().min(1).optional().describe('client_credentials with private_key_jwt: a PEM private key (relative to the config file) herald signs its client assertions with.'),
    algorithm: z.string().min(1).default('RS256').describe("privateKeyFile's signing algorithm (RS256, ES256, ...)."),
    issuer: z.url().optional().describe("client_credentials: the authorization server's issuer URL; the client's credentials are sent to no other (unset: the one the MCP server names)."),
    scope: z.string().min(1).optional().describe("Scopes to ask for, space-separated. Unset: the ones the server names in its 401 or lists in its metadata."),
  })
  .strict()
  .refine((o) => o.grant !== 'client_credentials' || (o.clientId !== undefined && (o.clientSecret !== undefined || o.privateKeyFile !== undefined)), {
    message: 'client_credentials needs clientId and clientSecret or privateKeyFile',
  });
export type ServerOAuthConfig = z.output<typeof serverOAuthSchema>;

export const httpServerSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).describe('A Streamable HTTP MCP endpoint (http or https).'),
    headers: z.record(z.string(), z.string()).default({}).describe('Headers sent with every request (Authorization: Bearer ${GITHUB_TOKEN}); values may be ${ENV} secrets and are never logged.'),
    oauth: serverOAuthSchema
      .optional()
      .describe('OAuth 2.1 sign-in settings (docs/tools.md, "Signing in to a server"). Without them a server that answers 401 with the MCP discovery still works: herald uses its client metadata document or registers itself, and the server waits for a person to sign in (needs_authorization). Not beside a fixed Authorization header.'),
    ...serverCommon,
  })
  .strict();

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export const isStdioServer = (server: McpServerConfig): server is z.output<typeof stdioServerSchema> => 'command' in server;

export const toolsSchema = z
  .object({
    mcpServers: z
      .record(serverName, mcpServerSchema)
      .default({})
      .describe('MCP servers by name: stdio { command, args, env, cwd } or Streamable HTTP { url, headers, oauth }. A server that cannot start never blocks herald: it shows degraded in /readyz.'),
    remoteAllowlist: z
      .array(z.url({ protocol: /^https?$/ }))
      .default([])
      .describe('URL prefixes a /v1/responses `mcp` tool may name as server_url; any other server_url is refused (400). Configured servers are named by server_label instead.'),
    maxToolCalls: z.number().int().positive().max(1000).default(20).describe('Most tool calls in one turn; past it the model is told to answer without tools.'),
    callTimeoutSeconds: z.number().positive().max(3600).default(60).describe('Time limit of one tool call (a server may set its own timeoutSeconds).'),
    maxCallSeconds: z
      .number()
      .positive()
      .max(86_400)
      .default(600)
      .describe('Most one tool call may take in all: each progress notification from the server restarts its callTimeoutSeconds, up to this (a call never runs past its run\'s own timeoutSeconds).'),
    maxResultChars: z.number().int().positive().max(1_000_000).default(16_000).describe('A tool result longer than this is cut, with a note to the model.'),
    maxMediaBytes: z
      .number()
      .int()
      .nonnegative()
      .max(20 * 1024 * 1024)
      .default(1024 * 1024)
      .describe(
        "Most bytes of images and audio one tool result passes on to a model that accepts them (models.input): an image or audio clip past what is left of this is not sent, and the model's text says so; 0 sends none.",
      ),
    maxToolsPerServer: z.number().int().positive().max(10_000).default(128).describe('Most tools taken from one server (a server listing more is cut, and says so in /readyz).'),
    approvalTimeout: positiveDuration.default('24h').describe('A call waiting for approval longer than this is refused, and the model told so.'),
    oauth: z
      .object({
        encryptionKey: z
          .string()
          .min(16)
          .optional()
          .describe('The key (${ENV}, at least 16 characters; `openssl rand -base64 32` makes a good one) that access and refresh tokens, registered clients and pending sign-ins are encrypted with in the store (AES-256-GCM). Every replica needs the same one. Changed or lost: what was stored cannot be read, and each server waits for a person to sign in again. Unset: a server that asks for OAuth waits for a sign-in that is refused (409) until it is set.'),
      })
      .strict()
      .prefault({})
      .describe('Signing in to MCP servers: how herald keeps what the sign-in gives it.'),
    approvals: z
      .object({ targets: z.array(alertTargetSchema).default([]).describe('Where a pending approval is announced: channel targets, as alerts.targets.') })
      .strict()
      .prefault({})
      .describe('Approvals by a person: where they are announced.'),
  })
  .strict();
export type ToolsConfig = z.output<typeof toolsSchema>;

/** an agent's tools: the servers it may use (`herald` is the built-ins), narrowed by allow and deny */
export const agentToolsSchema = z
  .object({
    servers: z.array(z.string().min(1)).default([]).describe('The servers whose tools this agent may call: names of tools.mcpServers, and "herald" for the built-ins.'),
    allow: toolPatterns.optional(),
    deny: toolPatterns.optional(),
    requireApproval: requireApprovalSchema.optional(),
  })
  .strict();

/** a mapping's or preset's tools: only narrower than its agent's; `grant` lets named writes run without a person */
export const mappingToolsSchema = z
  .object({
    allow: toolPatterns.optional(),
    deny: toolPatterns.optional(),
    grant: toolPatterns
      .optional()
      .describe('Tools that are not read-only which runs of this mapping may call without approval. Only for requests whose signature was verified (the mapping needs `auth`).'),
    requireApproval: requireApprovalSchema.optional(),
  })
  .strict();
export type MappingTools = z.output<typeof mappingToolsSchema>;
