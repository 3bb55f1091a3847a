import type { RunRecord, RunStatus, Store } from '../../store/port.js';

/** what tells one run from another in a list: its name and agent (and where it stands) */
export interface RunLabel {
  id: string;
  name: string;
  agentId: string;
  status: RunStatus;
}

export const runLabelOf = (r: Pick<RunRecord, 'id' | 'name' | 'agentId' | 'status'>): RunLabel => ({ id: r.id, name: r.name, agentId: r.agentId, status: r.status });

/**
 * The labels of the runs a page of rows names, each run read once; a run no longer stored has
 * none. A page holds at most a few hundred rows, so this stays a page's worth of reads by id.
 */
export async function runLabels(store: Pick<Store, 'runs'>, ids: readonly (string | null | undefined)[]): Promise<Map<string, RunLabel>> {
  const unique = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
  const runs = await Promise.all(unique.map((id) => store.runs.get(id)));
  return new Map(runs.flatMap((r) => (r ? [[r.id, runLabelOf(r)] as const] : [])));
}
