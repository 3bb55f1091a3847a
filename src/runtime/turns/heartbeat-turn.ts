import type { Logger } from 'pino';
import { annotate, traced } from '../../tracing/tracing.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { runAgentTurn, type AgentTurnDeps } from '../../agents/agent-turn.js';
import { callsLedger } from '../../agents/tool-use/tool-ledger.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import type { Store, SystemEvent } from '../../store/port.js';
import { deadline } from '../../time/deadline.js';
import { MAIN_SESSION, MAX_PENDING_EVENTS } from '../main-session.js';
import { UNTRUSTED_MARK, untrustedNotice } from '../summary.js';
import { isHeartbeatAck, type ReplyDelivery } from '../delivery/reply-delivery.js';
import { withLease, type StateLease } from '../../plugin-sdk/state-lease.js';

/** the state key of the heartbeat's lease: one turn at a time across every process on the store */
export const HEARTBEAT_LEASE_KEY = 'heartbeat:lease';

/** a turn that did not run: another process holds the heartbeat (until `busyUntil` at most), or ran one lately */
export type HeartbeatOutcome = { ran: true } | { ran: false; busyUntil?: number };

export interface HeartbeatTurnDeps {
  config: HeraldConfig;
  store: Store;
  /** the agent turn's own needs (models, sessions); the heartbeat reads no knowledge */
  turns: AgentTurnDeps;
  agents: AgentDirectory;
  delivery: ReplyDelivery;
  logger: Logger;
  /** this process's identity on the heartbeat lease and the events it claims */
  owner: string;
}

/**
 * One heartbeat: the main agent looks at the pending system events. It runs only under the
 * heartbeat lease, so across replicas one turn runs at a time. Events are claimed with the same
 * lease (renewed with it) and only marked done once the turn succeeded; a failed turn gives them
 * back, a crashed one leaves them to the next holder once the lease runs out. The model call gets
 * `agents.defaults.timeoutSeconds`, like a run, and is aborted by a shutdown.
 *
 * `periodic`: the timer asked (every `everyMs`), not a wake; skipped when any replica finished a
 * turn within half a period, so N replicas do not make N periodic heartbeats.
 */
export function heartbeatTurn(deps: HeartbeatTurnDeps): (shutdown?: AbortSignal, periodic?: { everyMs: number }) => Promise<HeartbeatOutcome> {
  return async (shutdown, periodic) => {
    const { store, config, owner } = deps;
    const leaseMs = config.agents.defaults.leaseMs;
    let claimed: number[] = [];
    const outcome = await withLease(
      store.state,
      HEARTBEAT_LEASE_KEY,
      owner,
      leaseMs,
      async () => {
        if (periodic) {
          const lease = await store.state.get<StateLease>(HEARTBEAT_LEASE_KEY);
          if (lease?.lastDoneAt !== undefined && lease.lastDoneAt > Date.now() - periodic.everyMs / 2) return false;
        }
        const now = Date.now();
        const events = await store.events.claimPending(MAIN_SESSION, { owner, now, until: now + leaseMs }, MAX_PENDING_EVENTS);
        claimed = events.map((e) => e.id);
        try {
          // a trace of its own: a turn over events from many requests (and schedules) belongs to none of them
          await traced('herald.heartbeat', { parent: null, attributes: { 'herald.heartbeat.events': events.length, 'herald.heartbeat.periodic': periodic !== undefined } }, () => runTurn(deps, events, shutdown));
        } catch (error) {
          await store.events.release(claimed, owner).catch(() => {});
          throw error;
        }
        return true;
      },
      (until) => store.events.renew(claimed, owner, until),
    );
    if (!outcome.held) return { ran: false, busyUntil: outcome.lease.until };
    return outcome.value ? { ran: true } : { ran: false };
  };
}

async function runTurn(deps: HeartbeatTurnDeps, events: SystemEvent[], shutdown?: AbortSignal): Promise<void> {
  const { store, config } = deps;
  // GC-safe on Node 20, unlike AbortSignal.any with AbortSignal.timeout (see deadline.ts)
  const limit = deadline(config.agents.defaults.timeoutSeconds * 1000, shutdown);
  try {
    const texts = events.map((e) => e.text);
    // the flag stored with each event decides the mark, never the event's text
    const notice = untrustedNotice(events);
    const lines = events.map((e) => `- ${e.untrusted ? `${UNTRUSTED_MARK} ` : ''}${e.text}`);
    const prompt = texts.length
      ? `Heartbeat. System events since the last heartbeat:\n${lines.join('\n')}\n\n${notice ? `${notice}\n` : ''}Act on what needs attention; reply HEARTBEAT_OK if nothing does.`
      : 'Heartbeat. No new system events. Reply HEARTBEAT_OK if nothing needs attention.';
    const agent = deps.agents.default();
    // a heartbeat reads the summaries of runs over outside content: then a write needs a person, whom a heartbeat cannot wait for
    const tools = deps.turns.toolbox?.grant(agent, { outside: events.some((e) => e.untrusted), canWait: false });
    const { text } = await runAgentTurn(deps.turns, {
      agent,
      ...(tools && deps.turns.toolCalls && { tools, ledger: callsLedger(deps.turns.toolCalls, 'heartbeat', `hb_${uuidV7().replace(/-/g, '')}`) }),
      purpose: 'heartbeat',
      sessionKey: MAIN_SESSION,
      prompt,
      events: texts,
      signal: limit.signal,
      deadlineAt: Date.now() + config.agents.defaults.timeoutSeconds * 1000,
      incoming: [{ role: 'user', content: prompt, createdAt: Date.now() }],
      // an idle ack carries nothing worth keeping in the transcript
      keep: (answer) => texts.length > 0 || !isHeartbeatAck(answer, config.heartbeat.ackMaxChars),
      usage: { source: 'heartbeat' },
    });
    const ack = isHeartbeatAck(text, config.heartbeat.ackMaxChars);
    annotate({ 'herald.heartbeat.ack': ack });
    await store.events.complete(events.map((e) => e.id));
    deps.logger.info({ events: events.length, ack }, 'heartbeat');
    if (!ack) await deps.delivery.deliverHeartbeatReply(text);
  } finally {
    limit.clear();
  }
}
