import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { prepareTurn } from '../agents/agent-turn.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { Store } from '../store/port.js';
import { deadline } from '../deadline.js';
import { MAIN_SESSION } from './main-session.js';
import { isHeartbeatAck, type ReplyDelivery } from './reply-delivery.js';

export interface HeartbeatTurnDeps {
  config: HeraldConfig;
  store: Store;
  models: ModelRegistry;
  agents: AgentDirectory;
  delivery: ReplyDelivery;
  logger: Logger;
}

/**
 * One heartbeat: the main agent looks at the pending system events. Events are claimed,
 * and only marked done once the turn succeeded; a failed turn leaves them pending. The model
 * call gets `agents.defaults.timeoutSeconds`, like a run, and is aborted by a shutdown.
 */
export function heartbeatTurn(deps: HeartbeatTurnDeps): (shutdown?: AbortSignal) => Promise<void> {
  return async (shutdown) => {
    const { store, config } = deps;
    // GC-safe on Node 20, unlike AbortSignal.any with AbortSignal.timeout (see deadline.ts)
    const limit = deadline(config.agents.defaults.timeoutSeconds * 1000, shutdown);
    const signal = limit.signal;
    const events = await store.events.claimPending(MAIN_SESSION);
    try {
      const texts = events.map((e) => e.text);
      const prompt = texts.length
        ? `Heartbeat. System events since the last heartbeat:\n${texts.map((t) => `- ${t}`).join('\n')}\n\nAct on what needs attention; reply HEARTBEAT_OK if nothing does.`
        : 'Heartbeat. No new system events. Reply HEARTBEAT_OK if nothing needs attention.';
      const history = await store.sessions.messages(MAIN_SESSION, 50);
      const { provider, request } = prepareTurn(
        { agent: deps.agents.default(), purpose: 'heartbeat', history, prompt, events: texts, signal },
        deps.models,
        config,
      );
      const { text } = await provider.complete(request);
      const ack = isHeartbeatAck(text, config.heartbeat.ackMaxChars);
      // an idle ack carries nothing worth keeping in the transcript
      if (texts.length || !ack) {
        const now = Date.now();
        await store.sessions.append(MAIN_SESSION, { role: 'user', content: prompt, createdAt: now });
        await store.sessions.append(MAIN_SESSION, { role: 'assistant', content: text, createdAt: now });
      }
      await store.events.complete(events.map((e) => e.id));
      deps.logger.info({ events: events.length, ack }, 'heartbeat');
      if (!ack) await deps.delivery.deliverHeartbeatReply(text);
    } catch (error) {
      await store.events.requeueProcessing();
      throw error;
    } finally {
      limit.clear();
    }
  };
}
