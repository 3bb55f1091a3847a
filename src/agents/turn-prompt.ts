import type { HeraldConfig } from '../config/schema.js';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import { modelChain } from '../models/model-chain.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { ChatMessage, ModelOptions, ModelRequest } from '../models/provider.js';
import type { SessionMessage } from '../store/port.js';
import type { AbortWatch } from '../time/lazy-abort.js';
import type { AgentConfig } from './agent-directory.js';
import { chatMessageOf, wellFormedToolSequence } from './tool-use/tool-messages.js';
import { countedMessage } from '../utils/word-count.js';

export interface TurnPromptInput {
  agent: AgentConfig;
  /** model ref override; the agent's own model otherwise */
  model?: string;
  purpose: ModelRequest['purpose'];
  /** earlier messages, oldest first; system ones join the instructions */
  history: SessionMessage[];
  /** what the model sees as the new user message (possibly safety-wrapped); none when the turn only continues */
  prompt?: string;
  /** the prompt's words, when they were counted as it was made (kept with its message: countedMessage) */
  promptWords?: number;
  /** after the new message: the assistant's client tool calls and their results, continuing the turn */
  continuation?: SessionMessage[];
  /** the new message as received */
  question?: string;
  events?: string[];
  knowledge: KnowledgePassage[];
  options?: ModelOptions;
  signal?: AbortSignal;
  limit?: AbortWatch;
}

/**
 * Assembles an agent's prompt and picks its models: the agent's instructions, then the session's
 * own system messages (a chat client's), then the knowledge passages, the history and the message.
 * `provider` and `resolved` are the first of `refs`, the chain a non-streamed turn falls back along.
 */
export function assembleTurn(input: TurnPromptInput, models: ModelRegistry, config: HeraldConfig) {
  const refs = turnModelRefs(config, input.agent, input.model);
  const { provider, resolved } = models.resolve(refs[0]!);
  // one pass over the history, by push (packed arrays: packedMap's note): every turn assembles a prompt, and each filter, spread or join is an array more
  let instructions = input.agent.instructions || '';
  const said: ChatMessage[] = [];
  for (const m of input.history) {
    if (m.role !== 'system') said.push(chatMessageOf(m));
    else if (m.content) instructions = instructions ? `${instructions}\n\n${m.content}` : m.content;
  }
  instructions = instructions.trim();
  const knowledge = knowledgeBlock(input.knowledge);
  const system = instructions && knowledge ? `${instructions}\n\n${knowledge}` : instructions || knowledge;
  if (input.prompt !== undefined) said.push(countedMessage('user', input.prompt, input.promptWords));
  if (input.continuation) for (const m of input.continuation) said.push(chatMessageOf(m));
  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  wellFormedToolSequence(said, messages);
  // every field named, set or not (not a copy of `options`, whose shape is each caller's own): one shape for every model request
  const options = input.options;
  const request: ModelRequest = {
    temperature: options?.temperature,
    maxTokens: options?.maxTokens,
    user: options?.user,
    extra: options?.extra,
    model: resolved.model,
    messages,
    purpose: input.purpose,
    events: input.events,
    knowledge: input.knowledge,
    question: input.question,
    thinking: options?.thinking ?? config.agents.defaults.thinking,
    signal: input.signal,
    limit: input.limit,
    onOpen: undefined,
  };
  return { provider, resolved, request, refs };
}

/** the models a turn of `agent` tries, in order (see modelChain): `model` overrides the agent's own */
export function turnModelRefs(config: HeraldConfig, agent: AgentConfig, model?: string): string[] {
  return modelChain(config.agents.defaults.model, model ?? agent.model);
}

function knowledgeBlock(passages: KnowledgePassage[]): string | undefined {
  if (!passages.length) return undefined;
  const lines = passages.map((p, i) => `[${i + 1}] (${p.filename})\n${p.content}`);
  return `Answer from these knowledge-base passages when they are relevant, and cite them by number:\n\n${lines.join('\n\n')}`;
}
