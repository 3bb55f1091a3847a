import { HeraldError } from '../../errors.js';
import type { Store, ToolQuestionRecord } from '../../store/port.js';

export interface AnswerInput {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  /** the admin caller's name */
  by: string;
}

const STATUS = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' } as const;

/** an accepted form's content: the schema's defaults for the fields left out, every required field there */
export function acceptedContent(question: ToolQuestionRecord, content: Record<string, unknown> = {}): Record<string, unknown> {
  const properties = (question.requestedSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
  const filled: Record<string, unknown> = { ...content };
  for (const [name, property] of Object.entries(properties)) if (filled[name] === undefined && property?.default !== undefined) filled[name] = property.default;
  const required = (question.requestedSchema?.required ?? []) as string[];
  const missing = required.find((name) => filled[name] === undefined);
  if (missing) throw new HeraldError('HERALD_INVALID_FIELD', `content.${missing} is required by the server's question`, { param: `content.${missing}` });
  const unknown = Object.keys(filled).find((name) => !Object.hasOwn(properties, name));
  if (unknown && Object.keys(properties).length) throw new HeraldError('HERALD_INVALID_FIELD', `content.${unknown} is not a field of the server's question`, { param: `content.${unknown}` });
  return filled;
}

/**
 * A person's answer to a server's question, recorded once (of two answers one wins: 409). The
 * call waiting on it (on this replica or another) reads it from the store and hands it to the server.
 */
export async function answerQuestion(store: Pick<Store, 'questions'>, id: string, input: AnswerInput, now = Date.now()): Promise<ToolQuestionRecord> {
  const question = await store.questions.get(id);
  if (!question) throw new HeraldError('HERALD_NOT_FOUND', 'question not found');
  if (question.status !== 'pending') throw new HeraldError('HERALD_QUESTION_NOT_PENDING', `this question was ${question.status}${question.answeredBy ? ` (${question.answeredBy})` : ''}`);
  const content = input.action === 'accept' && question.mode === 'form' ? acceptedContent(question, input.content) : undefined;
  const settled = await store.questions.settle(id, { status: STATUS[input.action], ...(content && { content }), by: input.by, at: now });
  if (!settled) throw new HeraldError('HERALD_QUESTION_NOT_PENDING');
  return settled;
}
