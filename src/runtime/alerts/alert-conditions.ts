import type { AlertRule } from '../../config/sections/alerts-schema.js';
import type { PluginService } from '../../plugin-sdk/sdk.js';
import type { AlertRecord, Store } from '../../store/port.js';
import { parseDuration } from '../duration.js';
import { budgetMessage, type Budgets } from '../../accounts/budgets.js';
import type { ToolServerHealth } from '../../tools/mcp/server-health.js';
import { runsFailing, withinMsOf } from './runs-failing.js';
import { scheduleFailing, scheduleMissed } from './schedule-conditions.js';
import { approvalsWaiting } from './approvals-waiting.js';
import type { Incident, AlertCheck } from './alert-check.js';

export interface CheckDeps {
  store: Store;
  services: readonly PluginService[];
  /** from when deliveries and silences are watched (the first start with alerts on this store) */
  watchingSince: number;
  /** the budgets of keys and agents (budget.exceeded) */
  budgets?: Budgets;
  /** the MCP servers' health on this replica (tools.unhealthy) */
  toolServers?: () => ToolServerHealth[];
}


/** the delivery.failed rule: each delivery that failed for good is an incident; a channel's share one cooldown */
const FAILED_DELIVERIES_PER_PASS = 100;
const DAY_MS = 86_400_000;

/** a check of one incident key: its open incident holds while the check finds it */
const byKey = (key: string) => async (open: AlertRecord, firing: Incident[]) =>
  open.incidentKey === key ? firing.some((i) => i.incidentKey === key) : undefined;

export function alertCheck(rule: AlertRule, deps: CheckDeps): AlertCheck | undefined {
  const { store } = deps;
  switch (rule.on) {
    case 'delivery.failed': {
      const prefix = `delivery.failed:${rule.channel ?? ''}`;
      return {
        condition: rule.on,
        async firing() {
          const failed = await store.browse.deliveries({ status: 'failed', channel: rule.channel, since: deps.watchingSince - DAY_MS, limit: FAILED_DELIVERIES_PER_PASS });
          // an alert's own notice failing is never alerted on: it would go to the same targets
          return failed
            .filter((d) => d.kind !== 'alert' && d.updatedAt >= deps.watchingSince)
            .map((d) => ({
              condition: rule.on,
              incidentKey: `delivery.failed:${d.channel ?? '(none)'}:${d.id}`,
              cooldownKey: `delivery.failed:${d.channel ?? '(none)'}`,
              subject: d.channel ?? '(none)',
              summary: `a ${d.kind === 'run' ? 'run reply' : 'heartbeat reply'} to ${d.channel ?? '(no channel)'}${d.to ? ` ${d.to}` : ''} failed for good: ${d.lastError ?? 'no reason recorded'} (delivery ${d.id}${d.runId ? `, run ${d.runId}` : ''})`,
            }));
        },
        async holds(open) {
          if (!open.incidentKey.startsWith(prefix)) return undefined;
          const id = open.incidentKey.slice(open.incidentKey.lastIndexOf(':') + 1);
          return (await store.deliveries.get(id))?.status === 'failed';
        },
      };
    }
    case 'runs.failing': {
      const subject = rule.mapping ?? rule.agent!;
      const what = rule.mapping ? `mapping ${rule.mapping}` : `agent ${rule.agent}`;
      const key = `runs.failing:${rule.mapping ? 'mapping' : 'agent'}:${subject}`;
      const withinMs = withinMsOf(rule.within);
      return {
        condition: rule.on,
        async firing(now) {
          const how = await runsFailing(store, { mappingId: rule.mapping, agentId: rule.agent }, rule, withinMs, now);
          return how ? [{ condition: rule.on, incidentKey: key, cooldownKey: key, subject, summary: `${what}: ${how}` }] : [];
        },
        holds: byKey(key),
      };
    }
    case 'schedule.failing':
      return scheduleFailing(store, rule, withinMsOf(rule.within));
    case 'schedule.missed':
      return scheduleMissed(store, rule, deps.watchingSince);
    case 'source.silent':
      return silentSource(store, rule.mapping, parseDuration(rule.after), deps.watchingSince);
    case 'budget.exceeded': {
      const { budgets } = deps;
      if (!budgets) return undefined;
      const watched = () => budgets.all().filter((h) => (rule.key === undefined && rule.agent === undefined) || (h.kind === 'key' ? h.name === rule.key : h.name === rule.agent));
      return {
        condition: rule.on,
        async firing(now) {
          const incidents: Incident[] = [];
          for (const holder of watched()) {
            const spent = await budgets.firstSpent([holder], now, true);
            if (!spent) continue;
            const key = `budget.exceeded:${holder.kind}:${holder.name}`;
            incidents.push({ condition: rule.on, incidentKey: key, cooldownKey: key, subject: `${holder.kind} ${holder.name}`, summary: budgetMessage(spent) });
          }
          return incidents;
        },
        async holds(open, firing) {
          if (!open.incidentKey.startsWith('budget.exceeded:')) return undefined;
          return firing.some((i) => i.incidentKey === open.incidentKey);
        },
      };
    }
    case 'queue.stale':
    case 'outbox.stale': {
      const olderThanMs = parseDuration(rule.olderThan);
      const key = rule.on;
      return {
        condition: rule.on,
        async firing(now) {
          const until = now - olderThanMs;
          const waiting =
            rule.on === 'queue.stale'
              ? (await store.browse.runs({ status: 'queued', until, limit: 1 })).length
              : (await store.browse.deliveries({ status: 'pending', until, limit: 1 })).length;
          if (!waiting) return [];
          const what = rule.on === 'queue.stale' ? 'an agent run has been queued' : 'a delivery has been pending in the outbox';
          return [{ condition: rule.on, incidentKey: key, cooldownKey: key, subject: rule.on === 'queue.stale' ? 'runs' : 'deliveries', summary: `${what} for more than ${rule.olderThan}` }];
        },
        holds: byKey(key),
      };
    }
    case 'approvals.waiting':
      return approvalsWaiting(store, rule.olderThan);
    case 'watcher.unhealthy': {
      const watched = deps.services.filter((s) => s.health && (rule.service === undefined || s.name === rule.service));
      return {
        condition: rule.on,
        async firing() {
          return watched.flatMap((service) => {
            const health = service.health!();
            if (!health || health.healthy) return [];
            const key = `watcher.unhealthy:${service.name}`;
            return [{ condition: rule.on, incidentKey: key, cooldownKey: key, subject: service.name, summary: `${service.name} is unhealthy: ${health.problem ?? 'no reason given'}` }];
          });
        },
        async holds(open) {
          const service = watched.find((s) => open.incidentKey === `watcher.unhealthy:${s.name}`);
          // a replica not doing the service's work cannot tell: it leaves the incident to the one that does
          const health = service?.health!();
          return health ? !health.healthy : undefined;
        },
      };
    }
    case 'tools.unhealthy': {
      const { toolServers } = deps;
      if (!toolServers) return undefined;
      const watched = () => toolServers().filter((h) => h.state !== 'stopped' && (rule.server === undefined || h.server === rule.server));
      const keyOf = (server: string) => `tools.unhealthy:${server}`;
      const afterMs = parseDuration(rule.after);
      return {
        condition: rule.on,
        async firing(now) {
          return watched().flatMap((h) => {
            if (h.state === 'ready' || now - h.since < afterMs) return [];
            const why = h.lastError ? `: ${h.lastError}` : '';
            const key = keyOf(h.server);
            return [{ condition: rule.on, incidentKey: key, cooldownKey: key, subject: h.server, summary: `the MCP server ${h.server} is not connected (${h.state} since ${new Date(h.since).toISOString()})${why}` }];
          });
        },
        async holds(open) {
          if (!open.incidentKey.startsWith('tools.unhealthy:')) return undefined;
          const server = open.incidentKey.slice('tools.unhealthy:'.length);
          if (rule.server !== undefined && server !== rule.server) return undefined;
          // a server removed from the config no longer holds; one down (even within `after`) still does
          const h = watched().find((x) => x.server === server);
          return h !== undefined && h.state !== 'ready';
        },
      };
    }
    case 'store.unreachable':
      // judged by the evaluator itself: the store cannot be asked about itself
      return undefined;
  }
}

/** a mapping expected to hear from its sender at least every `afterMs` (a rule, or the mapping's expectEvery) */
export function silentSource(store: Store, mappingId: string, afterMs: number, watchingSince: number): AlertCheck {
  const key = `source.silent:${mappingId}`;
  return {
    condition: 'source.silent',
    async firing(now) {
      const [last] = await store.receipts.list({ mappingId, limit: 1 });
      const heardAt = Math.max(last?.receivedAt ?? 0, watchingSince);
      if (now - heardAt <= afterMs) return [];
      const since = last ? `since ${new Date(last.receivedAt).toISOString()}` : 'since alerts began watching';
      return [{ condition: 'source.silent', incidentKey: key, cooldownKey: key, subject: mappingId, summary: `mapping ${mappingId} has received no request ${since} (expected at least every ${formatMs(afterMs)})` }];
    },
    holds: byKey(key),
  };
}

function formatMs(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
