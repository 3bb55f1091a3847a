import type { ToolCallOptions, ToolResult, ToolSource, ToolSpec } from '../tool-spec.js';
import { BUILTIN_SERVER } from '../tool-policy.js';

/** what herald's own tools do, given by the gateway: each a port onto a part above this layer */
export interface BuiltinPorts {
  /** the agent's knowledge and the vector stores attached to it, best first */
  searchKnowledge(agentId: string, query: string, limit: number): Promise<{ filename: string; content: string }[]>;
  /** a message to a channel target through the durable outbox; `id` keys it, so a resumed call queues it once */
  sendMessage(message: { id: string; agentId: string; channel: string; to?: string; text: string }): Promise<void>;
  /** an event on the main session (the heartbeat reads it) */
  addEvent(agentId: string, text: string): Promise<boolean>;
  /**
   * a one-shot follow-up turn for the agent of the run `owner`, `when` from now or at a time, within
   * the operator's limits (a refusal throws, its message naming the limit); `id` keys it, so a
   * resumed call sets it once. Answers what was set.
   */
  scheduleFollowup(request: { id: string; agentId: string; owner?: ToolCallOptionsContext['owner']; in?: string; at?: string; message: string }): Promise<string>;
}

type ToolCallOptionsContext = NonNullable<ToolCallOptions['context']>;

const MAX_PASSAGES = 10;

const spec = (tool: string, description: string, inputSchema: Record<string, unknown>, readOnly: boolean): ToolSpec => ({
  name: `${BUILTIN_SERVER}__${tool}`,
  server: BUILTIN_SERVER,
  tool,
  description,
  inputSchema,
  readOnly,
});

const SPECS: ToolSpec[] = [
  spec(
    'search_knowledge',
    "Searches this agent's knowledge base and its vector stores; returns the best passages with their file names.",
    {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'What to look for.' }, limit: { type: 'integer', minimum: 1, maximum: MAX_PASSAGES } },
      required: ['query'],
      additionalProperties: false,
    },
    true,
  ),
  spec(
    'send_message',
    'Sends a message to a chat channel target (a configured channel plugin and its recipient), delivered with retries.',
    {
      type: 'object',
      properties: {
        channel: { type: 'string', minLength: 1, description: 'A configured channel (telegram, slack, webhook, ...).' },
        to: { type: 'string', description: 'The recipient on that channel (a chat id, a channel name).' },
        text: { type: 'string', minLength: 1, maxLength: 20_000 },
      },
      required: ['channel', 'text'],
      additionalProperties: false,
    },
    false,
  ),
  spec(
    'add_event',
    "Adds an event to the main session: the next heartbeat's turn reads it.",
    { type: 'object', properties: { text: { type: 'string', minLength: 1, maxLength: 4000 } }, required: ['text'], additionalProperties: false },
    false,
  ),
  spec(
    'schedule_followup',
    'Sets a one-shot follow-up for yourself: after `in` (a duration such as "2h") or at `at` (an ISO time with its offset), you are sent `message` as a new turn of this session, and your reply is delivered as this one\'s is. Use it to look again later.',
    {
      type: 'object',
      properties: {
        message: { type: 'string', minLength: 1, maxLength: 4000, description: 'What you will be asked then (say what to look at again and why).' },
        in: { type: 'string', pattern: '^\\d+(\\.\\d+)?(s|m|h|d)$', description: 'How long from now: 90s, 20m, 2h, 1d.' },
        at: { type: 'string', description: 'Or when: an ISO time with its offset, 2026-01-05T07:00:00+01:00.' },
      },
      required: ['message'],
      additionalProperties: false,
    },
    false,
  ),
];

/** herald's own tools, server `herald`: granted like any server's (an agent lists `herald` in tools.servers) */
export function builtinTools(ports: BuiltinPorts): ToolSource {
  return {
    tools: () => SPECS,
    async call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
      const agentId = options.context?.agentId ?? '';
      try {
        switch (spec.tool) {
          case 'search_knowledge': {
            const found = await ports.searchKnowledge(agentId, String(args.query), Math.min(Number(args.limit ?? 4), MAX_PASSAGES));
            if (!found.length) return { text: 'nothing found', isError: false };
            return { text: found.map((p, i) => `[${i + 1}] (${p.filename})\n${p.content}`).join('\n\n'), isError: false };
          }
          case 'send_message':
            await ports.sendMessage({
              id: `tool-${options.context?.callRecordId ?? ''}`,
              agentId,
              channel: String(args.channel),
              ...(typeof args.to === 'string' && { to: args.to }),
              text: String(args.text),
            });
            return { text: 'queued for delivery', isError: false };
          case 'add_event':
            return (await ports.addEvent(agentId, String(args.text)))
              ? { text: 'added to the main session', isError: false }
              : { text: 'not added: it repeats the main session\'s last event', isError: false };
          case 'schedule_followup':
            return {
              text: await ports.scheduleFollowup({
                id: options.context?.callRecordId ?? '',
                agentId,
                owner: options.context?.owner,
                ...(typeof args.in === 'string' && { in: args.in }),
                ...(typeof args.at === 'string' && { at: args.at }),
                message: String(args.message),
              }),
              isError: false,
            };
          default:
            return { text: `herald has no tool named ${spec.tool}`, isError: true };
        }
      } catch (error) {
        return { text: error instanceof Error ? error.message : String(error), isError: true };
      }
    },
  };
}
