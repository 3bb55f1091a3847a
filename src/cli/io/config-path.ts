import path from 'node:path';

export const DEFAULT_CONFIG_FILE = 'herald.json5';

/** --config, else HERALD_CONFIG, else ./herald.json5 */
export function configPathFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flag ?? env.HERALD_CONFIG ?? DEFAULT_CONFIG_FILE);
}
