import fs from 'node:fs';
import type { Node } from 'yaml';
import { loadYaml } from '../../config/loading/yaml-module.js';
import { listMappingFiles } from './mapping-files.js';

/** one mapping that failed to load: where it is and why, as the refused load's fault said */
export interface MappingFault {
  /** the mapping file, or `hooks.mappings` for the config file's own */
  file: string;
  /** its place in the file's list (0 for a file holding one mapping); null for a fault of the whole file */
  index: number | null;
  /** its id, when the fault names one */
  id: string | null;
  /** the field at fault (`messageTemplate`, `match.when`), when the fault names one */
  field: string | null;
  /** the whole fault, as `herald config check` prints it */
  fault: string;
  /** where in the file the field (or the mapping) is, 1-based; null when not found (JSON5, a fault of the whole file) */
  line: number | null;
  column: number | null;
}

const ESCAPE = /[.*+?^${}()|[\]\\]/g;
const escaped = (text: string) => text.replace(ESCAPE, '\\$&');

/**
 * The faults of a refused load that are about mappings, each with its file, mapping and the line
 * and column of the field at fault. Read from the faults' words (`mapping "id" (<file>[i]): field: …`,
 * `<file>[i].field: …`, `<file>: not valid YAML …`), the one form every mapping fault takes.
 */
export async function mappingFaults(faults: readonly string[], mappingsDir: string): Promise<MappingFault[]> {
  const files = listMappingFiles(mappingsDir);
  const out: MappingFault[] = [];
  for (const fault of faults) {
    const where = files.map((file) => ({ file, match: new RegExp(`^(?:mapping "([^"]*)" \\()?${escaped(file)}(?:\\[(\\d+)\\])?\\)?[.:]\\s*(.*)$`, 's').exec(fault) })).find((m) => m.match)
      ?? { file: 'hooks.mappings', match: /^(?:mapping "([^"]*)" \()?hooks\.mappings\[(\d+)\]\)?[.:]\s*(.*)$/s.exec(fault) };
    if (!where.match) continue;
    const [, id, index, rest = ''] = where.match;
    const field = /^([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*): /.exec(rest)?.[1] ?? null;
    const fileIndex = index === undefined ? null : Number(index);
    const at = where.file === 'hooks.mappings' ? undefined : await position(where.file, fileIndex, field);
    out.push({ file: where.file, index: fileIndex, id: id ?? null, field, fault, line: at?.line ?? null, column: at?.column ?? null });
  }
  return out;
}

/**
 * the line and column of `field` of the file's mapping `index` (the mapping's own when the field is
 * not there)
 */
async function position(file: string, index: number | null, field: string | null): Promise<{ line: number; column: number } | undefined> {
  if (index === null || file.toLowerCase().endsWith('.json5')) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const { LineCounter, isMap, isSeq, parseDocument } = await loadYaml();
  const lines = new LineCounter();
  // JSON is YAML too: one reader gives positions for both
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: false });
  let node: unknown = isSeq(doc.contents) ? doc.contents.items[index] : index === 0 ? doc.contents : undefined;
  if (!node) return undefined;
  const keys = field ? field.split(/\.|\[(\d+)\]/).filter((k) => k !== undefined && k !== '') : [];
  for (const key of keys) {
    const next = isMap(node) ? node.get(key, true) : isSeq(node) ? node.items[Number(key)] : undefined;
    if (!next) break;
    node = next;
  }
  const start = (node as Node).range?.[0];
  if (start === undefined) return undefined;
  const { line, col } = lines.linePos(start);
  return { line, column: col };
}

/** the faults, each about a mapping file's field followed by where the field is (`(line 8, column 20)`): what `herald config check` prints */
export async function withPositions(faults: readonly string[], mappingsDir: string): Promise<string[]> {
  const located = new Map((await mappingFaults(faults, mappingsDir)).filter((m) => m.line !== null).map((m) => [m.fault, m]));
  return faults.map((fault) => {
    const at = located.get(fault);
    return at ? `${fault} (line ${at.line}, column ${at.column})` : fault;
  });
}
