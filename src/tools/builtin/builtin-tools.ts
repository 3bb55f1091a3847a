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
}

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
          default:
            return { text: `herald has no tool named ${spec.tool}`, isError: true };
        }
      } catch (error) {
        return { text: error instanceof Error ? error.message : String(error), isError: true };
      }
    },
  };
}
