import { Counter, Gauge, type Registry } from 'prom-client';
import type { AlertRecord } from '../store/port.js';

/** what happened to an incident on this replica: raised and sent, raised within the cooldown (stored, not sent), resolved */
export type AlertEvent = 'raised' | 'suppressed' | 'resolved';

/**
 * Alerts in /metrics. The counter is incremented by the replica the store let raise or resolve
 * the incident, so summed over replicas each incident counts once; the gauge reads the open ones
 * from the store on each scrape.
 */
export class AlertMetrics {
  private readonly alerts: Counter<'condition' | 'event'>;

  constructor(registry: Registry, openAlerts: () => Promise<AlertRecord[]>) {
    this.alerts = new Counter({
      name: 'herald_alerts_total',
      help: 'Alert incidents by condition (delivery.failed, runs.failing, schedule.missed, ...) and event (raised, suppressed within the cooldown, resolved).',
      labelNames: ['condition', 'event'],
      registers: [registry],
    });
    const open: Gauge<'condition'> = new Gauge({
      name: 'herald_alerts_open',
      help: 'Alert incidents open now, by condition.',
      labelNames: ['condition'],
      registers: [registry],
      async collect() {
        open.reset();
        for (const alert of await openAlerts().catch(() => [])) open.inc({ condition: alert.condition });
      },
    });
  }

  counted(condition: string, event: AlertEvent): void {
    this.alerts.inc({ condition, event });
  }
}
