import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import JSON5 from 'json5';
import YAML from 'yaml';
import { formatJson5, setJson5Path } from './json5-edit.js';

export type ConfigFormat = 'json' | 'json5' | 'yaml';

/** One change setup makes: `path` set to `value`. */
export interface ConfigEdit {
  path: string[];
  value: unknown;
}

export function formatOf(file: string): ConfigFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json5') return 'json5';
  throw new Error(`${file}: unsupported config format "${ext}" (use .json, .json5, .yaml or .yml)`);
}

/** The file as written (no ${ENV} substitution), or {} when it does not exist yet. */
export function readRawConfig(file: string): { text: string | undefined; value: Record<string, unknown> } {
  if (!fs.existsSync(file)) return { text: undefined, value: {} };
  const text = fs.readFileSync(file, 'utf8');
  const format = formatOf(file);
  const value = format === 'json' ? JSON.parse(text) : format === 'json5' ? JSON5.parse(text) : (YAML.parse(text) ?? {});
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file}: the config is not an object`);
  return { text, value: value as Record<string, unknown> };
}

export function applyEdits(value: Record<string, unknown>, edits: ConfigEdit[]): Record<string, unknown> {
  const copy = structuredClone(value);
  for (const edit of edits) {
    let node = copy as Record<string, unknown>;
    edit.path.slice(0, -1).forEach((key) => {
      const next = node[key];
      if (!next || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
      node = node[key] as Record<string, unknown>;
    });
    node[edit.path.at(-1)!] = edit.value;
  }
  return copy;
}

/**
 * The new text of the config, in its own format. JSON is re-serialised (it has no comments);
 * YAML goes through yaml's Document API, which keeps comments; JSON5 is edited textually
 * (json5-edit.ts), keeping comments outside the changed values. When a textual edit would not
 * parse back to exactly the intended config, the file is re-serialised instead and
 * `commentsKept` is false.
 */
export function editedConfigText(file: string, edits: ConfigEdit[]): { text: string; format: ConfigFormat; commentsKept: boolean } {
  const format = formatOf(file);
  const raw = readRawConfig(file);
  const expected = applyEdits(raw.value, edits);
  if (format === 'json') {
    const indent = raw.text ? (/\n([ \t]+)"/.exec(raw.text)?.[1] ?? '  ') : '  ';
    return { text: `${JSON.stringify(expected, null, indent)}\n`, format, commentsKept: true };
  }
  if (format === 'yaml') {
    const doc = YAML.parseDocument(raw.text ?? '{}');
    if (!YAML.isMap(doc.contents)) doc.contents = doc.createNode({}) as never;
    for (const edit of edits) {
      // a key present but empty (`hooks:`) is null: make it a map before descending
      for (let i = 1; i < edit.path.length; i++) {
        const prefix = edit.path.slice(0, i);
        if (!YAML.isMap(doc.getIn(prefix, true))) doc.setIn(prefix, doc.createNode({}));
      }
      const current = doc.getIn(edit.path, true);
      // a scalar replaced in place keeps the comment beside it
      if (YAML.isScalar(current) && (edit.value === null || typeof edit.value !== 'object')) current.value = edit.value;
      else doc.setIn(edit.path, doc.createNode(edit.value));
    }
    const text = raw.text === undefined ? YAML.stringify(expected) : doc.toString();
    if (isDeepStrictEqual(YAML.parse(text), expected)) return { text, format, commentsKept: true };
    return { text: YAML.stringify(expected), format, commentsKept: false };
  }
  if (raw.text === undefined) return { text: `${formatJson5(expected, '')}\n`, format, commentsKept: true };
  try {
    let text = raw.text;
    for (const edit of edits) text = setJson5Path(text, edit.path, edit.value);
    if (isDeepStrictEqual(JSON5.parse(text), expected)) return { text, format, commentsKept: true };
  } catch {
    // fall through to a full rewrite
  }
  return { text: `${formatJson5(expected, '')}\n`, format, commentsKept: false };
}

/** Replaces the file atomically (temp file + rename), keeping its permissions; a new file is owner-only. */
export function writeConfigText(file: string, text: string): void {
  const mode = fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode });
  fs.renameSync(temp, file);
}
