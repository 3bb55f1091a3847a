import type { ChannelAdapter } from '../../plugin-sdk/sdk.js';
import type { StateRepo } from '../../store/port.js';
import type { DeliveryRoute, MainSession } from '../main-session.js';

/** `channel: "last"` with no earlier delivery goes here, as the interface says */
export const FALLBACK_CHANNEL = 'whatsapp';

export type ResolvedTarget = { ok: true; channel: string; to: string } | { ok: false; channel: string | null; to: string | null; error: string };

export interface TargetDeps {
  mainSession: MainSession;
  state: StateRepo;
  channels: Map<string, ChannelAdapter>;
  /** an id or alias to its plugin id (undefined when no channel plugin has that name) */
  resolveChannel(name: string): string | undefined;
}

const lastRecipientKey = (channel: string) => `delivery:lastTo:${channel}`;

/**
 * Where a reply goes. `last` is the main session's last route (falling back to whatsapp);
 * an alias is its plugin's id; a missing `to` is the last recipient on that channel (the last
 * route's when it is the same channel). A target that cannot be resolved is a value, not a throw:
 * the outbox records it as a failed delivery and tells the main session.
 */
export async function resolveTarget(deps: TargetDeps, requested: { channel?: string; to?: string | null }): Promise<ResolvedTarget> {
  const last = await deps.mainSession.lastRoute();
  const name = requested.channel ?? 'last';
  const channel = name === 'last' ? (deps.resolveChannel(last?.channel ?? FALLBACK_CHANNEL) ?? null) : (deps.resolveChannel(name) ?? null);
  const explicit = requested.to?.trim() || null;
  if (!channel) return { ok: false, channel: null, to: explicit, error: `unknown channel "${name === 'last' ? (last?.channel ?? FALLBACK_CHANNEL) : name}"` };
  const adapter = deps.channels.get(channel);
  if (!adapter) return { ok: false, channel, to: explicit, error: `channel ${channel} is not configured (no channels.${channel} in the config)` };
  const to = explicit ?? (last?.channel === channel ? last.to : ((await deps.state.get<string>(lastRecipientKey(channel))) ?? null)) ?? null;
  if (!to && adapter.requiresRecipient !== false) {
    return { ok: false, channel, to: null, error: `no recipient on ${channel}: give "to" (nothing was delivered on ${channel} before to default to)` };
  }
  return { ok: true, channel, to: to ?? '' };
}

/** after a successful delivery: the main session's last route and the channel's last recipient */
export async function rememberRoute(deps: Pick<TargetDeps, 'mainSession' | 'state'>, route: DeliveryRoute): Promise<void> {
  await deps.mainSession.setLastRoute(route);
  if (route.to) await deps.state.set(lastRecipientKey(route.channel), route.to);
}
