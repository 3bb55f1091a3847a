import fs from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';
import { ConfigError } from '../../errors.js';
import { loadYaml } from './yaml-module.js';

export type ConfigFormat = 'json' | 'json5' | 'yaml';

export function configFormat(file: string): ConfigFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.json5') return 'json5';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  throw new ConfigError([`${file}: unsupported config format "${ext}" (use .json, .json5, .yaml or .yml)`]);
}

/** Reads and parses a structured file (config or mapping), naming the file in any fault. */
export async function parseStructuredFile(file: string): Promise<unknown> {
  const format = configFormat(file);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }
  return parseStructuredText(text, format, file);
}

/**
 * OpenClaw's `openclaw.json` is JSON5 (comments, unquoted keys, trailing commas) under a `.json`
 * name, and users bring it as is: strict JSON first, then JSON5; a file that is neither is
 * reported with JSON5's message, which names the line and column.
 */
function parseJsonOrJson5(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return JSON5.parse(text);
  }
}

export async function parseStructuredText(text: string, format: ConfigFormat, file: string): Promise<unknown> {
  try {
    if (format === 'json') return parseJsonOrJson5(text);
    if (format === 'json5') return JSON5.parse(text);
    const doc = (await loadYaml()).parseDocument(text);
    if (doc.errors.length) throw new Error(doc.errors.map((e) => e.message).join('; '));
    return doc.toJS() ?? {};
  } catch (error) {
    throw new ConfigError([`${file}: not valid ${format.toUpperCase()}: ${syntaxMessage(error as Error)}`]);
  }
}

/** JSON5's `JSON5: invalid character 'h' at 3:3` as `invalid character 'h' (line 3, column 3)`, the way every other fault names a place */
function syntaxMessage(error: Error & { lineNumber?: unknown; columnNumber?: unknown }): string {
  if (typeof error.lineNumber !== 'number' || typeof error.columnNumber !== 'number') return error.message;
  return `${error.message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '')} (line ${error.lineNumber}, column ${error.columnNumber})`;
}

/** Reads a config file (.json, .json5, .yaml) as plain data; nothing substituted or checked yet. */
export async function readConfigFile(file: string): Promise<unknown> {
  const full = path.resolve(file);
  if (!fs.existsSync(full)) {
    throw new ConfigError([
      `${full}: no such config file. Create one: \`herald serve --config ${full}\` writes a starter config there on its first start (or pass --config FILE / set HERALD_CONFIG to an existing one)`,
    ]);
  }
  return parseStructuredFile(full);
}
