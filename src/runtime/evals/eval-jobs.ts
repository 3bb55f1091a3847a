import { uuidV7 } from '../../time/uuid-v7.js';
import { ConfigError, HeraldError } from '../../errors.js';
import type { EvalCase } from './eval-case.js';
import type { EvalCandidate, EvalRequest, EvalSelection } from './eval-request.js';
import { planEval, runEval, type EvalRunnerDeps } from './eval-runner.js';
import { readSet } from './eval-sets.js';
import type { EvalSummary } from './eval-tally.js';

/** an eval's world for one request: the candidate's parts over the recording, read-only (gateway/eval-sandbox.ts) */
export interface OpenedSandbox {
  deps: EvalRunnerDeps;
  close(): Promise<void>;
}

export interface EvalReport {
  summary: EvalSummary;
  /** the per-request results, the first `maxCases` of them (the summary counts every one) */
  cases: EvalCase[];
  /** more results than were kept */
  casesCut: boolean;
}

export interface EvalJobView {
  id: string;
  status: 'running' | 'succeeded' | 'failed' | 'stopped';
  progress: { done: number; total: number };
  startedAt: number;
  finishedAt: number | null;
  error: string | null;
  report: EvalReport | null;
}

export interface EvalJobsOptions {
  /** opens a sandbox for a candidate (the running config with its overrides and mappings) */
  open(candidate: EvalCandidate): Promise<OpenedSandbox>;
  /** the running config file: saved selections are `evals/<name>.json` beside it */
  configFile: string;
  /** at most this many replays (requests × repeats) answered in the request itself; more run as a job */
  inlineReplays?: number;
  /** the results a report keeps (a job of 10,000 requests holds its summary, not 10,000 diffs) */
  maxCases?: number;
  /** finished jobs kept for GET, the oldest forgotten first */
  keptJobs?: number;
}

/**
 * `POST /admin/evals`: an eval of a candidate given in the request, answered with its report when
 * it is small (inlineReplays), else run as a job in this process whose progress and report are
 * read with `GET /admin/evals/{id}` and which can be stopped. Bounded in memory both ways: the
 * replays go page by page (runEval), the report keeps `maxCases` results.
 */
export class EvalJobs {
  private readonly jobs = new Map<string, { view: EvalJobView; stop: AbortController }>();

  constructor(private readonly options: EvalJobsOptions) {}

  /** the report (small), or the job it runs as (its view, status running) */
  async start(request: EvalRequest): Promise<{ report: EvalReport } | { job: EvalJobView }> {
    const selection = this.selectionOf(request);
    const sandbox = await this.options.open(request.candidate).catch((error: unknown) => {
      // a candidate that does not load is the request's fault: each fault named
      if (error instanceof ConfigError) throw new HeraldError('HERALD_BAD_REQUEST', `candidate: ${error.faults.join('; ')}`);
      throw error;
    });
    const input = { selection, run: request.run, ...(request.candidate.model && { model: request.candidate.model }) };
    let handedOver = false;
    try {
      const plan = await planEval(sandbox.deps, input);
      const maxCases = this.options.maxCases ?? 500;
      const stop = new AbortController();
      const view: EvalJobView = { id: `ev_${uuidV7().replace(/-/g, '')}`, status: 'running', progress: { done: 0, total: plan.requests }, startedAt: Date.now(), finishedAt: null, error: null, report: null };
      const cases: EvalCase[] = [];
      const running = runEval(sandbox.deps, input, {
        signal: stop.signal,
        onCase(result) {
          view.progress.done++;
          if (cases.length < maxCases) cases.push(result);
        },
      }).then(({ summary, stopped }) => ({ summary, cases, casesCut: view.progress.done > cases.length, stopped }));
      if (plan.requests * request.run.repeat <= (this.options.inlineReplays ?? 20)) {
        const { stopped: _, ...report } = await running;
        return { report };
      }
      handedOver = true;
      this.remember(view, stop);
      running
        .then(({ stopped, ...report }) => Object.assign(view, { status: stopped ? 'stopped' : 'succeeded', report }))
        .catch((error: unknown) => Object.assign(view, { status: 'failed', error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          view.finishedAt = Date.now();
          return sandbox.close();
        })
        // a sandbox that fails to close leaves nothing for the job to report
        .catch(() => undefined);
      return { job: view };
    } finally {
      if (!handedOver) await sandbox.close();
    }
  }

  get(id: string): EvalJobView | undefined {
    return this.jobs.get(id)?.view;
  }

  /** stops a running job after the request in flight; its report holds what was done */
  stop(id: string): EvalJobView | undefined {
    const job = this.jobs.get(id);
    job?.stop.abort();
    return job?.view;
  }

  private selectionOf(request: EvalRequest): EvalSelection {
    if (!request.set) return request.selection;
    try {
      return readSet(this.options.configFile, request.set);
    } catch (error) {
      throw new HeraldError('HERALD_BAD_REQUEST', `set: ${(error as Error).message.replace(/^--set \S+: /, '')}`);
    }
  }

  private remember(view: EvalJobView, stop: AbortController): void {
    this.jobs.set(view.id, { view, stop });
    const kept = this.options.keptJobs ?? 20;
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= kept) break;
      if (job.view.status !== 'running') this.jobs.delete(id);
    }
  }
}
