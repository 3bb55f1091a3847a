import type { ReceiptQuery, ReceiptRecord, RetainedPayload, Store } from '../../store/port.js';
import { parseUrlEncoded } from '../../mappings/payload/form-payload.js';
import { parseExactJson } from '../../utils/exact-json.js';
import { fixturesByMapping, labRequest } from '../operator/mapping-lab.js';
import { AGENT_EXPECTATIONS } from '../../mappings/loading/mapping-fixtures.js';
import type { EvalCase } from './eval-case.js';
import type { EvalRunOptions, EvalSelection } from './eval-request.js';
import { replayRequest, type AgentExpectations, type EvalDeps, type ReplayInput } from './replay-request.js';
import { EvalTally, type EvalSummary } from './eval-tally.js';
import { dryRun } from '../operator/dry-run.js';
import { runPrompt } from '../run-prompt.js';
import { turnModelRefs } from '../../agents/turn-prompt.js';
import { promptWordCount } from '../../utils/word-count.js';

export interface EvalRunnerDeps extends EvalDeps {
  /** the recording, read-only: receipts with their retained payloads, runs, tool calls */
  recording: Pick<Store, 'receipts' | 'runs' | 'toolCalls'>;
}

export interface EvalRunInput {
  selection: EvalSelection;
  run: EvalRunOptions;
  /** every agent's model for this eval, over the candidate's */
  model?: string;
}

export interface EvalSink {
  /** each request's result as it is known (the CLI prints it, or appends it to --out) */
  onCase(result: EvalCase): void | Promise<void>;
  /** requests done by an earlier run of this eval (--resume): not replayed again, their results already in `tally` */
  done?: ReadonlySet<string>;
  tally?: EvalTally;
  /** a stop (Ctrl-C, the request gone): the request in flight finishes, the rest waits for a resume */
  signal?: AbortSignal;
}

const PAGE = 100;

/** a retained body as the hook surface parsed it: form fields for a form, else JSON (undefined: it was not valid, and maps to nothing) */
function bodyOf(payload: RetainedPayload): unknown {
  const text = Buffer.from(payload.body).toString('utf8');
  if ((payload.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) return parseUrlEncoded(text);
  try {
    return text.trim() ? parseExactJson(text) : {};
  } catch {
    return undefined;
  }
}

/** the preset's mappings (their origin names it: `hooks.presets[0] (github, mapping 1)`) */
function presetMappings(deps: EvalDeps, preset: string): Set<string> {
  return new Set(deps.engine.mappings.filter((m) => /\(([\w-]+), mapping \d+\)$/.exec(m.origin ?? '')?.[1] === preset).map((m) => m.id));
}

/** the recorded requests of the selection, newest first, page by page: never all of them in memory */
async function* recordedInputs(deps: EvalRunnerDeps, selection: EvalSelection): AsyncGenerator<ReplayInput> {
  const { status } = selection;
  const preset = selection.preset ? presetMappings(deps, selection.preset) : undefined;
  let after: ReceiptQuery['after'];
  let taken = 0;
  const now = Date.now();
  for (;;) {
    const page: ReceiptRecord[] = await deps.recording.receipts.list({
      limit: PAGE,
      retained: true,
      ...(after && { after }),
      ...(selection.since !== undefined && { since: selection.since }),
      ...(selection.until !== undefined && { until: selection.until }),
      ...(selection.mapping && { mappingId: selection.mapping }),
      ...(status === 'ok' || status === 'error' ? { result: status } : status !== undefined && { status }),
    });
    for (const receipt of page) {
      if (preset && !(receipt.mappingId && preset.has(receipt.mappingId))) continue;
      if (selection.agent) {
        const run = receipt.runId ? await deps.recording.runs.get(receipt.runId) : undefined;
        if (run?.agentId !== selection.agent) continue;
      }
      const payload = await deps.recording.receipts.payload(receipt.id, now);
      if (!payload) continue;
      const body = bodyOf(payload);
      if (body === undefined) continue;
      const request = { ...labRequest(deps.config, receipt.path, body, payload.headers, payload.query), signed: receipt.signature !== null && receipt.signature !== 'invalid' };
      yield { id: receipt.id, source: 'recording', request, receivedAt: receipt.receivedAt, receipt };
      if (++taken >= selection.limit) return;
    }
    if (page.length < PAGE) return;
    const last = page.at(-1)!;
    after = { at: last.receivedAt, id: last.id };
  }
}

/** the fixture cases with agent expectations of the selected mappings (all, when none is selected) */
async function fixtureInputs(deps: EvalRunnerDeps, selection: EvalSelection): Promise<ReplayInput[]> {
  const owned = await fixturesByMapping(deps.engine, (p, payload, h, q) => labRequest(deps.config, p, payload, h, q));
  const preset = selection.preset ? presetMappings(deps, selection.preset) : undefined;
  const inputs: ReplayInput[] = [];
  for (const [mappingId, cases] of owned) {
    if (selection.mapping && mappingId !== selection.mapping) continue;
    if (preset && !preset.has(mappingId)) continue;
    const path = deps.engine.mapping(mappingId)?.path ?? '';
    cases.forEach((c, i) => {
      if (![...AGENT_EXPECTATIONS].some((k) => k in c.expect)) return;
      const payload = c.form !== undefined ? parseUrlEncoded(c.form) : (c.payload ?? {});
      inputs.push({
        id: `fixture:${mappingId}#${i + 1}`,
        source: 'fixture',
        ...(c.name && { label: c.name }),
        request: labRequest(deps.config, c.path ?? path, payload, c.headers, c.query),
        receivedAt: Date.now(),
        expect: { toolCalls: c.expect.toolCalls, replyIncludes: c.expect.replyIncludes } as AgentExpectations,
      });
    });
  }
  return inputs;
}

/** what an eval will send to models: asked before a run that costs tokens (the CLI asks unless --yes) */
export interface EvalPlan {
  requests: number;
  /** agent turns, repeats counted (each may ask its model more than once when it calls tools) */
  turns: number;
  /** the prompts' size in words (about a token each), without history or knowledge */
  promptTokens: number;
  /** the models of those turns that are not herald's embedded one (they cost tokens) */
  paidModels: string[];
}

async function* inputsOf(deps: EvalRunnerDeps, input: EvalRunInput): AsyncGenerator<ReplayInput> {
  if (input.run.fixtures) yield* await fixtureInputs(deps, input.selection);
  yield* recordedInputs(deps, input.selection);
}

/** the eval's plan: every request's mapping dry-run (cheap, no model), the agent turns it would make counted */
export async function planEval(deps: EvalRunnerDeps, input: EvalRunInput): Promise<EvalPlan> {
  const plan: EvalPlan = { requests: 0, turns: 0, promptTokens: 0, paidModels: [] };
  const paid = new Set<string>();
  for await (const request of inputsOf(deps, input)) {
    plan.requests++;
    const outcome = await dryRun(deps.engine, request.request, request.receivedAt);
    if (outcome.type !== 'action' || outcome.action.kind !== 'agent') continue;
    const agent = deps.agents.get(outcome.action.agentId) ?? deps.agents.default();
    const refs = turnModelRefs(deps.config, agent, input.model ?? outcome.action.model);
    plan.turns += input.run.repeat;
    plan.promptTokens += input.run.repeat * promptWordCount([{ content: agent.instructions ?? '' }, { content: runPrompt(outcome.action, request.receivedAt) }]);
    if (!deps.models.answersInProcess(refs.slice(0, 1))) paid.add(refs[0]!);
  }
  plan.paidModels = [...paid];
  return plan;
}

/**
 * Replays the selection (and the fixtures with agent expectations) through the candidate, one
 * request at a time, handing each result to the sink as it is known; returns the summary. Stopped
 * by the sink's signal after the request in flight; a later run given the done ids goes on.
 */
export async function runEval(deps: EvalRunnerDeps, input: EvalRunInput, sink: EvalSink): Promise<{ summary: EvalSummary; stopped: boolean }> {
  const tally = sink.tally ?? new EvalTally();
  for await (const request of inputsOf(deps, input)) {
    if (sink.signal?.aborted) return { summary: tally.get(), stopped: true };
    if (sink.done?.has(request.id)) continue;
    const result = await replayRequest(deps, request, { ...input.run, ...(input.model && { model: input.model }) });
    tally.add(result);
    await sink.onCase(result);
  }
  return { summary: tally.get(), stopped: false };
}
