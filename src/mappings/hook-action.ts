import type { z } from 'zod';
import { HeraldError } from '../errors.js';
import type { HeraldConfig } from '../config/schema.js';
import { isModelAllowed, resolveModelRef } from '../models/model-refs.js';
import { MAX_TIMEOUT_SECONDS, sessionModes, thinkingLevels, wakeModes } from '../config/sections/mapping-schema.js';
import { isReservedSessionKey, RESERVED_SESSION_KEYS } from '../config/session-key-policy.js';
import { hookAgentId, hookSessionKey as policySessionKey, type FieldSource } from './hook-routing.js';
import type { RunAction } from '../store/contracts/run-action.js';
import { ACCOUNT_ID } from '../config/sections/channel-accounts-schema.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { hookFields } from './hook-fields.js';

/** What every webhook turns into: `/wake`, `/agent` and every mapped hook end here. */
export interface WakeAction {
  kind: 'wake';
  text: string;
  mode: (typeof wakeModes)[number];
}

/** an agent run's action: the shape the store keeps and parses back on read */
export type AgentAction = RunAction;

export type HookAction = WakeAction | AgentAction;

export interface ActionContext {
  /** `tools`, when given: the servers a direct call (`action: "tool"`) may name */
  config: Pick<HeraldConfig, 'models' | 'agents' | 'hooks'> & Partial<Pick<HeraldConfig, 'tools'>>;
  /** a request body (`/agent`) or a mapping: they differ on agentId and sessionKey policy */
  fieldSource?: FieldSource;
  /** `last` plus the ids and aliases of the loaded channel plugins */
  channelNames: string[];
  /**
   * whether a channel id or alias has its `channels.<id>` section; when given, an explicit
   * channel that is not configured is refused at accept time (the CLI's dry runs leave it out)
   */
  isConfigured?(channel: string): boolean;
  mappingId: string;
  /** the wording of a missing text/message: the built-ins say "text is required", mappings "hook mapping requires text" */
  requiredMessage: (field: 'text' | 'message') => string;
  allowUnsafeExternalContent?: boolean;
  /** the mapping's delivery policy, from config only (a payload or a transform never sets it) */
  deliveryPolicy?: Pick<AgentAction, 'retry' | 'fallback' | 'failureReply'>;
  /** the channel plugin's check of `to` (see PluginDefinition.recipient) */
  recipientFault?: (channel: string, to: string) => string | undefined;
  /** why a channel (id or alias) has no such account, when it has none; left out, any account id passes (dry runs) */
  accountFault?: (channel: string, accountId: string) => string | undefined;
  /** a tool's spec when its server is connected and lists it: a direct call's arguments are checked against its schema as the request is accepted */
  toolSpec?: (name: string) => ToolSpec | undefined;
}

/**
 * Each field's schema and the fault it names: the message is the field's own (a request and a
 * mapping are refused alike), never the schema's wording.
 */
const fieldChecks = {
  mode: [hookFields.mode, `must be one of ${wakeModes.join(', ')}`],
  wakeMode: [hookFields.wakeMode, `must be one of ${wakeModes.join(', ')}`],
  name: [hookFields.name, 'must be a string'],
  agentId: [hookFields.agentId, 'must be a string'],
  sessionKey: [hookFields.sessionKey, 'must be a non-empty string (at most 512 characters)'],
  sessionMode: [hookFields.sessionMode, `must be one of ${sessionModes.join(', ')}`],
  deliver: [hookFields.deliver, 'must be a boolean'],
  channel: [hookFields.channel, 'must be a string'],
  to: [hookFields.to, 'must be a string'],
  threadId: [hookFields.threadId, 'must be a string (at most 256 characters)'],
  model: [hookFields.model, 'must be a string'],
  thinking: [hookFields.thinking, `must be one of ${thinkingLevels.join(', ')}`],
  timeoutSeconds: [hookFields.timeoutSeconds, `must be a positive number (at most ${MAX_TIMEOUT_SECONDS})`],
} as const;

type Checked<K extends keyof typeof fieldChecks> = z.output<(typeof fieldChecks)[K][0]>;

function invalid(field: string, message: string): HeraldError {
  return new HeraldError('HERALD_INVALID_FIELD', `${field} ${message}`, { param: field });
}

/**
 * The type a field's schema is when it is nothing more (`z.string()`, `z.boolean()`: no checks,
 * no refinement): `typeof` decides it as the schema would, without the result and context
 * objects a safeParse makes. Read from the schema, so the schema stays the one statement of the field.
 */
const bareTypes: Partial<Record<keyof typeof fieldChecks, string>> = {};
for (const [field, [schema]] of Object.entries(fieldChecks) as [keyof typeof fieldChecks, (typeof fieldChecks)[keyof typeof fieldChecks]][]) {
  const { type, checks } = schema._zod.def as { type: string; checks?: unknown[] };
  if ((type === 'string' || type === 'boolean') && !checks?.length) bareTypes[field] = type;
}

/** the field's value when it passes its check; undefined when absent (or null) */
function check<K extends keyof typeof fieldChecks>(raw: Record<string, unknown>, field: K): Checked<K> | undefined {
  const value = raw[field];
  if (value === undefined || value === null) return undefined;
  const [schema, message] = fieldChecks[field];
  const bare = bareTypes[field];
  if (bare !== undefined ? typeof value !== bare : !schema.safeParse(value).success) throw invalid(field, message);
  return value as Checked<K>;
}

/** Validates a raw action (a request body or a mapping's rendered result) into a HookAction. */
/** `path`: the request's hook path, recorded as the action's source */
export function validateAction(raw: Record<string, unknown>, kind: 'wake' | 'agent', ctx: ActionContext, path: string): HookAction {
  if (kind === 'wake') {
    if (!hookFields.text.safeParse(raw.text).success) {
      throw new HeraldError('HERALD_INVALID_FIELD', ctx.requiredMessage('text'), { param: 'text' });
    }
    return { kind: 'wake', text: (raw.text as string).trim(), mode: check(raw, 'mode') ?? 'now' };
  }
  if (!hookFields.message.safeParse(raw.message).success) {
    throw new HeraldError('HERALD_INVALID_FIELD', ctx.requiredMessage('message'), { param: 'message' });
  }
  const channel = check(raw, 'channel') ?? 'last';
  if (!ctx.channelNames.includes(channel)) throw invalid('channel', `must be one of ${ctx.channelNames.join(', ')}`);
  const model = check(raw, 'model') || undefined;
  if (model !== undefined) {
    if (!resolveModelRef(model, ctx.config)) {
      throw new HeraldError('HERALD_INVALID_FIELD', `model "${model}" is not a known model (use <provider>/<model> or an alias)`, { param: 'model' });
    }
    if (!isModelAllowed(model, ctx.config)) {
      throw new HeraldError('HERALD_MODEL_NOT_ALLOWED', `model "${model}" is not in agents.defaults.models`, { param: 'model' });
    }
  }
  const name = check(raw, 'name')?.trim();
  const to = check(raw, 'to')?.trim();
  if (to) {
    // whatever the channel (`last` is only known at delivery): a recipient is a name, never a path step or a control character
    if (to === '.' || to === '..' || /[\u0000-\u001f\u007f]/.test(to) || to.length > 512) {
      throw invalid('to', 'must be a recipient id (at most 512 characters, no control characters, not "." or "..")');
    }
    const fault = ctx.recipientFault?.(channel, to);
    if (fault) throw invalid('to', fault);
  }
  const threadId = check(raw, 'threadId')?.trim();
  // after `to` (a malformed recipient is named first); only when the reply is to be delivered
  if (channel !== 'last' && check(raw, 'deliver') !== false && ctx.isConfigured && !ctx.isConfigured(channel)) {
    throw invalid('channel', `"${channel}" is not configured (add its channels.<id> section to the config)`);
  }
  const source = ctx.fieldSource ?? 'mapping';
  const accountId = deliveryAccount(raw, channel, source, ctx);
  return {
    kind: 'agent',
    message: raw.message as string,
    name: name || 'Hook',
    agentId: hookAgentId(check(raw, 'agentId'), source, ctx.config),
    sessionKey: hookSessionKey(policySessionKey(sessionModeKey(raw), source, ctx.config.hooks)),
    wakeMode: check(raw, 'wakeMode') ?? 'now',
    deliver: check(raw, 'deliver') ?? true,
    channel,
    to: to || undefined,
    ...(accountId && { accountId }),
    ...(threadId && { threadId }),
    ...(ctx.deliveryPolicy?.retry && { retry: ctx.deliveryPolicy.retry }),
    ...(ctx.deliveryPolicy?.fallback && { fallback: ctx.deliveryPolicy.fallback }),
    ...(ctx.deliveryPolicy?.failureReply && { failureReply: ctx.deliveryPolicy.failureReply }),
    model,
    thinking: check(raw, 'thinking'),
    timeoutSeconds: check(raw, 'timeoutSeconds'),
    allowUnsafeExternalContent: ctx.allowUnsafeExternalContent === true,
    source: { mappingId: ctx.mappingId, path },
  };
}

/**
 * OpenClaw's `accountId`: which of the channel's accounts (`channels.<id>.accounts.<accountId>`)
 * sends the reply. Only a direct /hooks/agent request names one, and only with an explicit
 * channel; a mapping (or its transform) never does, as in OpenClaw. An account the channel does
 * not have is refused, naming it, rather than replying from another account than the one asked for.
 */
function deliveryAccount(raw: Record<string, unknown>, channel: string, source: FieldSource, ctx: ActionContext): string | undefined {
  if (raw.accountId === undefined || raw.accountId === null) return undefined;
  if (typeof raw.accountId !== 'string' || !ACCOUNT_ID.test(raw.accountId)) throw invalid('accountId', 'must be an account id (letters, digits, - and _; at most 64)');
  const accountId = raw.accountId;
  if (source !== 'request') throw invalid('accountId', 'is not taken by a mapping (OpenClaw refuses it there too); a direct /hooks/agent request names the account');
  if (channel === 'last') throw invalid('accountId', 'needs an explicit channel: an account is one of a channel\'s (channels.<id>.accounts)');
  const fault = ctx.accountFault?.(channel, accountId);
  if (fault) throw invalid('accountId', fault);
  return accountId;
}

/**
 * The explicit session key under OpenClaw's `sessionMode`: `persistent` needs one (the
 * conversation it continues; the policy then checks it), `isolated` refuses one (a fresh session).
 */
function sessionModeKey(raw: Record<string, unknown>): string | undefined {
  const key = check(raw, 'sessionKey')?.trim() || undefined;
  const mode = check(raw, 'sessionMode');
  if (mode === 'persistent' && key === undefined) throw invalid('sessionKey', 'is required with sessionMode "persistent" (the conversation it continues)');
  if (mode === 'isolated' && key !== undefined) throw invalid('sessionMode', '"isolated" runs in a fresh session; leave out sessionKey or use "persistent"');
  return key;
}

/** the main session and the platform's conversations (chat and Responses API) are not hook sessions */
function hookSessionKey(key: string | undefined): string | undefined {
  if (key !== undefined && isReservedSessionKey(key)) throw invalid('sessionKey', RESERVED_SESSION_KEYS);
  return key;
}
