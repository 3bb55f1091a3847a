import type { FallbackTarget, RetryPolicyConfig } from '../../config/sections/delivery-policy-schema.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { RetryPolicy } from './retry-delay.js';

/** what a delivery's policy is read from: its channel, its agent and the action its run kept (a mapping's policy) */
export interface PolicySource {
  channel: string | null;
  agentId: string;
  action?: Partial<Pick<AgentAction, 'retry' | 'fallback'>>;
}

/**
 * The retry schedule of one delivery, field by field: the mapping's `retry` (kept in the run's
 * action), else the agent's, else `channels.<id>.retry`, else `delivery`'s defaults (20 attempts,
 * exponential from 2 s, at most 5 min apart, no age limit: the schedule the docs always described).
 */
export function retryPolicy(config: Pick<HeraldConfig, 'delivery' | 'agents' | 'channels'>, source: PolicySource): RetryPolicy {
  const { delivery } = config;
  const layers: (RetryPolicyConfig | undefined)[] = [source.action?.retry, agentOf(config, source.agentId)?.retry, channelRetry(config, source.channel)];
  const pick = <K extends keyof RetryPolicyConfig>(key: K): RetryPolicyConfig[K] => layers.find((l) => l?.[key] !== undefined)?.[key];
  return {
    attempts: pick('attempts') ?? delivery.maxAttempts,
    backoff: pick('backoff') ?? 'exponential',
    initialMs: pick('initialMs') ?? delivery.baseDelayMs,
    maxMs: pick('maxMs') ?? delivery.maxDelayMs,
    ...(pick('maxAgeMs') !== undefined && { maxAgeMs: pick('maxAgeMs') }),
  };
}

/** where a reply goes when its delivery fails for good: the mapping's `fallback`, else its agent's */
export function fallbackTargets(config: Pick<HeraldConfig, 'agents'>, source: Pick<PolicySource, 'agentId' | 'action'>): FallbackTarget[] {
  return source.action?.fallback ?? agentOf(config, source.agentId)?.fallback ?? [];
}

function agentOf(config: Pick<HeraldConfig, 'agents'>, agentId: string) {
  return config.agents.list.find((a) => a.id === agentId);
}

function channelRetry(config: Pick<HeraldConfig, 'channels'>, channel: string | null): RetryPolicyConfig | undefined {
  const section = channel ? (config.channels as Record<string, unknown>)[channel] : undefined;
  return section && typeof section === 'object' ? ((section as { retry?: RetryPolicyConfig }).retry ?? undefined) : undefined;
}
