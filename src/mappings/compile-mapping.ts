import { copyWith } from '../utils/copy-with.js';
import type { Logger } from 'pino';
import { errorDetail } from '../log/log-detail.js';
import { HeraldError } from '../errors.js';
import type { CompiledMapping, ItemRefusal, MappingOutcome, PreparedMapping } from './compiled-mapping.js';
import { validateAction, type ActionContext, type HookAction } from './hook-action.js';
import { trimSlashes, type HookRequest } from './hook-request.js';
import { compileMatch } from './routing/match.js';
import type { RouteKey } from './routing/route-key.js';
import { compilePayloadSchema, type PayloadSchema } from './payload/json-schema.js';
import { describeJsonataError } from './templates/jsonata-expression.js';
import { compileMappingTemplates } from './templates/mapping-templates.js';
import type { Mapping } from '../config/sections/mapping-schema.js';
import type { MappingContext } from './mapping-context.js';
import { runTransform } from './transforms/run-transform.js';
import { describeTransformError } from './transforms/transform-syntax.js';
import type { SignatureVerifier } from './signatures/verifier.js';
import { sharedSignatureVerifier } from './signatures/shared-verifier.js';
import type { TransformLoader } from './transforms/transform-loader.js';
import { transformCause, TransformMissingError, type TransformRunner } from './transforms/transform-runner.js';
import { templateScope } from './templates/template-scope.js';
import { compileRespond, type CompiledRespond, type HookResponse } from './compile-respond.js';
import { compileMappingTraffic } from './mapping-traffic.js';
import { redactedCause, withFailure, type MappingStage } from './mapping-failure.js';
import { transformLocation } from './transforms/transform-stack.js';
import { ArgumentsShapeError, compileToolAction } from './compile-tool-action.js';
import { compileTemplate } from './templates/template.js';
import { argumentFaults } from '../tools/tool-arguments.js';

export interface CompileDeps {
  ctx: MappingContext;
  transforms: TransformLoader;
  /** where transform calls run: the gateway's worker pool, or the calling thread for dry runs */
  runner: TransformRunner;
  transformTimeoutMs: number;
  logger?: Logger;
}

/** paths the built-in endpoints own: a mapping there would never be reached */
const RESERVED_PATHS = ['wake', 'agent'];

/** An agent mapping without a message template sends the payload itself, as indented JSON. */
export function defaultAgentMessage(payload: unknown): string {
  return JSON.stringify(payload ?? {}, null, 2);
}

/**
 * Compiles one mapping (match, schema, templates, transform) at load. Faults are pushed to
 * `faults` (the caller names the mapping); per-request faults are thrown as HeraldError.
 */
export async function compileMapping(mapping: Mapping & { id: string }, deps: CompileDeps, faults: string[], warnings: string[] = []): Promise<CompiledMapping> {
  const { id } = mapping;
  let matches: CompiledMapping['matches'] = async () => false;
  let routeKey: RouteKey | undefined;
  try {
    const compiled = compileMatch(mapping.match);
    matches = compiled;
    routeKey = compiled.routeKey;
  } catch (error) {
    faults.push(`match.when: syntax error in ${JSON.stringify(mapping.match?.when)}: ${describeJsonataError(error)}`);
  }
  const path = mapping.match?.path === undefined ? undefined : trimSlashes(mapping.match.path);
  if (path !== undefined && RESERVED_PATHS.includes(path)) faults.push(`match.path: "${path}" is the built-in /${path} endpoint and cannot be mapped`);

  // the body is verified before it is parsed, so the mapping is picked by its path alone
  let signature: SignatureVerifier | undefined;
  if (mapping.auth) {
    if (path === undefined) faults.push('auth: a mapping with auth needs match.path (the signature is checked before the body is parsed)');
    try {
      signature = sharedSignatureVerifier(mapping.auth);
    } catch (error) {
      faults.push(`auth.${(error as Error).message}`);
    }
  }

  if (mapping.tools?.grant?.length && !mapping.auth) faults.push("tools.grant: needs the mapping's auth (only a request whose signature was verified may let a write run without a person)");
  if (mapping.tools && mapping.action === 'wake') faults.push('tools: a wake runs no agent turn');
  const toolArguments = compileToolAction(mapping, deps.ctx.config.tools && Object.keys(deps.ctx.config.tools.mcpServers), faults);

  const respond: CompiledRespond | undefined = mapping.respond ? compileRespond(mapping.respond, path !== undefined, faults) : undefined;
  if (respond?.waitMs !== undefined && mapping.action === 'wake') faults.push('respond.waitMs: a wake has no reply to wait for');
  if (respond?.waitMs !== undefined && mapping.forEach !== undefined) faults.push('respond.waitMs: a forEach mapping starts several runs; one reply cannot answer it');

  let schema: PayloadSchema | undefined;
  if (mapping.schema) {
    try {
      schema = await compilePayloadSchema(mapping.schema);
    } catch (error) {
      faults.push(`schema: not a valid JSON Schema: ${(error as Error).message}`);
    }
  }

  const templates = compileMappingTemplates(mapping, deps.ctx, faults, warnings);
  const traffic = compileMappingTraffic(mapping, faults);
  if (mapping.action === 'wake' && mapping.textTemplate === undefined && !mapping.transform) {
    faults.push('textTemplate: a wake mapping needs a textTemplate (or a transform that sets text)');
  }

  if (mapping.transform) {
    let transformFile: string | undefined;
    try {
      transformFile = deps.transforms.resolve(mapping.transform.module);
      await deps.runner.check(deps.transforms.locate(transformFile, mapping.transform.export), deps.transformTimeoutMs);
    } catch (error) {
      if (error instanceof TransformMissingError) warnings.push(`transform: ${error.message}; requests to this mapping fail (500) until it exists`);
      else faults.push(`transform: ${await describeTransformError(error, transformFile)}`);
    }
  }

  /**
   * A per-request failure: 500 to the caller; to the log the mapping, the stage, the error's kind
   * and code and a transform's `file:line`, never its message unless gateway.log.verboseErrors (a
   * JSONata cast error quotes the payload value, a transform's message is whatever it threw). The
   * request's receipt gets the message with the request's values taken out (mapping-failure.ts).
   */
  const failed = (stage: MappingStage, error: unknown, request: HookRequest): HeraldError => {
    const at = stage === 'transform' ? transformLocation(error, deps.transforms.dir) : undefined;
    deps.logger?.error({ mapping: id, stage, ...(stage === 'transform' && { cause: transformCause(error) }), ...(at && { at }), ...errorDetail(deps.logger, error) }, 'hook mapping failed');
    // the whole reason stays on the error, for the dry-run tools (herald hooks test, fixtures) that print it to their operator
    const message = stage === 'template' ? describeJsonataError(error) : error instanceof Error ? error.message : String(error);
    const answer = new HeraldError('HERALD_MAPPING_FAILED', undefined, { cause: new Error(`${stage === 'transform' ? `transform ${mapping.transform!.module}` : stage}: ${message}`) });
    const named = stage === 'transform' && error instanceof Error ? `${error.name}: ${message}` : message;
    // the value a JSONata error names may be computed from the payload (an upper-cased field): taken out as well
    const value = (error as { value?: unknown } | undefined)?.value;
    return withFailure(answer, { stage, mappingId: id, cause: redactedCause(named, request, value === undefined ? [] : [value]), ...(at && { at }) });
  };

  /** a refusal of the mapping's own step (its schema, the action it made), marked with the stage for the receipt */
  const refused = (stage: MappingStage, error: unknown, request: HookRequest): unknown =>
    error instanceof HeraldError ? withFailure(error, { stage, mappingId: id, cause: redactedCause(error.message, request) }) : error;

  /**
   * `forEach`: the request once per item of the payload's array, each seeing `[item]` in its place
   * (OpenClaw's contract, so `{{messages[0].id}}` templates keep working), capped per request.
   */
  function fanOut(request: HookRequest): HookRequest[] {
    const key = mapping.forEach!;
    const payload = request.payload;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload) || !Object.hasOwn(payload, key)) return [];
    const items = (payload as Record<string, unknown>)[key];
    if (!Array.isArray(items)) return [];
    const max = deps.ctx.config.hooks?.maxForEachItems ?? 200;
    if (items.length > max) deps.logger?.warn({ mapping: id, items: items.length, dropped: items.length - max }, `forEach: only the first ${max} items are processed (hooks.maxForEachItems)`);
    return items.slice(0, max).map((item) => ({ ...request, payload: { ...(payload as object), [key]: [item] } }));
  }

  /** schema and templates: no side effects, so a repeat of a known idempotency key may run them again */
  async function prepare(request: HookRequest): Promise<PreparedMapping> {
    if (respond?.handshake) {
      try {
        const scope = templateScope(request);
        if (await respond.holds(scope)) {
          const response = await respond.render(scope);
          return { run: async () => ({ type: 'respond', response }) };
        }
      } catch (error) {
        throw failed('respond', error, request);
      }
    }
    try {
      schema?.check(request.payload);
    } catch (error) {
      throw refused('schema', error, request);
    }
    if (mapping.forEach !== undefined) return prepareEach(request);
    let raw: Record<string, unknown>;
    let idempotencyKey: string | undefined;
    try {
      const scope = templateScope(request);
      raw = await templates.render(scope);
      idempotencyKey = await templates.idempotencyKey(scope);
    } catch (error) {
      throw failed('template', error, request);
    }
    return {
      ...(idempotencyKey !== undefined && { idempotencyKey }),
      ...(respond?.waitMs !== undefined && { reply: awaitedReply(respond, request) }),
      ...(!mapping.transform && { pure: true as const }),
      run: () => finish(request, raw),
    };
  }

  /** the answer with the run's reply, or the fallback, rendered over this request */
  function awaitedReply(waiting: CompiledRespond, request: HookRequest): NonNullable<PreparedMapping['reply']> {
    const scope = templateScope(request);
    const rendering = (render: () => Promise<HookResponse | undefined>) => async () => {
      try {
        return await render();
      } catch (error) {
        throw failed('respond', error, request);
      }
    };
    return {
      waitMs: waiting.waitMs!,
      declared: waiting.declared,
      render: (reply) => rendering(() => waiting.render(scope, reply))() as Promise<HookResponse>,
      fallback: rendering(async () => waiting.fallback?.(scope)),
    };
  }

  async function prepareEach(request: HookRequest): Promise<PreparedMapping> {
    const requests = fanOut(request);
    let raws: Record<string, unknown>[];
    let idempotencyKey: string | undefined;
    try {
      raws = [];
      for (const one of requests) raws.push(await templates.render(templateScope(one)));
      // the key names the delivery (the whole request), not an item
      idempotencyKey = await templates.idempotencyKey(templateScope(request));
    } catch (error) {
      throw failed('template', error, request);
    }
    // OpenClaw's batch rule: an item refused (bad field, failed transform) does not hold back the others
    const run = async (): Promise<MappingOutcome> => {
      const actions: HookAction[] = [];
      const indexes: number[] = [];
      const refused: ItemRefusal[] = [];
      for (const [i, one] of requests.entries()) {
        let outcome: MappingOutcome;
        try {
          outcome = await finish(one, raws[i]!);
        } catch (error) {
          // a lone item answers as a single request does
          if (!(error instanceof HeraldError) || requests.length === 1) throw error;
          refused.push({ index: i, error });
          continue;
        }
        if (outcome.type === 'action') {
          actions.push(outcome.action);
          indexes.push(i);
        }
      }
      if (!actions.length && !refused.length) return { type: 'skip' };
      return { type: 'actions', actions, indexes, ...(refused.length && { refused }) };
    };
    return { ...(idempotencyKey !== undefined && { idempotencyKey }), run };
  }

  // the same for every request: made once
  const actionContext: ActionContext = {
    ...deps.ctx,
    mappingId: id,
    requiredMessage: (field) => `hook mapping requires ${field}`,
    // from config only: a payload or a transform's fields never turn the wrapper off
    allowUnsafeExternalContent: mapping.allowUnsafeExternalContent === true,
    deliveryPolicy: { retry: mapping.retry, fallback: mapping.fallback, failureReply: mapping.failureReply },
  };

  /** the transform (which may have side effects: it runs once the key, if any, is claimed) and validation */
  async function finish(request: HookRequest, templated: Record<string, unknown>): Promise<MappingOutcome> {
    let raw = templated;
    let kind = mapping.action;
    if (mapping.transform) {
      let result: Awaited<ReturnType<typeof runTransform>>;
      try {
        // resolved again on each request: a file put in place after the start is used, and one
        // replaced by a symlink out of the folder is refused (locate checks the real path too)
        const located = deps.transforms.locate(deps.transforms.resolve(mapping.transform.module), mapping.transform.export);
        result = await runTransform(deps.runner, located, request, mapping, deps.transformTimeoutMs);
      } catch (error) {
        throw failed('transform', error, request);
      }
      if (result.type === 'skip') return { type: 'skip' };
      if (result.type === 'merge') {
        raw = { ...raw, ...result.fields };
        kind = result.kind ?? kind;
      }
    }
    if (kind === 'skip') return { type: 'skip' };
    if (kind === 'tool') return { type: 'action', action: await toolActionOf(request, raw) };
    if (kind === 'agent' && raw.message === undefined) raw.message = defaultAgentMessage(request.payload);
    if (kind === 'wake' && raw.mode === undefined && raw.wakeMode !== undefined) raw.mode = raw.wakeMode;
    let action: HookAction;
    try {
      action = validateAction(raw, kind, actionContext, request.path);
    } catch (error) {
      throw refused('action', error, request);
    }
    if (action.kind === 'agent' && mapping.tools) action = copyWith(action, { tools: mapping.tools, signed: request.signed === true });
    if (!traffic || action.kind !== 'agent') return { type: 'action', action };
    try {
      return { type: 'action', action: await traffic.keyed(action, templateScope(request)) };
    } catch (error) {
      throw failed('template', error, request);
    }
  }

  /**
   * A direct call: its arguments rendered (or a transform's `arguments`), checked against the
   * tool's schema when its server lists it now (else when the run executes), and the run's action
   * made with the same checks as an agent run's (its agent, then's channel and recipient).
   */
  async function toolActionOf(request: HookRequest, raw: Record<string, unknown>): Promise<HookAction> {
    const tool = mapping.tool!;
    let args: Record<string, unknown>;
    try {
      const transformed = raw.arguments;
      args = transformed && typeof transformed === 'object' && !Array.isArray(transformed) ? (transformed as Record<string, unknown>) : await toolArguments!.render(templateScope(request));
    } catch (error) {
      throw failed(error instanceof ArgumentsShapeError ? 'action' : 'template', error, request);
    }
    const spec = deps.ctx.toolSpec?.(tool);
    const shape = spec ? await argumentFaults(spec, args) : [];
    if (shape.length) throw failed('action', new Error(`${tool}: ${shape.join('; ')}`), request);
    const then = mapping.then;
    const scope = templateScope(request);
    const thenTo = then?.to === undefined ? undefined : (await renderField('then.to', then.to, scope, request)).trim();
    const thenThread = then?.threadId === undefined ? undefined : (await renderField('then.threadId', then.threadId, scope, request)).trim();
    const { arguments: _given, ...rest } = raw;
    const fields = { ...rest, message: `${tool} ${JSON.stringify(args)}`.slice(0, 4000), deliver: then?.channel !== undefined, channel: then?.channel ?? 'last', ...(thenTo && { to: thenTo }), ...(thenThread && { threadId: thenThread }), wakeMode: then?.wakeMode ?? 'next-heartbeat' };
    let action: HookAction;
    try {
      action = validateAction(fields, 'agent', actionContext, request.path);
    } catch (error) {
      throw refused('action', error, request);
    }
    return copyWith(action as Extract<HookAction, { kind: 'agent' | 'tool' }>, {
      kind: 'tool' as const,
      name: action.kind === 'wake' || action.name !== 'Hook' ? (action as { name: string }).name : tool,
      call: { tool, arguments: args, outside: true, ...(then && { then: { message: then.message } }) },
      ...(mapping.tools && { tools: mapping.tools }),
      signed: request.signed === true,
    });
  }

  async function renderField(field: string, source: string, scope: ReturnType<typeof templateScope>, request: HookRequest): Promise<string> {
    try {
      return await compileTemplate(source).render(scope);
    } catch (error) {
      throw failed('template', new Error(`${field}: ${describeJsonataError(error)}`), request);
    }
  }

  return {
    id,
    path,
    definition: mapping,
    retainPayloads: mapping.retainPayloads,
    ...(mapping.retainMasked?.length && { retainMasked: mapping.retainMasked }),
    respond,
    ...(traffic && { traffic: traffic.traffic }),
    signature,
    action: mapping.action,
    schema: mapping.schema,
    // a GET handshake answers GET only (the route asks it directly): never a POST to its path
    matches: respond?.method === 'GET' ? () => false : matches,
    ...(routeKey && { routeKey }),
    prepare,
    async apply(request: HookRequest) {
      return (await prepare(request)).run();
    },
  };
}
