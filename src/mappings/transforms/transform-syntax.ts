import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a transform module fails to parse, as `file:line:column: message`. Node's ESM loader
 * reports a SyntaxError without its location, so the file is parsed again with esbuild (the
 * compiler tsx already runs on every .ts file) only once loading has failed.
 */
export async function describeTransformError(error: unknown, file: string | undefined): Promise<string> {
  const message = (error as Error).message;
  const syntax = (error as Error).name === 'SyntaxError' || /Transform failed|Expected|Unexpected/.test(message);
  if (!file || !syntax) return message;
  try {
    const esbuild = await import('esbuild');
    const ext = path.extname(file);
    esbuild.transformSync(fs.readFileSync(file, 'utf8'), { loader: ext === '.ts' ? 'ts' : 'js', sourcefile: file, format: ext === '.cjs' ? 'cjs' : 'esm' });
  } catch (parseError) {
    const first = (parseError as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.[0];
    if (first?.location) return `${first.location.file}:${first.location.line}:${first.location.column + 1}: ${first.text}`;
  }
  return message.split('\n')[0]!;
}
