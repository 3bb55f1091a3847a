import type { HeraldConfig } from '../config/schema.js';
import { catalogueProvider } from './providers/provider-catalogue.js';

/** A model ref, resolved: `<provider>/<model>`, aliases followed. */
export interface ResolvedModel {
  provider: string;
  model: string;
  /** canonical `provider/model` */
  ref: string;
}

export const EMBEDDED_PROVIDER = 'embedded';

type RefConfig = Pick<HeraldConfig, 'models'> & { agents?: Pick<HeraldConfig['agents'], 'defaults'> };

/** `models.aliases`, then the aliases of OpenClaw's map form of `agents.defaults.models` */
function aliasTarget(ref: string, config: RefConfig): string | undefined {
  // own keys only: a ref like "__proto__" or "constructor/x" must not find Object.prototype's members
  if (Object.hasOwn(config.models.aliases, ref)) return config.models.aliases[ref];
  const mapped = config.agents?.defaults.models?.aliases;
  return mapped && Object.hasOwn(mapped, ref) ? mapped[ref] : undefined;
}

/** Is `name` a provider a ref may use: embedded, one of models.providers, or one of the built-in catalogue? */
export function isKnownProvider(name: string, config: Pick<HeraldConfig, 'models'>): boolean {
  return name === EMBEDDED_PROVIDER || Object.hasOwn(config.models.providers, name) || catalogueProvider(name) !== undefined;
}

/** Follows an alias (once) and splits `provider/model`; undefined when it names no known provider. */
export function resolveModelRef(ref: string, config: RefConfig): ResolvedModel | undefined {
  const target = aliasTarget(ref, config) ?? ref;
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) return undefined;
  const provider = target.slice(0, slash);
  // the rest may hold more slashes: openrouter/meta-llama/llama-3.3-70b-instruct:free
  const model = target.slice(slash + 1);
  if (!isKnownProvider(provider, config)) return undefined;
  return { provider, model, ref: `${provider}/${model}` };
}

/** Is a requested override permitted by `agents.defaults.models`? Aliases and refs compare resolved. */
export function isModelAllowed(ref: string, config: Pick<HeraldConfig, 'models' | 'agents'>): boolean {
  const allowed = config.agents.defaults.models?.refs;
  if (!allowed) return true;
  const wanted = resolveModelRef(ref, config)?.ref ?? ref;
  return allowed.some((entry) => entry === ref || (resolveModelRef(entry, config)?.ref ?? entry) === wanted);
}

export function checkModelRefs(config: HeraldConfig): string[] {
  const faults: string[] = [];
  const check = (ref: string, key: string) => {
    if (!resolveModelRef(ref, config)) {
      faults.push(`${key}: unknown model "${ref}" (use <provider>/<model> with a provider of models.providers or the built-in catalogue, "embedded/...", or an alias)`);
    }
  };
  const { model, models } = config.agents.defaults;
  check(model.primary, 'agents.defaults.model');
  model.fallbacks.forEach((ref, i) => check(ref, `agents.defaults.model.fallbacks[${i}]`));
  models?.refs.forEach((ref) => check(ref, `agents.defaults.models.${ref}`));
  config.agents.list.forEach((agent, i) => agent.model && check(agent.model, `agents.list[${i}].model`));
  for (const [alias, target] of Object.entries(config.models.aliases)) check(target, `models.aliases.${alias}`);
  for (const alias of Object.keys(models?.aliases ?? {})) {
    if (Object.hasOwn(config.models.aliases, alias)) faults.push(`agents.defaults.models: alias "${alias}" is also defined in models.aliases`);
  }
  if (config.models.providers[EMBEDDED_PROVIDER]) faults.push('models.providers.embedded: the name "embedded" is reserved for the built-in model');
  return faults;
}

/** The refs a config names (defaults, fallbacks, allowlist, agents, aliases): what `config check` inspects for keys. */
export function configuredModelRefs(config: HeraldConfig): { ref: string; key: string }[] {
  const { model, models } = config.agents.defaults;
  return [
    { ref: model.primary, key: 'agents.defaults.model' },
    ...model.fallbacks.map((ref, i) => ({ ref, key: `agents.defaults.model.fallbacks[${i}]` })),
    ...(models?.refs ?? []).map((ref) => ({ ref, key: `agents.defaults.models` })),
    ...config.agents.list.flatMap((agent, i) => (agent.model ? [{ ref: agent.model, key: `agents.list[${i}].model` }] : [])),
  ];
}
