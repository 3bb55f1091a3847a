import type { ChatRequest } from './chat-request-schema.js';

/**
 * The top-level fields a plain chat request may have to take the fast path (tools, formats and
 * every field refuseUnsupported looks at go through the schema).
 */
const PLAIN_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'user',
  'metadata',
  'conversation_id',
  'citations',
  'store',
]);
const PLAIN_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullish = (v: unknown) => v === undefined || v === null;
const positiveInt = (v: unknown) => nullish(v) || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0);

function plainMessage(m: unknown): boolean {
  if (!isObject(m)) return false;
  for (const key in m) if (key !== 'role' && key !== 'content' && key !== 'name') return false;
  return PLAIN_ROLES.has(m.role as string) && typeof m.content === 'string' && (m.name === undefined || typeof m.name === 'string');
}

function stringRecord(v: unknown): boolean {
  if (!isObject(v)) return false;
  // an own `__proto__` key (JSON.parse makes one) is one the schema's copy would not keep
  for (const key in v) if (typeof v[key] !== 'string' || key === '__proto__') return false;
  return true;
}

/**
 * The body itself when it is a plain chat request (text messages of the four plain roles, the
 * sampling fields, herald's extensions) that the schema would take as it is, else undefined and
 * the schema decides. Why: the zod schema's parse (a copy of every message through unions and
 * refinements) would be the largest part of herald's own work on a chat completion. It never refuses:
 * anything it is not sure of goes to the schema, so errors and their wording stay the schema's.
 * A property test holds it to the schema: whatever it takes, the schema takes, and parses to the same value.
 */
export function plainChatRequest(body: unknown): ChatRequest | undefined {
  if (!isObject(body)) return undefined;
  for (const key in body) if (!PLAIN_FIELDS.has(key)) return undefined;
  const b = body;
  if (typeof b.model !== 'string' || b.model.length === 0) return undefined;
  if (!Array.isArray(b.messages) || b.messages.length === 0 || !b.messages.every(plainMessage)) return undefined;
  if (!nullish(b.stream) && typeof b.stream !== 'boolean') return undefined;
  if (!nullish(b.stream_options)) {
    if (!isObject(b.stream_options)) return undefined;
    for (const key in b.stream_options) if (key !== 'include_usage') return undefined;
    const usage = b.stream_options.include_usage;
    if (usage !== undefined && typeof usage !== 'boolean') return undefined;
  }
  if (!nullish(b.temperature) && !(typeof b.temperature === 'number' && b.temperature >= 0 && b.temperature <= 2)) return undefined;
  if (!positiveInt(b.max_tokens) || !positiveInt(b.max_completion_tokens)) return undefined;
  if (!nullish(b.user) && !(typeof b.user === 'string' && b.user.length <= 256)) return undefined;
  if (!nullish(b.metadata) && !stringRecord(b.metadata)) return undefined;
  if (!nullish(b.conversation_id) && !(typeof b.conversation_id === 'string' && b.conversation_id.length > 0)) return undefined;
  if (!nullish(b.citations) && typeof b.citations !== 'boolean') return undefined;
  if (!nullish(b.store) && typeof b.store !== 'boolean') return undefined;
  return b as ChatRequest;
}
