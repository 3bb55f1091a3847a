import { z } from 'zod';
import type { LoadedConfig } from '../../plugin-host/load-config.js';
import { ConfigError } from '../../errors.js';
import { splitFault } from '../../config/loading/split-fault.js';

type Segment = string | number;

/** `agents.list[0].id` -> ['agents', 'list', 0, 'id'] */
export function pathSegments(text: string): Segment[] {
  return [...text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

const keyOf = (segments: Segment[]) => segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '');

export { splitFault };

function withoutKey(value: unknown, segments: Segment[]): unknown {
  if (segments.length === 0 || !value || typeof value !== 'object') return value;
  const [first, ...rest] = segments;
  if (Array.isArray(value)) {
    if (typeof first !== 'number') return value;
    return rest.length ? value.map((v, i) => (i === first ? withoutKey(v, rest) : v)) : value.filter((_, i) => i !== first);
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (typeof first !== 'string' || !(first in copy)) return value;
  if (rest.length) copy[first] = withoutKey(copy[first], rest);
  else delete copy[first];
  return copy;
}

export interface CheckPasses {
  faults: string[];
  /** the config as loaded once the keys at fault were left out (their defaults used), for the checks that need one */
  loaded?: LoadedConfig;
}

/**
 * Loads a config again and again, leaving out each key at fault (an unknown key itself, any other
 * key down to its section's field, e.g. `agents.list`) so that every fault of the file is found in
 * one run: a fault that stops the load (a plugin that cannot load, a wrong type) no longer hides
 * the rest (the semantic checks, the mappings). A fault under a key already left out is an
 * artefact of leaving it out, and is dropped.
 */
export async function collectFaults(
  raw: unknown,
  load: (value: unknown) => Promise<LoadedConfig>,
  after: (loaded: LoadedConfig) => Promise<void>,
  placeholder: (variable: string) => boolean,
): Promise<CheckPasses> {
  const faults: string[] = [];
  const removed: string[] = [];
  const unsetAt: string[] = [];
  // artefacts come from keys left out by an earlier pass: faults of one pass are all genuine
  let removedBefore: string[] = [];
  const under = (path: string) => removedBefore.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
  let value = raw;
  for (let pass = 0; pass < 10; pass++) {
    let loaded: LoadedConfig;
    removedBefore = [...removed];
    try {
      loaded = await load(value);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      let progressed = false;
      for (const fault of error.faults) {
        const { path } = splitFault(fault);
        if (!path || path === '(root)') {
          faults.push(fault);
          continue;
        }
        const variable = /environment variable (\w+) is not set/.exec(fault)?.[1];
        if (variable) {
          // a placeholder stands in for it from now on: the keys that use it are checked too
          faults.push(fault);
          unsetAt.push(path);
          progressed = placeholder(variable) || progressed;
          continue;
        }
        const segments = pathSegments(path);
        let cut: Segment[];
        if (unsetAt.includes(path) && !removed.includes(path)) {
          // the placeholder does not fit this key (a duration, a pattern): the unset variable is its fault, leave it out
          cut = segments;
        } else if (under(path)) {
          // an artefact of a key left out (a required field whose value was unset): leave out its parent too
          cut = segments.slice(0, -1);
          if (cut.length < 2 || removed.includes(keyOf(cut))) continue;
        } else {
          faults.push(fault);
          cut = / unknown key$/.test(fault) ? segments : segments.slice(0, 2);
        }
        removed.push(keyOf(cut));
        value = withoutKey(value, cut);
        progressed = true;
      }
      if (!progressed) return { faults };
      continue;
    }
    try {
      await after(loaded);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const fresh = error.faults.filter((f) => !faults.includes(f));
      // an unset variable of a mapping file: check again with its placeholder. The pass's other
      // faults may be what the empty value broke (a secret too short): the next pass finds the real ones
      const unset = fresh.filter((f) => /environment variable \w+ is not set/.test(f));
      const variables = unset.map((f) => /environment variable (\w+) is not set/.exec(f)![1]!);
      if (variables.map(placeholder).some(Boolean)) {
        faults.push(...unset);
        continue;
      }
      faults.push(...fresh);
    }
    return { faults, loaded };
  }
  return { faults };
}

/** The keys a config schema allows at `path` (`gateway.auth` -> ['token']), for "did you mean". */
export function keysAt(schema: z.ZodType, path: Segment[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of [...path, undefined]) {
    // unwrap defaults, optionals and pipes down to the object or array
    for (let i = 0; i < 10 && current; i++) {
      const def: { type: string; innerType?: z.ZodType; in?: z.ZodType } = (current as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
      if (def.innerType) current = def.innerType;
      else if (def.type === 'pipe' && def.in) current = def.in;
      else break;
    }
    if (!current) return [];
    if (segment === undefined) return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
    if (typeof segment === 'number') current = current instanceof z.ZodArray ? (current.element as z.ZodType) : undefined;
    else if (current instanceof z.ZodObject) current = current.shape[segment] as z.ZodType | undefined;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return [];
  }
  return [];
}

/** What an unset `${NAME}` becomes in a dry run: long enough for a token, shaped like a URL for a baseUrl. */
export const placeholderFor = (name: string) => `https://unset.invalid/${name}`;

/**
 * Unset variables set to their placeholders in this process's environment (the mapping files read
 * their `${ENV}` from it), for the length of one CLI command: `restore()` unsets them again.
 */
export class EnvPlaceholders {
  readonly names: string[] = [];

  /** false when the variable is set already */
  set = (name: string): boolean => {
    if (process.env[name] !== undefined) return false;
    process.env[name] = placeholderFor(name);
    this.names.push(name);
    return true;
  };

  restore(): void {
    for (const name of this.names) delete process.env[name];
  }
}
