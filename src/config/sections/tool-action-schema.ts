import { z } from 'zod';
import { retryPolicySchema } from './delivery-policy-schema.js';
import { requireApprovalSchema } from './tools-schema.js';

/**
 * A tool called directly, without a model: a mapping's `action: "tool"` and a schedule's
 * `payload.kind: "toolCall"` (docs/tools.md, "Direct calls"). Declared once, used by both.
 */

/** `<server>__<tool>`: the name an agent's model sees (tool-name.ts), so a grant's globs read the same */
export const toolCallName = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*__[A-Za-z0-9_-]+$/, 'a tool name as <server>__<tool> (e.g. slack__post_message)')
  .describe('The tool to call, as <server>__<tool>: a server of tools.mcpServers, or herald for the built-ins.');

export const toolCallThenSchema = z
  .object({
    message: z
      .string()
      .min(1)
      .describe('The message made of the result (templated: {{ result.text }} is the result\'s text, {{ result.json.<field> }} a field of a JSON result, {{ arguments.<name> }} what was sent).'),
    channel: z.string().optional().describe('Delivers the message to this channel (a channel plugin id or alias, or last) through the outbox; without it the message only goes to the main session.'),
    to: z.string().optional().describe('The recipient on the channel (templated over the request, as a mapping\'s to).'),
    threadId: z.string().optional().describe('The platform thread or message to reply in (templated over the request).'),
    wakeMode: z.enum(['now', 'next-heartbeat']).optional().describe('now: the main session is woken with the message at once (a heartbeat); next-heartbeat (default): it waits for the next one.'),
  })
  .strict();

export type ToolCallThen = z.output<typeof toolCallThenSchema>;

/** the mapping fields of `action: "tool"` */
export const mappingToolCallFields = {
  tool: toolCallName.optional().describe('action "tool": the tool to call, as <server>__<tool> (docs/tools.md, "Direct calls").'),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('action "tool": the call\'s arguments. Each string value is a template: a value that is one {{ expr }} keeps the expression\'s type (a number, an object), any other renders as text. Checked against the tool\'s input schema before the call.'),
  argumentsTemplate: z
    .string()
    .min(1)
    .optional()
    .describe('action "tool": one JSONata expression (with or without {{ }}) yielding the whole arguments object, instead of arguments.'),
  then: toolCallThenSchema.optional().describe('action "tool": what becomes of the result: a message made of it, delivered to a channel through the outbox, or to the main session.'),
};

/** a schedule's payload that calls a tool: the operator's own config, so its writes run without a person unless requireApproval says so */
export const toolCallPayloadSchema = z
  .object({
    kind: z.literal('toolCall'),
    tool: toolCallName,
    arguments: z.record(z.string(), z.unknown()).default({}).describe('The call\'s arguments as written (the operator\'s own, not templated), checked against the tool\'s input schema before each call.'),
    requireApproval: requireApprovalSchema.optional(),
    retry: retryPolicySchema.optional().describe('Retries of a failed call: only for a read-only or idempotent tool, or a call that failed before reaching its server (attempts, backoff, initialMs, maxMs).'),
    then: toolCallThenSchema.optional().describe('A message made of the result, delivered as the job\'s delivery says (its channel, or then.channel).'),
    timeoutSeconds: z.number().positive().max(3600).optional().describe('Time limit of the call (default: the server\'s timeoutSeconds, else tools.callTimeoutSeconds).'),
  })
  .strict();
