import { z } from 'zod';
import { MAX_TIMEOUT_SECONDS, thinkingLevels, wakeModes } from '../../config/sections/mapping-schema.js';
import { HeraldError } from '../../errors.js';
import { fallbackSchema, retryPolicySchema } from '../../config/sections/delivery-policy-schema.js';
import { mappingToolsSchema } from '../../config/sections/tools-schema.js';

/**
 * The validated agent action a run keeps, so it can resume after a restart. Declared here,
 * at the bottom, because the store parses it on every read: a row is checked, never cast.
 * The mappings engine produces exactly this (`AgentAction` is this type).
 */
/**
 * A run of kind `tool`: one tool called without a model (a mapping's `action: "tool"`, a
 * schedule's `toolCall`), its arguments rendered when it was accepted. `then`: the message made of
 * its result at run time (a template over `result` and `arguments`), delivered as the run's reply.
 */
export const runToolCallSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** the call may run without a person only when its policy says so: outside content (a hook) or the operator's own (a schedule) */
  outside: z.boolean(),
  then: z.object({ message: z.string() }).optional(),
  /** the call's own time limit (a schedule's timeoutSeconds), over its server's */
  timeoutSeconds: z.number().positive().optional(),
});

export type RunToolCall = z.infer<typeof runToolCallSchema>;

export const runActionSchema = z.object({
  /** `agent`: a model's turn; `tool`: one tool called directly (`call`), no model asked */
  kind: z.enum(['agent', 'tool']),
  call: runToolCallSchema.optional(),
  message: z.string(),
  name: z.string(),
  /** the digital employee that runs it (agentId, OpenClaw's fallback and hooks.allowedAgentIds applied) */
  agentId: z.string(),
  sessionKey: z.string().optional(),
  wakeMode: z.enum(wakeModes),
  deliver: z.boolean(),
  channel: z.string(),
  to: z.string().optional(),
  /** which of the channel's accounts sends the reply (a direct /hooks/agent request's `accountId`); its default account when absent */
  accountId: z.string().optional(),
  /** the platform thread (or message) the reply belongs to; each channel maps it to its own field */
  threadId: z.string().max(256).optional(),
  /** the mapping's delivery policy (config only, never a request body): kept so a resumed run delivers as it was accepted */
  retry: retryPolicySchema.optional(),
  fallback: fallbackSchema.optional(),
  /** the mapping's line for a run that ends without a reply (config only): delivered where the reply would have gone */
  failureReply: z.string().optional(),
  model: z.string().optional(),
  thinking: z.enum(thinkingLevels).optional(),
  timeoutSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional(),
  /** set only from config (a mapping or a preset), never from a request body */
  allowUnsafeExternalContent: z.boolean(),
  /** the mapping's (or preset's) narrowing of its agent's tools: config only, never a request body */
  tools: mappingToolsSchema.optional(),
  /** the request's signature was verified (its mapping's `auth` passed): only then may `tools.grant` let a write run without a person */
  signed: z.boolean().optional(),
  /** the rendered key its mapping's `coalesce` groups events by (a coalescing mapping's run only) */
  coalesceKey: z.string().optional(),
  /** where the action came from, for the safety wrapper's metadata and logs */
  source: z.object({ mappingId: z.string(), path: z.string() }),
  /** the schedule whose fire made the run: its job id and the due time fired */
  schedule: z.object({ id: z.string(), dueAt: z.number() }).optional(),
  /**
   * the hook's HTTP answer awaits the reply until this time (epoch ms, `respond.waitMs`): a run
   * finished before it answers there and is not delivered; one finished later is delivered as usual
   */
  replyAwaitedUntil: z.number().optional(),
});

export type RunAction = z.infer<typeof runActionSchema>;

/** a row another program (or a bug) wrote wrongly fails loudly, naming the run, instead of running half-understood */
export function parseRunAction(runId: string, stored: unknown, row: { agentId: string; message: string }): RunAction {
  // the message is the run's own column (SQLite keeps it there only); actions stored before they
  // named their agent: the run's agent column says it
  const filled = stored !== null && typeof stored === 'object' && !('message' in stored && 'agentId' in stored) ? { message: row.message, agentId: row.agentId, ...stored } : stored;
  const parsed = runActionSchema.safeParse(filled);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join('.') || '(action)').join(', ');
    throw new HeraldError('HERALD_INTERNAL', `stored run ${runId} has an invalid action (${fields})`);
  }
  return parsed.data;
}
