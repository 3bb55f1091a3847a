import type { CompiledMapping } from '../compiled-mapping.js';
import type { HookRequest } from '../hook-request.js';
import { MISSING, routeValue, UNKNOWN, type RouteKey, type RouteValue } from './route-key.js';

interface KeyGroup {
  root: RouteKey['root'];
  steps: readonly string[];
  /** positions of the group's mappings by the value their key asks for */
  byValue: Map<RouteValue, number[]>;
  /** every position of the group, for a request whose value cannot be compared by the index */
  all: number[];
}

/** below this many keyed mappings, asking each in turn costs no more than the index */
const MIN_KEYED = 4;

/**
 * The mappings one path's requests meet, in configured order, indexed by their route keys: a
 * thousand mappings on one path, each `type = "…"`, cost a request one lookup per distinct field
 * instead of a thousand predicates. The candidates are the mappings without a key and those whose
 * key the request's value satisfies (or all of a field's when its value is no scalar), in their
 * configured order; the caller asks each in turn, so the first match is what a scan would find.
 */
export class MappingRoute {
  private readonly groups: KeyGroup[] = [];
  private readonly unkeyed: number[] = [];

  constructor(readonly mappings: readonly CompiledMapping[]) {
    if (mappings.filter((m) => m.routeKey).length < MIN_KEYED) return;
    const byField = new Map<string, KeyGroup>();
    mappings.forEach((mapping, position) => {
      const key = mapping.routeKey;
      if (!key) return void this.unkeyed.push(position);
      const field = `${key.root}\u0000${key.steps.join('\u0000')}`;
      let group = byField.get(field);
      if (!group) byField.set(field, (group = { root: key.root, steps: key.steps, byValue: new Map(), all: [] }));
      group.all.push(position);
      const same = group.byValue.get(key.value);
      if (same) same.push(position);
      else group.byValue.set(key.value, [position]);
    });
    this.groups = [...byField.values()];
  }

  /** the mappings that may take the request, in configured order */
  candidates(request: HookRequest): readonly CompiledMapping[] {
    if (this.groups.length === 0) return this.mappings;
    const lists: number[][] = this.unkeyed.length > 0 ? [this.unkeyed] : [];
    for (const group of this.groups) {
      const value = routeValue(request, group.root, group.steps);
      if (value === MISSING) continue;
      const hits = value === UNKNOWN ? group.all : group.byValue.get(value);
      if (hits) lists.push(hits);
    }
    const positions = lists.length === 1 ? lists[0]! : lists.flat().sort((a, b) => a - b);
    return positions.map((position) => this.mappings[position]!);
  }
}
