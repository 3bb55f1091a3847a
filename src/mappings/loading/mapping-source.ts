/** A mapping as found, before compiling: raw data and where it came from, for fault messages. */
export interface MappingSource {
  origin: string;
  raw: unknown;
  /**
   * a mapping file's `auth` still holds `${ENV}` references (the config file's mappings were
   * substituted with the rest of the config; substituting twice would undo a `$${X}` escape)
   */
  substituteAuthEnv?: boolean;
  /** a preset's mapping: its model default (e.g. hooks.gmail.model) is dropped with a warning when not allowed, as OpenClaw ignores it */
  preset?: boolean;
  /** `raw` is already the output of the mapping schema (the config file's own mappings, parsed with the config): not parsed again */
  parsed?: boolean;
}
