import type { AgentConfig } from '../../agents/agent-directory.js';
import { HeraldError } from '../../errors.js';
import type { KnowledgePassage } from '../../knowledge/knowledge-passage.js';
import type { ApiPrincipal } from '../../accounts/api-keys.js';
import { openChatCompletion, type PlatformTurnsDeps } from '../v1/chat-completion.js';

/** an agent's tool name at /mcp: `ask_<agent id>`, within the 64 characters MCP clients and models take */
export const askToolName = (agentId: string): string => `ask_${agentId.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);

/** the arguments of `ask_<agent>` */
export interface AskInput {
  message: string;
  /** continue this conversation (from an earlier answer's `conversation`) */
  conversation?: string;
}

/** one passage the reply was given, as the client is told of it */
export interface AskCitation {
  /** the `[n]` the reply may cite it by */
  index: number;
  document: string;
  filename: string;
  /** the document as an MCP resource (resources/read) */
  uri: string;
}

export interface AskAnswer {
  reply: string;
  conversation: string;
  citations: AskCitation[];
}

/** a document's resource URI at /mcp */
export const documentUri = (agentId: string, documentId: string) => `herald://agents/${encodeURIComponent(agentId)}/documents/${encodeURIComponent(documentId)}`;

/**
 * `ask_<agent>` over /mcp: a turn of the agent exactly as a chat completion of the same key
 * (openChatCompletion: the key's conversations, the agent's knowledge, its tools under rule 6 of
 * docs/tools.md, the key's and the agent's budgets). `onText` is told of the reply as it is
 * written (the client's progress notifications); the signal's abort cancels the turn.
 */
export async function askAgent(deps: PlatformTurnsDeps, principal: ApiPrincipal, agent: AgentConfig, input: AskInput, signal: AbortSignal, onText?: (chars: number) => void): Promise<AskAnswer> {
  if (typeof input.message !== 'string' || input.message.trim() === '') throw new HeraldError('HERALD_INVALID_FIELD', 'message must be a non-empty string', { param: 'message' });
  if (input.conversation !== undefined && typeof input.conversation !== 'string') throw new HeraldError('HERALD_INVALID_FIELD', 'conversation must be a string', { param: 'conversation' });
  const { chat } = await openChatCompletion(deps, principal, {
    model: agent.id,
    conversationId: input.conversation,
    messages: [{ role: 'user', content: input.message }],
  });
  const cancel = () => chat.cancel(signal.reason);
  if (signal.aborted) cancel();
  signal.addEventListener('abort', cancel, { once: true });
  let chars = 0;
  try {
    const outcome = await chat.run({
      stream: onText !== undefined,
      onDelta: (delta) => {
        if (delta.type !== 'delta') return;
        chars += delta.text.length;
        onText?.(chars);
      },
    });
    // the turn keeps its messages (no `store: false` here), so its conversation is stored
    return { reply: outcome.refusal ?? outcome.text, conversation: chat.conversationId!, citations: citationsOf(agent.id, outcome.knowledge) };
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

const citationsOf = (agentId: string, passages: KnowledgePassage[]): AskCitation[] =>
  passages.map((p, i) => ({ index: i + 1, document: p.documentId, filename: p.filename, uri: documentUri(agentId, p.documentId) }));

/** the JSON Schemas of `ask_<agent>`'s input and structured output, as tools/list declares them */
export const ASK_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to ask or tell the agent.' },
    conversation: { type: 'string', description: "Continue a conversation: an earlier answer's `conversation`. Omit to start a new one." },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

export const ASK_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    reply: { type: 'string', description: "The agent's reply." },
    conversation: { type: 'string', description: 'Pass it back as `conversation` to continue.' },
    citations: {
      type: 'array',
      description: 'The knowledge passages the agent was given; the reply cites them as [index].',
      items: {
        type: 'object',
        properties: { index: { type: 'integer' }, document: { type: 'string' }, filename: { type: 'string' }, uri: { type: 'string' } },
        required: ['index', 'document', 'filename', 'uri'],
      },
    },
  },
  required: ['reply', 'conversation', 'citations'],
} as const;
