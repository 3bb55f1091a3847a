import fs from 'node:fs';
import path from 'node:path';
import { configFormat, parseStructuredText } from '../../config/loading/parse-file.js';
import { loadYaml } from '../../config/loading/yaml-module.js';
import { ConfigError } from '../../errors.js';

export const MAPPING_FILE_EXTENSIONS = ['.yaml', '.yml', '.json', '.json5'];

/** A file beside a mapping file holding its fixtures, e.g. github.test.json beside github.yaml. */
export function isFixtureFile(name: string): boolean {
  return name.endsWith('.test.json');
}

/** The mapping files of a folder (not its subfolders), in name order; none when it does not exist. */
export function listMappingFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && MAPPING_FILE_EXTENSIONS.includes(path.extname(e.name).toLowerCase()) && !isFixtureFile(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(dir, name));
}

/** One mapping or a list of them, as raw data (validated by the caller); an empty file holds none. */
export async function readMappingFile(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }
  const format = configFormat(file);
  if (format === 'yaml' && (await loadYaml()).parseDocument(text).contents === null) return [];
  if (!text.trim()) return [];
  const value = await parseStructuredText(text, format, file);
  return Array.isArray(value) ? value : [value];
}
