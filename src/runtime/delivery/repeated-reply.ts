import { createHash } from 'node:crypto';
import type { StateRepo, Store } from '../../store/port.js';

/** the state key of what the outbox last delivered to a recipient (a digest of the text, never the text) */
const lastSentKey = (channel: string, to: string) => `delivery:lastSent:${channel}:${to}`;

/** how long a heartbeat reply that repeats the last message its recipient got stays unsent (OpenClaw's heartbeat dedup window) */
export const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

interface LastSent {
  digest: string;
  at: number;
}

const digestOf = (text: string) => createHash('sha256').update(text.trim()).digest('hex').slice(0, 32);

/** after a delivery reached its recipient, before its row is marked delivered: what it said (as a digest) and when */
export async function rememberSent(state: StateRepo, route: { channel: string; to: string }, text: string, at: number): Promise<void> {
  await state.set(lastSentKey(route.channel, route.to), { digest: digestOf(text), at } satisfies LastSent);
}

/**
 * Whether `text` is, word for word, the last message the outbox delivered to this recipient within
 * the window. A heartbeat woken by a hook run reads that run's summary, and its reply goes to the
 * main session's last route: when the run's reply fell back to another target, that target is the
 * last route, and a model answering the heartbeat with the run's words sent them there a second time.
 */
async function repeatsLastSent(state: StateRepo, route: { channel: string; to: string }, text: string, now: number): Promise<boolean> {
  const last = await state.get<LastSent>(lastSentKey(route.channel, route.to));
  return last !== undefined && now - last.at < REPEAT_WINDOW_MS && last.digest === digestOf(text);
}

/** how many of the newest pending or sending deliveries a heartbeat reply is compared with */
const ON_ITS_WAY_LIMIT = 500;

/**
 * Whether `text` is on its way to this recipient or was the last message it got: a pending or
 * sending delivery of the same words (a run's fallback still being sent when the heartbeat it woke
 * answered), else the last sent within the window. The rows are read first: the outbox remembers
 * what it sent before it marks the row delivered, so a delivery finishing between the two reads
 * is seen by one of them.
 */
export async function alreadyOnItsWay(store: Pick<Store, 'deliveries' | 'state'>, route: { channel: string; to: string }, text: string, now: number): Promise<boolean> {
  const words = text.trim();
  for (const status of ['sending', 'pending'] as const) {
    const rows = await store.deliveries.list({ status, limit: ON_ITS_WAY_LIMIT });
    if (rows.some((d) => d.channel === route.channel && (d.to ?? '') === route.to && d.text.trim() === words)) return true;
  }
  return repeatsLastSent(store.state, route, text, now);
}
