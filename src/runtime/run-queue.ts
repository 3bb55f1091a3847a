import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { prepareTurn } from '../agents/agent-turn.js';
import { wrapExternalContent } from '../agents/external-content.js';
import type { AgentAction } from '../mappings/hook-action.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { KnowledgePassage } from '../models/provider.js';
import type { RunCompletion, RunRecord, Store } from '../store/port.js';
import { SessionLanes } from './session-lanes.js';
import type { Heartbeat } from './heartbeat.js';
import { MAIN_SESSION, MAX_PENDING_EVENTS, type MainSession } from './main-session.js';
import { isHeartbeatAck, type ReplyDelivery } from './reply-delivery.js';
import { runSummary } from './summary.js';

/** how many earlier messages of a session the model sees */
const HISTORY_LIMIT = 50;

export interface RunQueueDeps {
  config: HeraldConfig;
  store: Store;
  models: ModelRegistry;
  agents: AgentDirectory;
  mainSession: MainSession;
  heartbeat: Heartbeat;
  delivery: ReplyDelivery;
  /** the agent's knowledge base: a hook run's model sees the passages its message matches */
  knowledge?: { search(agentId: string, question: string): KnowledgePassage[] };
  logger: Logger;
  /** told of each run that reached a final status (metrics) */
  onRunFinished?: (status: RunCompletion['status']) => void;
}

class RunTimeout extends Error {}

/** a run waiting for a slot; `freshSession`: its session key was made up at submit, so the session is empty */
interface Waiting {
  run: RunRecord;
  freshSession: boolean;
}

/**
 * Agent runs: recorded durably before the 202, executed with bounded concurrency, each in its
 * own session, each aborted at its time limit. Runs left queued or running by a stopped
 * process are picked up again by `resume()`.
 */
export class RunQueue {
  /** the record itself is kept: reading it back from the store before executing told nothing new */
  private readonly waiting = new SessionLanes<Waiting>();
  /** the ids of `waiting`: a backlog of thousands must not be scanned on every submit */
  private readonly waitingIds = new Set<string>();
  private readonly active = new Map<string, { promise: Promise<void>; abort: AbortController; sessionKey: string }>();
  private accepting = true;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: RunQueueDeps) {}

  /** `options.id`: an id chosen before dispatch (an Idempotency-Key record points at it) */
  async submit(action: AgentAction, options: { id?: string } = {}): Promise<string> {
    const id = options.id ?? randomUUID();
    // runs accepted before agentId existed carry none: the default agent, as then
    const agent = (action.agentId && this.deps.agents.get(action.agentId)) || this.deps.agents.default();
    const freshSession = action.sessionKey === undefined;
    const run: RunRecord = {
      id,
      status: 'queued',
      agentId: agent.id,
      name: action.name,
      sessionKey: action.sessionKey ?? `hook:${randomUUID()}`,
      message: action.message,
      action: { ...action },
      reply: null,
      error: null,
      createdAt: Date.now(),
      startedAt: null,
      finishedAt: null,
    };
    await this.deps.store.runs.insert(run);
    this.enqueue({ run, freshSession });
    return id;
  }

  /** re-queues what a previous process accepted but did not finish */
  async resume(): Promise<number> {
    const unfinished = await this.deps.store.runs.unfinished();
    for (const run of unfinished) this.enqueue({ run, freshSession: false });
    if (unfinished.length) this.deps.logger.info({ runs: unfinished.length }, 'resuming unfinished runs');
    return unfinished.length;
  }

  private enqueue(waiting: Waiting): void {
    const { id } = waiting.run;
    if (this.waitingIds.has(id) || this.active.has(id)) return;
    this.waitingIds.add(id);
    this.waiting.push(waiting.run.sessionKey, waiting);
    this.schedulePump();
  }

  /**
   * Runs start from a setImmediate, never straight from a promise callback: a run on the
   * embedded model finishes without real I/O, so starting the next one in `.finally` chained
   * the whole backlog into one microtask burst that starved the HTTP server (the benchmark saw
   * seconds-long p99 on /hooks/agent). Yielding lets pending requests in between runs.
   */
  private pumpScheduled?: NodeJS.Immediate;
  private schedulePump(): void {
    this.pumpScheduled ??= setImmediate(() => {
      this.pumpScheduled = undefined;
      this.pump();
    });
  }

  /**
   * Starts waiting runs, oldest first, up to the concurrency bound. Runs of one session go one
   * at a time, in order: the second turn of a conversation must see the first one's reply.
   */
  private pump(): void {
    const max = this.deps.config.agents.defaults.maxConcurrent;
    while (this.accepting && this.active.size < max) {
      const waiting = this.waiting.take();
      if (!waiting) return;
      const { id, sessionKey } = waiting.run;
      this.waitingIds.delete(id);
      const abort = new AbortController();
      const promise = this.execute(waiting, abort.signal)
        .catch((error) => this.deps.logger.error({ err: error, runId: id }, 'run bookkeeping failed'))
        .finally(() => {
          this.active.delete(id);
          this.waiting.release(sessionKey);
          this.schedulePump();
          if (this.active.size === 0 && this.waiting.length === 0) this.idleWaiters.splice(0).forEach((w) => w());
        });
      this.active.set(id, { promise, abort, sessionKey });
    }
  }

  private async execute({ run, freshSession }: Waiting, shutdown: AbortSignal): Promise<void> {
    const { store, config, logger } = this.deps;
    const { id } = run;
    const action = run.action as unknown as AgentAction;
    const agent = this.deps.agents.get(run.agentId) ?? this.deps.agents.default();
    await store.runs.markRunning(id, Date.now());

    const timeoutMs = (action.timeoutSeconds ?? config.agents.defaults.timeoutSeconds) * 1000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new RunTimeout('run timed out')), timeoutMs);
    const onShutdown = () => controller.abort(shutdown.reason);
    shutdown.addEventListener('abort', onShutdown);
    try {
      // a session key made up at submit (a random uuid) has no history to read
      const history = freshSession ? [] : await store.sessions.messages(run.sessionKey, HISTORY_LIMIT);
      const prompt = action.allowUnsafeExternalContent
        ? action.message
        : wrapExternalContent(action.message, {
            source: action.source?.mappingId === 'agent' ? 'webhook /agent' : `webhook mapping ${action.source?.mappingId ?? 'unknown'}`,
            hookName: action.name,
            receivedAt: new Date(run.createdAt).toISOString(),
          });
      const { provider, request } = prepareTurn(
        {
          agent,
          model: action.model,
          purpose: 'run',
          history,
          prompt,
          question: action.message,
          knowledge: this.deps.knowledge?.search(agent.id, action.message),
          thinking: action.thinking,
          signal: controller.signal,
        },
        this.deps.models,
        config,
      );
      const response = await provider.complete(request);
      const now = Date.now();
      const transcript = [
        { role: 'user' as const, content: action.message, createdAt: run.createdAt, runId: id },
        { role: 'assistant' as const, content: response.text, createdAt: now, runId: id },
      ];
      await this.complete(id, { status: 'succeeded', reply: response.text, at: now, transcript }, action.name, { reply: response.text });
      // fields, not a child logger: a child per run cost more than the run's own log line
      logger.info({ runId: id, sessionKey: run.sessionKey, status: 'succeeded', ms: now - (run.startedAt ?? run.createdAt) }, 'run finished');
      await this.afterRun({ ...run, status: 'succeeded', reply: response.text }, action, response.text);
    } catch (error) {
      if (shutdown.aborted) return; // left as running: the next process resumes it
      const timedOut = controller.signal.reason instanceof RunTimeout;
      const message = timedOut ? `timed out after ${timeoutMs / 1000}s` : describeError(error);
      const status = timedOut ? 'timed_out' : 'failed';
      await this.complete(id, { status, error: message, at: Date.now(), transcript: [] }, action.name, timedOut ? { timedOut } : { error: message });
      logger.warn({ runId: id, sessionKey: run.sessionKey, status, error: message }, 'run failed');
      await this.afterRun({ ...run, status, error: message }, action);
    } finally {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
    }
  }

  /** the run's status, transcript and its always-posted summary, in one transaction */
  private async complete(id: string, completion: Omit<RunCompletion, 'summary'>, name: string, outcome: Parameters<typeof runSummary>[1]) {
    const summary = { session: MAIN_SESSION, text: runSummary(name, outcome), maxPending: MAX_PENDING_EVENTS };
    const finished = await this.deps.store.runs.complete(id, { ...completion, summary });
    if (finished) this.deps.onRunFinished?.(completion.status);
    return finished;
  }

  /** then delivery (the outbox re-queues it at start should the process die first); then the heartbeat if asked */
  private async afterRun(run: RunRecord, action: AgentAction, reply?: string) {
    if (reply !== undefined && action.deliver && !isHeartbeatAck(reply, this.deps.config.heartbeat.ackMaxChars)) {
      await this.deps.delivery.deliverRunReply(run, action, reply);
    }
    if (action.wakeMode === 'now') this.deps.heartbeat.request();
  }

  /** resolves when no run is queued or running (tests) */
  idle(): Promise<void> {
    if (this.active.size === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** stops taking work; runs still going after `graceMs` are aborted and stay resumable */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    this.waiting.clear();
    this.waitingIds.clear();
    const all = Promise.all([...this.active.values()].map((a) => a.promise));
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([all, grace]);
    for (const { abort } of this.active.values()) abort.abort(new Error('shutting down'));
    await all;
  }
}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 499)}…` : message;
}
