import type { EvalCase, EvalChange } from './eval-case.js';
import type { FailCondition } from './eval-request.js';

/** the report's summary: counts only, so an eval of any size holds a few numbers in memory */
export interface EvalSummary {
  requests: number;
  fromRecording: number;
  fromFixtures: number;
  unchanged: number;
  changed: Record<EvalChange, number>;
  /** write calls the candidate meant to make, never executed */
  intendedWrites: number;
  /** read-only calls executed live (--live-reads) */
  liveReads: number;
  /** recorded results given back that had been cut when recorded */
  cutResults: number;
  expectations: { checked: number; failed: number };
  judged: { count: number; meanScore: number | null; worse: number };
  /** with repeat > 1: requests whose repeats gave more than one reply */
  unstable: number;
  /** the eval's own model use: never counted against a budget */
  usage: { promptTokens: number; completionTokens: number; cost: number };
}

export class EvalTally {
  private summary: EvalSummary = {
    requests: 0,
    fromRecording: 0,
    fromFixtures: 0,
    unchanged: 0,
    changed: { mapping: 0, message: 0, 'tool-calls': 0, reply: 0, failed: 0 },
    intendedWrites: 0,
    liveReads: 0,
    cutResults: 0,
    expectations: { checked: 0, failed: 0 },
    judged: { count: 0, meanScore: null, worse: 0 },
    unstable: 0,
    usage: { promptTokens: 0, completionTokens: 0, cost: 0 },
  };
  private scores = 0;

  add(c: EvalCase): void {
    const s = this.summary;
    s.requests++;
    if (c.source === 'fixture') s.fromFixtures++;
    else s.fromRecording++;
    if (!c.changes.length) s.unchanged++;
    for (const change of c.changes) s.changed[change]++;
    s.intendedWrites += c.intended.length;
    s.liveReads += c.candidate.toolCalls.filter((t) => t.by === 'live-read').length;
    s.cutResults += c.candidate.toolCalls.filter((t) => t.resultCut).length;
    if (c.expectations) {
      s.expectations.checked++;
      if (!c.expectations.ok) s.expectations.failed++;
    }
    if (c.judge && 'score' in c.judge) {
      this.scores += c.judge.score;
      s.judged.count++;
      s.judged.meanScore = Math.round((this.scores / s.judged.count) * 100) / 100;
      if (c.judge.score < 3) s.judged.worse++;
    }
    if (c.repeats && c.repeats.distinctReplies > 1) s.unstable++;
    if (c.candidate.tokens) {
      s.usage.promptTokens += c.candidate.tokens.prompt;
      s.usage.completionTokens += c.candidate.tokens.completion;
    }
    s.usage.cost += c.candidate.cost ?? 0;
  }

  get(): EvalSummary {
    return structuredClone(this.summary);
  }
}

/** the conditions of `failOn` the summary meets: a non-empty list fails the eval (exit code 1) */
export function failedConditions(summary: EvalSummary, failOn: readonly FailCondition[]): FailCondition[] {
  const met: Record<FailCondition, boolean> = {
    'tool-calls-changed': summary.changed['tool-calls'] > 0,
    'reply-changed': summary.changed.reply > 0,
    'mapping-changed': summary.changed.mapping > 0,
    failures: summary.changed.failed > 0,
    expectations: summary.expectations.failed > 0,
  };
  return failOn.filter((c) => met[c]);
}
