import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import type { ParsePool } from '../../knowledge/parsing/parse-pool.js';
import type { MappingLab } from '../../runtime/operator/mapping-lab.js';
import type { CreatedApiKey } from '../../accounts/create-api-key.js';
import type { ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { JobFault } from '../../runtime/schedules/job-faults.js';
import type { Schedules } from '../../runtime/schedules/schedules.js';
import type { ReceiptRecord } from '../../store/port.js';
import type { EvalJobs } from '../../runtime/evals/eval-jobs.js';

/** API keys as the operator manages them: created keys (their sha256 only) and the configured ones, read-only */
export interface KeyBook {
  list(): Promise<{ name: string; agents?: string[]; createdAt: number | null; source: 'store' | 'config' }[]>;
  create(input: { name: string; agents?: string[] }): Promise<CreatedApiKey>;
  revoke(name: string): Promise<boolean>;
}

/** the jobs of /admin/schedules: the scheduler's, and the checks a job made at run time passes */
export interface ScheduleBook extends Pick<Schedules, 'list' | 'get' | 'put' | 'remove' | 'runNow' | 'fires'> {
  faults(job: ScheduleJob): JobFault[];
}

/** The use cases behind the admin API's actions and the console, beyond the store's lists. */
export interface OperatorDeps {
  runs: {
    submit(action: AgentAction, options: { rerunOf: string }): Promise<string>;
    cancel(id: string): Promise<boolean>;
  };
  lab: MappingLab;
  replay(receiptId: string): Promise<ReceiptRecord>;
  agents: AgentDirectory;
  knowledge: KnowledgeIndex;
  /** the worker pool uploads are parsed in */
  parser: ParsePool;
  keys: KeyBook;
  /** evals of a candidate over the recording (absent: /admin/evals is not served) */
  evals?: EvalJobs;
  /** the schedules (absent: /admin/schedules is not served) */
  schedules?: ScheduleBook;
  maxUploadBytes: number;
}
