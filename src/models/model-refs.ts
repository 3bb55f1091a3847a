import type { HeraldConfig } from '../config/schema.js';

/** A model ref, resolved: `<provider>/<model>`, aliases followed. */
export interface ResolvedModel {
  provider: string;
  model: string;
  /** canonical `provider/model` */
  ref: string;
}

export const EMBEDDED_PROVIDER = 'embedded';

/** Follows an alias (once) and splits `provider/model`; undefined when it names no known provider. */
export function resolveModelRef(ref: string, config: Pick<HeraldConfig, 'models'>): ResolvedModel | undefined {
  // own keys only: a ref like "__proto__" or "constructor/x" must not find Object.prototype's members
  const target = Object.hasOwn(config.models.aliases, ref) ? config.models.aliases[ref]! : ref;
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) return undefined;
  const provider = target.slice(0, slash);
  const model = target.slice(slash + 1);
  if (provider !== EMBEDDED_PROVIDER && !Object.hasOwn(config.models.providers, provider)) return undefined;
  return { provider, model, ref: `${provider}/${model}` };
}

/** Is a requested override permitted by `agents.defaults.models`? Aliases and refs compare resolved. */
export function isModelAllowed(ref: string, config: Pick<HeraldConfig, 'models' | 'agents'>): boolean {
  const allowed = config.agents.defaults.models;
  if (!allowed) return true;
  const wanted = resolveModelRef(ref, config)?.ref ?? ref;
  return allowed.some((entry) => entry === ref || (resolveModelRef(entry, config)?.ref ?? entry) === wanted);
}

export function checkModelRefs(config: HeraldConfig): string[] {
  const faults: string[] = [];
  const check = (ref: string, key: string) => {
    if (!resolveModelRef(ref, config)) {
      faults.push(`${key}: unknown model "${ref}" (use <provider>/<model> with a provider of models.providers, "embedded/...", or an alias)`);
    }
  };
  check(config.agents.defaults.model, 'agents.defaults.model');
  config.agents.defaults.models?.forEach((ref, i) => check(ref, `agents.defaults.models[${i}]`));
  config.agents.list.forEach((agent, i) => agent.model && check(agent.model, `agents.list[${i}].model`));
  for (const [alias, target] of Object.entries(config.models.aliases)) check(target, `models.aliases.${alias}`);
  if (config.models.providers[EMBEDDED_PROVIDER]) faults.push('models.providers.embedded: the name "embedded" is reserved for the built-in model');
  return faults;
}
