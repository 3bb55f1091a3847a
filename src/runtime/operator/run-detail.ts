import { HeraldError } from '../../errors.js';
import type { ReceiptRecord, RunRecord, ScheduleFire, SessionMessage, Store, ToolCallRecord } from '../../store/port.js';
import type { DeliveryActions } from '../delivery/delivery-actions.js';
import { promptOf } from '../run-prompt.js';

/** The most messages of a run's session read to find the run's own. */
const SESSION_MESSAGES_READ = 1000;
const RERUNS_LISTED = 50;

/** One run as an operator looks into it: what it was asked, what the model saw and said, where it came from and went. */
export interface RunDetail {
  run: RunRecord;
  /** the run's own messages in its session, oldest first */
  transcript: SessionMessage[];
  /** the prompt as the model saw it (wrapped external content included), when recorded */
  prompt: string | null;
  /** the model that answered, else the one the action asked for */
  model: string | null;
  /** the agent's MCP servers that waited for a person to sign in during the run (their tools not offered) */
  awaitingSignIn: string[];
  /** the webhook request that started it */
  receipt: ReceiptRecord | null;
  /** the schedule fire that made it (a scheduled job's run) */
  fire: ScheduleFire | null;
  /** ids of runs started again from this one */
  reruns: string[];
  delivery: unknown;
  /** its tool calls, in the order its model turns made them */
  toolCalls: ToolCallRecord[];
}

/** Gathers a run's detail from the store; HERALD_NOT_FOUND when there is no such run. */
export async function runDetail(deps: { store: Store; delivery: Pick<DeliveryActions, 'describe'> }, id: string): Promise<RunDetail> {
  const { store } = deps;
  const run = await store.runs.get(id);
  if (!run) throw new HeraldError('HERALD_NOT_FOUND', 'run not found');
  const { schedule } = run.action;
  const [messages, [receipt], reruns, delivery, toolCalls, fires] = await Promise.all([
    store.sessions.messages(run.sessionKey, SESSION_MESSAGES_READ),
    store.receipts.list({ limit: 1, runId: run.id }),
    store.browse.runs({ limit: RERUNS_LISTED, rerunOf: run.id }),
    deps.delivery.describe(run),
    store.toolCalls.ofOwner('run', run.id),
    // by its key (job, due time): one row of the primary key
    schedule ? store.schedules.listFires({ limit: 1, scheduleId: schedule.id, since: schedule.dueAt, until: schedule.dueAt }) : [],
  ]);
  const transcript = messages.filter((m) => m.runId === run.id);
  const asked = transcript.find((m) => m.role === 'user');
  return {
    run,
    transcript,
    prompt: promptOf(run.action, run.createdAt, asked?.meta),
    model: (asked?.meta?.model as string | undefined) ?? ((run.action.model as string | undefined) ?? null),
    awaitingSignIn: (asked?.meta?.awaitingSignIn as string[] | undefined) ?? [],
    receipt: receipt ?? null,
    fire: fires[0] ?? null,
    reruns: reruns.map((r) => r.id),
    delivery,
    toolCalls,
  };
}
