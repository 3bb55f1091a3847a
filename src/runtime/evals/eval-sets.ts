import fs from 'node:fs';
import path from 'node:path';
import { evalSelectionSchema, type EvalSelection } from './eval-request.js';
import { formatIssues } from '../../config/loading/format-issues.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** where saved selections are kept: `evals/<name>.json` beside the config, so a team commits and shares them */
export const setFile = (configFile: string, name: string) => path.join(path.dirname(configFile), 'evals', `${name}.json`);

/** a saved selection, by name; a missing or invalid file is an error naming it */
export function readSet(configFile: string, name: string): EvalSelection {
  if (!NAME.test(name)) throw new Error(`--set ${name}: a set's name is letters, digits, . _ - (it names evals/<name>.json)`);
  const file = setFile(configFile, name);
  if (!fs.existsSync(file)) throw new Error(`--set ${name}: no saved set (${file}); save one with --save-set ${name}`);
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
  const parsed = evalSelectionSchema.safeParse(value);
  if (!parsed.success) throw new Error(formatIssues(parsed.error.issues, file).join('\n'));
  return parsed.data;
}

export function saveSet(configFile: string, name: string, selection: EvalSelection): string {
  if (!NAME.test(name)) throw new Error(`--save-set ${name}: a set's name is letters, digits, . _ - (it names evals/<name>.json)`);
  const file = setFile(configFile, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(selection, null, 2)}\n`);
  return file;
}
