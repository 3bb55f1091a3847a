import { createHash } from 'node:crypto';
import type { StateRepo } from '../../store/port.js';

/** the state key of what the outbox last delivered to a recipient (a digest of the text, never the text) */
const lastSentKey = (channel: string, to: string) => `delivery:lastSent:${channel}:${to}`;

/** how long a heartbeat reply that repeats the last message its recipient got stays unsent (OpenClaw's heartbeat dedup window) */
export const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

interface LastSent {
  digest: string;
  at: number;
}

const digestOf = (text: string) => createHash('sha256').update(text.trim()).digest('hex').slice(0, 32);

/** after a delivery reached its recipient: what it said (as a digest) and when */
export async function rememberSent(state: StateRepo, route: { channel: string; to: string }, text: string, at: number): Promise<void> {
  await state.set(lastSentKey(route.channel, route.to), { digest: digestOf(text), at } satisfies LastSent);
}

/**
 * Whether `text` is, word for word, the last message the outbox delivered to this recipient within
 * the window. A heartbeat woken by a hook run reads that run's summary, and its reply goes to the
 * main session's last route: when the run's reply fell back to another target, that target is the
 * last route, and a model answering the heartbeat with the run's words sent them there a second time.
 */
export async function repeatsLastSent(state: StateRepo, route: { channel: string; to: string }, text: string, now: number): Promise<boolean> {
  const last = await state.get<LastSent>(lastSentKey(route.channel, route.to));
  return last !== undefined && now - last.at < REPEAT_WINDOW_MS && last.digest === digestOf(text);
}
