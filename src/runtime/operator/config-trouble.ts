import { mappingFaults, type MappingFault } from '../../mappings/loading/mapping-faults.js';

/** a reload the running gateway refused: when, what asked for it, and why (the running config stayed) */
export interface RefusedReload {
  at: number;
  /** what asked: `POST /admin/reload`, `SIGHUP`, `mappingsDir changed` */
  reason: string;
  faults: string[];
}

/** keys the last applied reload left at their running value: they changed in the file and take effect at a restart */
export interface RestartRequired {
  at: number;
  reason: string;
  keys: string[];
}

export interface ConfigTroubleView {
  /** the last reload refused since the last one applied; null when the last one applied (or none was tried) */
  refusedReload: RefusedReload | null;
  /** the keys the last applied reload refused, waiting for a restart; null when none */
  restartRequired: RestartRequired | null;
  /** the refused reload's faults about mappings, each with its file, mapping and line */
  mappings: MappingFault[];
  /** what the running config loaded with but deserves attention (a transform not there yet, a preset default ignored) */
  warnings: string[];
}

/**
 * What the operator should know of the running config beyond the log: the
 * last refused reload (a mapping file saved with a JSONata error is one: the file's mappings are
 * not loaded, the ones running stay) and the warnings of the config that runs. Kept in this
 * process's memory; an applied reload clears the refusal.
 */
export class ConfigTrouble {
  private refused: RefusedReload | null = null;
  private faultsOfMappings: MappingFault[] = [];
  private waiting: RestartRequired | null = null;

  constructor(
    /** the folder of mapping files (hooks.mappingsDir, read at start) */
    private readonly mappingsDir: string,
    private warnings: string[],
    private readonly onChange?: () => void,
  ) {}

  /** a reload was refused: its faults stay shown until a reload applies */
  async refusedReload(reason: string, faults: string[], at = Date.now()): Promise<void> {
    const ofMappings = await mappingFaults(faults, this.mappingsDir);
    this.refused = { at, reason, faults: [...faults] };
    this.faultsOfMappings = ofMappings;
    this.onChange?.();
  }

  /**
   * a reload applied: the refusal is over, the new config's warnings replace the old, and the keys
   * it left for a restart are those it names (each reload names them again until the restart)
   */
  reloaded(reason: string, warnings: string[], restartRequired: string[], at = Date.now()): void {
    const changed = this.refused !== null || warnings.join('\n') !== this.warnings.join('\n') || (this.waiting?.keys ?? []).join() !== restartRequired.join();
    this.refused = null;
    this.faultsOfMappings = [];
    this.warnings = [...warnings];
    this.waiting = restartRequired.length ? { at, reason, keys: [...restartRequired] } : null;
    if (changed) this.onChange?.();
  }

  view(): ConfigTroubleView {
    return {
      refusedReload: this.refused && { ...this.refused, faults: [...this.refused.faults] },
      restartRequired: this.waiting && { ...this.waiting, keys: [...this.waiting.keys] },
      mappings: [...this.faultsOfMappings],
      warnings: [...this.warnings],
    };
  }
}
