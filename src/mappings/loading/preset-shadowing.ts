import type { MappingSource } from './mapping-source.js';

const pathOf = (raw: unknown): string | undefined => {
  const path = (raw as { match?: { path?: unknown } } | null)?.match?.path;
  return typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : undefined;
};

/** `hooks.presets[1] (github, mapping 3)` → `hooks.presets[1] (github)`; `mappings/github.yaml[0]` → `mappings/github.yaml` */
const originName = (origin: string): string => origin.replace(/, mapping \d+\)$/, ')').replace(/\s*\[\d+\]$/, '');

/** a preset's mapping's origin (src/plugin-host/registry.ts), `hooks.presets[i] (<name>, mapping <j>)`, or its entry's: the preset's name */
const PRESET_ORIGIN = /^hooks\.presets\[\d+\] \(([^,)]+)/;

/** the preset's name in its origin (`hooks.presets[0] (github, mapping 3)` → `github`) */
const presetNameOf = (origin: string): string => PRESET_ORIGIN.exec(origin)?.[1] ?? origin;

/**
 * Your mappings shadow a preset's on a path they serve: the preset's mappings of that path are
 * left out (one note per preset and path says so), so a mapping file beside the shipped examples
 * and a preset on the same path start together, and yours answer, as docs/presets.md says.
 */
export function shadowPresetPaths(sources: MappingSource[], notes?: string[]): MappingSource[] {
  const yours = new Map<string, Set<string>>();
  for (const source of sources) {
    if (source.preset) continue;
    const path = pathOf(source.raw);
    if (path === undefined) continue;
    (yours.get(path) ?? yours.set(path, new Set()).get(path)!).add(originName(source.origin));
  }
  const shadowed = new Map<string, { preset: string; name: string; path: string; count: number }>();
  const kept = sources.filter((source) => {
    const path = source.preset ? pathOf(source.raw) : undefined;
    if (path === undefined || !yours.has(path)) return true;
    const preset = originName(source.origin);
    const key = `${preset}\n${path}`;
    const entry = shadowed.get(key) ?? shadowed.set(key, { preset, name: presetNameOf(source.origin), path, count: 0 }).get(key)!;
    entry.count++;
    return false;
  });
  for (const { preset, name, path, count } of shadowed.values()) {
    const by = [...yours.get(path)!].join(', ');
    notes?.push(
      `${preset}: path "${path}" is served by your mappings (${by}), which shadow the preset's ${count} mapping(s) there; ` +
        `to use the preset on it, remove those mappings (or set hooks.mappingsDir to another folder), or give the preset its own path and id ({ name: "${name}", path: "...", id: "..." }: the id keeps its mapping ids apart from yours)`,
    );
  }
  return kept;
}

/** what to do about a duplicate id where one side is a preset's mapping (the fault's tail) */
export function presetDuplicateAdvice(origin: string, other: string): string {
  const [preset, yours] = PRESET_ORIGIN.test(origin) ? [origin, other] : PRESET_ORIGIN.test(other) ? [other, origin] : [];
  if (!preset || !yours) return '';
  const file = originName(yours);
  const remove = file === 'hooks.mappings' ? '' : `, remove ${file} (or set hooks.mappingsDir to another folder)`;
  return `: ${originName(preset)} and your ${file} both define it; give the preset entry an id of its own ({ name: "${presetNameOf(preset)}", id: "..." }: its mapping ids become <id>-...), rename yours${remove}, or drop the preset from hooks.presets`;
}
