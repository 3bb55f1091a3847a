import type { Logger } from 'pino';
import type { CompiledMapping } from '../mappings/compiled-mapping.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import type { IdempotencyRepo } from '../store/port.js';
import { HeraldError } from '../errors.js';
import { templateScope } from '../mappings/templates/template-scope.js';
import { dispatchAll, type DispatchAction, type DispatchKeyed, type DispatchResult } from './dispatch-action.js';
import { HookIdempotency, requestHash, type StoredResponse } from './hook-idempotency.js';
import type { HookResponse } from '../mappings/compile-respond.js';
import type { MappingOutcome, PreparedMapping } from '../mappings/compiled-mapping.js';
import type { AgentAction } from '../mappings/hook-action.js';
import type { RunWaiter } from './runs/run-waiter.js';
import type { RunCompletionReporter } from './runs/run-completion-report.js';
import { intakeSpan } from './intake-span.js';
import { forEachFailure } from '../mappings/for-each-failure.js';
import type { MappingFailure } from '../mappings/mapping-failure.js';
import type { IntakeCall, HookOutcome } from './hook-call.js';

type Prepared = PreparedMapping & { mappingId: string };

/**
 * What a call's processing answered; `failure` and `errorCode`: a `forEach` mapping that failed for
 * some items, and the code of the first (the answer's status is its), not stored with the key's answer.
 */
type Finished = StoredResponse & { completed?: true; failure?: MappingFailure; errorCode?: string; tool?: true };

export interface HookIntakeDeps {
  engine: MappingsEngine;
  dispatch: DispatchAction;
  idempotency: IdempotencyRepo;
  logger: Logger;
  /** how long a finished key is remembered */
  ttlMs: number;
  /** past the longest a call can take, a holder of a key is presumed dead */
  lockMs: number;
  /** finished runs, for a mapping that answers with its run's reply (`respond.waitMs`) */
  runWaiter: Pick<RunWaiter, 'finishedBefore'>;
  /** a `/agent` call's `completion` (`waitForCompletion: true`) */
  completions: Pick<RunCompletionReporter, 'report'>;
  /** a keyed call's run stored with its key, done, in one commit (without it, the key is claimed, then completed) */
  dispatchKeyed?: DispatchKeyed;
}

/**
 * The webhook intake, one pipeline for /wake, /agent and every mapped hook: claim the
 * idempotency key (the header's before any mapping work; a mapping's `idempotencyKey` once it
 * rendered, before the transform and the dispatch, the only steps with effects), apply the
 * mapping, dispatch the action, then remember the answer (or release the key on failure). A
 * keyed call whose mapping has no transform is applied first, and its single ungoverned run (or
 * a wake's event) is stored with its key, done, in one commit (DispatchKeyed); the claim is the way back when the
 * key is held or the outcome is anything else.
 */
export class HookIntake {
  private readonly keys: HookIdempotency;

  constructor(private readonly deps: HookIntakeDeps) {
    this.keys = new HookIdempotency(deps.idempotency, { ttlMs: deps.ttlMs, lockMs: deps.lockMs });
  }

  accept(call: IntakeCall): Promise<HookOutcome> {
    return intakeSpan(call, (traced) => this.acceptCall(traced));
  }

  /**
   * Not an async function: a call without a key whose mapping answers at once (the built-in
   * /wake and /agent among them) is its dispatch's promise and one reaction, a step of every webhook's path
   */
  private acceptCall(call: IntakeCall): Promise<HookOutcome> {
    try {
      if (call.idempotencyKey === undefined) {
        const preparing = this.prepare(call);
        if (!(preparing instanceof Promise) && preparing.idempotencyKey === undefined) return this.finish(call, preparing).then(unkeyedOutcome);
        return this.acceptUnkeyed(call, preparing);
      }
      return this.acceptKeyed(call, call.idempotencyKey);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** a call with an Idempotency-Key header */
  private async acceptKeyed(call: IntakeCall, headerKey: string): Promise<HookOutcome> {
    // a mapping without effects before its dispatch is worked out first: its run and the key in one commit
    const early = await this.withoutEffects(call).catch(() => undefined);
    if (early) return this.keyedAtOnce(call, headerKey, early);
    return this.once(call, headerKey, async (runId) => this.finish(call, await this.prepare(call), runId, headerKey));
  }

  /** a call without the header: its mapping may render a key of its own (GitHub's delivery id) */
  private async acceptUnkeyed(call: IntakeCall, preparing: Prepared | Promise<Prepared>): Promise<HookOutcome> {
    // awaited only when it is on its way
    const prepared = preparing instanceof Promise ? await preparing : preparing;
    const mappingKey = prepared.idempotencyKey;
    if (mappingKey === undefined) return toOutcome(await this.finish(call, prepared), false);
    if (this.deps.dispatchKeyed && prepared.pure && !prepared.reply && !prepared.waitForCompletion) {
      const outcome = await Promise.resolve(prepared.run()).catch(() => undefined);
      if (outcome) return this.keyedAtOnce(call, mappingKey, { prepared, outcome }, { anyBody: true });
    }
    return this.once(call, mappingKey, (runId) => this.finish(call, prepared, runId, mappingKey), { anyBody: true });
  }

  /**
   * The call's mapping prepared and run up to its dispatch, when nothing of that has effects (no
   * transform) and it answers as soon as its run is stored (no reply or completion awaited);
   * undefined otherwise. A refusal is thrown: the caller claims the key first then, as before.
   */
  private async withoutEffects(call: IntakeCall): Promise<{ prepared: Prepared; outcome: MappingOutcome } | undefined> {
    if (!this.deps.dispatchKeyed) return undefined;
    const prepared = await this.prepare(call);
    if (!prepared.pure || prepared.reply || prepared.waitForCompletion) return undefined;
    return { prepared, outcome: await prepared.run() };
  }

  /**
   * A keyed call whose outcome is worked out: a single ungoverned run is stored with its key,
   * done, in one commit; anything else (or a key held already) goes through the claim, carrying
   * out the same outcome.
   */
  private async keyedAtOnce(call: IntakeCall, key: string, { prepared, outcome }: { prepared: Prepared; outcome: MappingOutcome }, options: { anyBody?: boolean } = {}): Promise<HookOutcome> {
    const { path } = call.request;
    const hash = requestHash(path, call.body, call.request.payload);
    if (outcome.type === 'action') {
      const stored = await this.deps.dispatchKeyed!(outcome.action, await this.keys.keyed(path, key, hash));
      if (stored) return toOutcome(stored as Finished, false, key);
    }
    return this.once(call, key, (runId) => this.carryOut(call, prepared, outcome, runId, key), options);
  }

  /** the call's mapping found and its templates rendered, at once when the engine answers at once; the caller told which mapping matched */
  private prepare(call: IntakeCall): Prepared | Promise<Prepared> {
    const matched = (prepared: Prepared) => {
      call.onMatch?.(prepared.mappingId);
      return prepared;
    };
    const preparing = this.deps.engine.prepare(call.request, { signedBy: call.signedBy });
    return preparing instanceof Promise ? preparing.then(matched) : matched(preparing);
  }

  /**
   * The prepared mapping run and its outcome carried out; `key`: the idempotency key it completes.
   * Not an async function: the dispatch's own promise is the answer (a step of every webhook's path).
   */
  private finish(call: IntakeCall, prepared: Prepared, runId?: string, key?: string): Promise<Finished> {
    try {
      const running = prepared.run();
      return running instanceof Promise ? running.then((outcome) => this.carryOut(call, prepared, outcome, runId, key)) : this.carryOut(call, prepared, running, runId, key);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** what the mapping's outcome asks: no answer (skip), its own answer, a run awaited, or the dispatch */
  private carryOut(call: IntakeCall, prepared: Prepared, outcome: MappingOutcome, runId?: string, key?: string): Promise<Finished> {
    if (outcome.type === 'skip') return Promise.resolve({ status: 204, body: null });
    if (outcome.type === 'respond') return Promise.resolve(responded(outcome.response));
    const options: Parameters<DispatchAction>[1] = { runId };
    if (key !== undefined) options.completes = { scope: call.request.path, key };
    if (outcome.type === 'action' && outcome.action.kind === 'agent' && prepared.reply) return this.awaitReply(outcome.action, prepared.reply, options);
    if (outcome.type === 'action' && outcome.action.kind === 'agent' && prepared.waitForCompletion) return this.awaitCompletion(outcome.action, options);
    if (outcome.type === 'actions') return this.dispatchEach(call, prepared, outcome, options);
    return this.deps.dispatch(outcome.action, options);
  }

  /** a `forEach` mapping's actions; items that failed are the request's failure, each named */
  private async dispatchEach(call: IntakeCall, prepared: Prepared, outcome: Extract<MappingOutcome, { type: 'actions' }>, options: Parameters<DispatchAction>[1]): Promise<Finished> {
    const result = await dispatchAll(this.deps.dispatch, outcome.actions, options, outcome);
    if (!('refused' in result)) return result;
    const failure = forEachFailure(prepared.mappingId, result.total, result.refused, call.request);
    return { status: result.status, body: result.body, errorCode: result.refused[0]!.error.code, ...(failure && { failure }) };
  }

  /**
   * A GET handshake (Meta's hub.challenge): the first of the admitted mappings whose
   * `respond.when` holds answers it; a GET that is no handshake is 400. No run, no key.
   */
  async handshake(call: Pick<IntakeCall, 'request' | 'onMatch'>, admitted: readonly CompiledMapping[]): Promise<HookOutcome> {
    const { request } = call;
    const scope = templateScope(request);
    for (const mapping of admitted) {
      if (!mapping.respond || !(await mapping.respond.holds(scope))) continue;
      call.onMatch?.(mapping.id);
      const response = await mapping.respond.render(scope);
      return { type: 'responded', status: response.status, response, replayed: false };
    }
    throw new HeraldError('HERALD_BAD_REQUEST', `GET ${request.path}: not a handshake this path answers (it takes POST)`);
  }

  /**
   * Starts the run, then answers with its reply rendered as the mapping says, when it finished
   * within waitMs; else the fallback (or the usual 202), and the reply is delivered as usual.
   */
  private async awaitReply(action: AgentAction, reply: NonNullable<PreparedMapping['reply']>, options: Parameters<DispatchAction>[1]): Promise<StoredResponse> {
    const until = Date.now() + reply.waitMs;
    const result = await this.deps.dispatch(Object.assign({}, action, { replyAwaitedUntil: until }), options);
    if (result.status !== 202) return result;
    const { runId } = result.body;
    const run = await this.deps.runWaiter.finishedBefore(runId, until);
    const response = typeof run?.reply === 'string' ? await reply.render(run.reply) : await reply.fallback();
    return response ? responded(response, runId) : result;
  }

  /** starts the run and answers (still 202, the interface's status) once it finished, with its `completion` */
  private async awaitCompletion(action: AgentAction, options: Parameters<DispatchAction>[1]): Promise<StoredResponse> {
    const result = await this.deps.dispatch(action, options);
    if (result.status !== 202) return result;
    const completion = await this.deps.completions.report(result.body.runId, action);
    return { status: result.status, body: { ...result.body, completion } };
  }

  /** processes the call once per key of its path; a repeat gets the stored answer */
  private async once(call: IntakeCall, key: string, work: (runId: string) => Promise<Finished>, options: { anyBody?: boolean } = {}): Promise<HookOutcome> {
    const { path } = call.request;
    const started = await this.keys.start(path, key, requestHash(path, call.body, call.request.payload), undefined, options);
    if (started.type === 'replay') return toOutcome(started.response, true, key);
    let response: Finished & { eventId?: number };
    try {
      response = await work(started.runId);
    } catch (error) {
      // only a success is remembered: a refused or failed call may be retried with its key
      await this.keys.release(path, key).catch((err) => this.deps.logger.error({ err }, 'idempotency key release failed'));
      throw error;
    }
    // a wake completed its key in the commit of its event; anything else completes it now
    if (!response.completed) await this.keys.complete(path, key, response);
    return toOutcome({ status: response.status, body: response.body, ...(response.eventId !== undefined && { eventId: response.eventId }), ...(response.failure && { failure: response.failure, errorCode: response.errorCode }), ...(response.tool && { tool: true }) } as StoredResponse, false, key);
  }
}

/** the outcome of a call processed without a key */
const unkeyedOutcome = (response: Finished): HookOutcome => toOutcome(response, false);

/** a mapping's own answer as the idempotency record keeps it (a dispatched answer always has `ok`, this never) */
function responded(response: HookResponse, runId?: string): StoredResponse {
  return { status: response.status, body: { respond: response, ...(runId !== undefined && { runId }) } };
}

/** the outcome of every call: one object, its optional fields set only when present (no spread objects) */
function toOutcome(response: StoredResponse, replayed: boolean, idempotencyKey?: string): HookOutcome {
  const { eventId, failure, errorCode, tool } = response as Finished & { eventId?: number };
  const body = response.body as { respond?: HookResponse; runId?: string } | null;
  let outcome: HookOutcome;
  if (response.status === 204) outcome = { type: 'skipped', status: 204, body: null, replayed };
  else if (body && typeof body === 'object' && body.respond) {
    outcome = { type: 'responded', status: response.status, response: body.respond, replayed };
    if (body.runId !== undefined) outcome.runId = body.runId;
  } else outcome = { type: 'dispatched', status: response.status as DispatchResult['status'], body: response.body as DispatchResult['body'], replayed };
  if (idempotencyKey !== undefined) outcome.idempotencyKey = idempotencyKey;
  if (eventId !== undefined) outcome.eventId = eventId;
  if (failure) outcome.failure = failure;
  if (errorCode !== undefined) outcome.errorCode = errorCode;
  if (tool) outcome.tool = tool;
  return outcome;
}
