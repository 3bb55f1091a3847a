import { BASELINE_LABEL, type BaselineSchema } from './baseline-database.js';
import { formatTable } from './table.js';

/** a measured row of either webhook bench, as far as the work finished goes */
export interface ExecutedRow {
  endpoint: string;
  server: string;
  round: number;
  baseline?: BaselineSchema;
  /** how long the server kept working after the load ended */
  drainMs?: number;
  /** rows where both execute runs: the requests accepted per second from the load's start until every run they made was executed */
  executedPerSecond?: number;
  /** the share of the runs accepted during the load that were finished when it ended, where the bench can count them */
  finishedDuringLoad?: number;
}

/** the rows where the baseline executes its runs too (`agent-executed`, ...), so the two servers' work ends at the same place */
export const executesRuns = (endpointName: string) => endpointName.endsWith('-executed');

/** the requests accepted per second from the load's start until the last run they made was executed */
export const executedPerSecond = (total: number, loadSeconds: number, drainMs: number) => total / (loadSeconds + drainMs / 1000);

/**
 * The rows where both execute runs, by the work finished. req/s counts only what was accepted
 * during the load; a server that executes less of its backlog meanwhile accepts more then, and
 * finishes later. Each server's mean over its measurements, herald's against each round's baselines.
 */
export function renderExecutedTable(rows: ExecutedRow[]): string {
  const executed = rows.filter((r) => r.executedPerSecond !== undefined);
  const schemas = (['own', 'herald'] as const).filter((schema) => rows.some((r) => r.baseline === schema));
  const counted = executed.every((r) => r.finishedDuringLoad !== undefined);
  const serverOf = (r: ExecutedRow) => r.server.replace(/ again$/, '');
  const lines: string[][] = [];
  for (const endpoint of [...new Set(executed.map((r) => r.endpoint))]) {
    for (const server of [...new Set(executed.filter((r) => r.endpoint === endpoint).map(serverOf))]) {
      const measured = executed.filter((r) => r.endpoint === endpoint && serverOf(r) === server);
      const mean = (pick: (r: ExecutedRow) => number) => measured.reduce((sum, r) => sum + pick(r), 0) / measured.length;
      const against = (schema: BaselineSchema) => {
        if (measured[0]!.baseline) return '';
        const base = (r: ExecutedRow) => {
          const bases = executed.filter((b) => b.endpoint === endpoint && b.round === r.round && b.baseline === schema);
          return bases.reduce((sum, b) => sum + b.executedPerSecond!, 0) / bases.length;
        };
        return `${(mean((r) => r.executedPerSecond! / base(r)) * 100).toFixed(0)}%`;
      };
      const finished = counted ? [`${(mean((r) => r.finishedDuringLoad ?? 0) * 100).toFixed(0)}%`] : [];
      lines.push([`POST ${endpoint}`, server, String(measured.length), mean((r) => r.executedPerSecond!).toFixed(0), (mean((r) => r.drainMs ?? 0) / 1000).toFixed(1), ...finished, ...schemas.map(against)]);
    }
  }
  const finishedHeader = counted ? ['finished in the load'] : [];
  return formatTable(['endpoint', 'server', 'measurements', 'executed req/s', 'drain s', ...finishedHeader, ...schemas.map((schema) => `of ${BASELINE_LABEL[schema]}`)], lines);
}
