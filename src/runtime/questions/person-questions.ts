import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { Store, ToolQuestionRecord } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import type { QuestionAnswer, ServerQuestion, ServerQuestions } from '../../tools/mcp/server-questions.js';
import type { NoticeOutbox } from '../approvals/announce-approvals.js';
import { questionNoticeId, questionNoticeText } from './question-notice.js';

/** how often a waiting call looks for its answer (which may be given on another replica) */
const POLL_MS = 250;

const ACTIONS = { accepted: 'accept', declined: 'decline', cancelled: 'cancel' } as const;

export interface PersonQuestionsDeps {
  store: Pick<Store, 'questions'>;
  config: () => Pick<HeraldConfig, 'tools' | 'gateway'>;
  outbox: NoticeOutbox;
  logger: Logger;
  pollMs?: number;
}

/**
 * Servers' questions put to a person: a hook run's becomes a pending question on the record,
 * announced as an approval is (tools.approvals.targets), answered in the console or the admin
 * API, cancelled when unanswered within the call's timeout or when the call ends. A turn no
 * person waits for (a chat completion, a response, a heartbeat) declines it at once.
 */
export class PersonQuestions implements ServerQuestions {
  private readonly log: Logger;

  constructor(private readonly deps: PersonQuestionsDeps) {
    this.log = deps.logger.child({ component: 'questions' });
  }

  async ask(question: ServerQuestion): Promise<QuestionAnswer> {
    if (question.call.owner.kind !== 'run') return { action: 'decline' };
    const now = Date.now();
    const record: ToolQuestionRecord = {
      id: `q_${uuidV7(now).replace(/-/g, '')}`,
      toolCallId: question.call.callRecordId,
      ownerKind: question.call.owner.kind,
      ownerId: question.call.owner.id,
      agentId: question.call.agentId,
      server: question.server,
      mode: question.mode,
      message: question.message,
      requestedSchema: question.requestedSchema ?? null,
      url: question.url ?? null,
      status: 'pending',
      content: null,
      answeredBy: null,
      createdAt: now,
      expiresAt: now + question.timeoutMs,
      answeredAt: null,
    };
    await this.deps.store.questions.create(record);
    this.log.info({ questionId: record.id, server: record.server, runId: record.ownerId, toolCallId: record.toolCallId }, 'a tool server asks a person');
    await this.announce(record);
    const settled = await this.answerOf(record, question.signal);
    return settled.status === 'accepted' ? { action: 'accept', ...(settled.content && { content: settled.content as QuestionAnswer['content'] }) } : { action: ACTIONS[settled.status as keyof typeof ACTIONS] ?? 'cancel' };
  }

  /** the question once settled: by a person, or cancelled at its expiry or when its call ends */
  private async answerOf(record: ToolQuestionRecord, signal: AbortSignal): Promise<ToolQuestionRecord> {
    const { store } = this.deps;
    for (;;) {
      const current = await store.questions.get(record.id);
      if (current && current.status !== 'pending') return current;
      const ended = signal.aborted ? 'call ended' : Date.now() >= record.expiresAt ? 'timeout' : undefined;
      if (ended) {
        const cancelled = await store.questions.settle(record.id, { status: 'cancelled', by: ended, at: Date.now() });
        // answered meanwhile: the answer holds
        return cancelled ?? (await store.questions.get(record.id))!;
      }
      await wait(Math.min(this.deps.pollMs ?? POLL_MS, Math.max(1, record.expiresAt - Date.now())), signal);
    }
  }

  /** one notice per target, through the durable outbox; never throws (the question is on the record and the console whatever happens) */
  private async announce(record: ToolQuestionRecord): Promise<void> {
    const config = this.deps.config();
    const text = questionNoticeText(record, config.gateway);
    for (const target of config.tools.approvals.targets) {
      try {
        await this.deps.outbox.deliverAlert({ id: questionNoticeId(record.id, target), channel: target.channel, to: target.to, text });
      } catch (err) {
        this.log.error({ err, questionId: record.id, channel: target.channel }, 'question notice not queued');
      }
    }
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
