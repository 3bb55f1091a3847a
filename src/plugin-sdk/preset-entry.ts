// what the host reads of a `hooks.presets` entry, apart from the presets' schemas (preset.ts), which a start builds only for the presets it uses

/** the options the host lays over every mapping of a preset that starts runs (when given) */
export const PRESET_RUN_OPTIONS = ['agentId', 'deliver', 'channel', 'to', 'sessionKey', 'model', 'thinking', 'allowUnsafeExternalContent', 'tools', 'concurrency', 'rate', 'coalesce'] as const;

/** An entry of `hooks.presets`: a name, or a name with options. */
export type PresetEntry = string | ({ name: string } & Record<string, unknown>);

/** the preset an entry of `hooks.presets` names */
export function presetName(entry: PresetEntry): string {
  return typeof entry === 'string' ? entry : entry.name;
}
