import type { ToolSpec } from './tool-spec.js';
import type { CallVerdict, TurnTools } from './turn-tools.js';

/**
 * Several groups of tools as one turn's (a Responses turn: the agent's own, a configured server
 * the request names, a request's remote servers): the model is offered all of them, and each
 * call's verdict, execution and time limit are its group's. A name two groups share goes to the
 * first; the turn's limits are the ones given.
 */
export function mergedTools(groups: readonly TurnTools[], limits: Pick<TurnTools, 'maxToolCalls' | 'maxResultChars'>): TurnTools {
  const owner = new Map<string, TurnTools>();
  const byName = new Map<string, ToolSpec>();
  for (const group of groups) {
    for (const spec of group.specs) {
      if (owner.has(spec.name)) continue;
      owner.set(spec.name, group);
      byName.set(spec.name, spec);
    }
  }
  const groupOf = (spec: ToolSpec) => owner.get(spec.name)!;
  return {
    specs: [...byName.values()],
    byName: (name) => byName.get(name),
    verdict: (spec) => groupOf(spec).verdict(spec),
    call: (spec, args, options) => groupOf(spec).call(spec, args, options),
    timeoutMs: (spec) => groupOf(spec).timeoutMs(spec),
    maxCallMs: (spec) => groupOf(spec).maxCallMs?.(spec) ?? groupOf(spec).timeoutMs(spec),
    maxToolCalls: limits.maxToolCalls,
    maxResultChars: limits.maxResultChars,
    unavailable: (server, name) => groups.map((g) => g.unavailable?.(server, name)).find((why) => why !== undefined),
  };
}

/**
 * Some of a group's tools, each call's verdict possibly made stricter by `verdict` (given the
 * group's own): a request may narrow and add approvals to what config grants, never widen it.
 * `keepDown` is `keep` for a tool whose server is down, known by its server and name only (a
 * server that is not connected lists no tools): a call of one it keeps is told why the server is
 * not available (TurnTools.unavailable) instead of being refused as not granted. Without it, none.
 */
export function narrowedTools(
  base: TurnTools,
  keep: (spec: ToolSpec) => boolean,
  verdict?: (spec: ToolSpec, own: CallVerdict) => CallVerdict,
  keepDown?: (server: string, name: string) => boolean,
): TurnTools {
  const specs = base.specs.filter(keep);
  const byName = new Map(specs.map((s) => [s.name, s]));
  return {
    specs,
    byName: (name) => byName.get(name),
    verdict: (spec) => (verdict ? verdict(spec, base.verdict(spec)) : base.verdict(spec)),
    call: (spec, args, options) => base.call(spec, args, options),
    timeoutMs: (spec) => base.timeoutMs(spec),
    maxCallMs: (spec) => base.maxCallMs?.(spec) ?? base.timeoutMs(spec),
    maxToolCalls: base.maxToolCalls,
    maxResultChars: base.maxResultChars,
    unavailable: (server, name) => (keepDown?.(server, name) ? base.unavailable?.(server, name) : undefined),
  };
}
