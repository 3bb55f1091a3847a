import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every docs/*.md, relative to the repository */
function docPages(): string[] {
  return ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** the text outside fenced code blocks, line by line (a `# comment` in a shell block is no heading) */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/**
 * GitHub's anchor for a heading: the rendered text (code marks, emphasis and link targets gone)
 * lower-cased, every character that is not a letter, digit, mark, `_`, `-` or space dropped,
 * spaces made hyphens; a repeated slug gets `-1`, `-2`, ... in order.
 */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** every inline and reference link target of a page's prose (inline code spans left out) */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
    const reference = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (reference) targets.push(reference[1]!);
  }
  return targets;
}

/** the dead links of one page: a missing file, or an anchor that no heading of the target page makes */
function deadLinks(page: string, read: (file: string) => string | undefined): string[] {
  const text = read(page)!;
  const dead: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [filePart, anchor] = target.split('#', 2) as [string, string | undefined];
    const file = filePart === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(filePart)));
    const content = read(file);
    if (content === undefined) {
      dead.push(`${page}: ${target} (no file ${file})`);
      continue;
    }
    if (anchor && file.endsWith('.md') && !anchorsOf(content).has(decodeURIComponent(anchor).toLowerCase())) {
      dead.push(`${page}: ${target} (no heading makes #${anchor} in ${file})`);
    }
  }
  return dead;
}

const fromRepository = (file: string): string | undefined => {
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full)) return undefined;
  return fs.statSync(full).isDirectory() ? '' : fs.readFileSync(full, 'utf8');
};

describe('links of README.md and docs/', () => {
  it('point at files that exist and at headings that exist', () => {
    const dead = docPages().flatMap((page) => deadLinks(page, fromRepository));
    expect(dead).toEqual([]);
  });

  it('make anchors as GitHub does', () => {
    expect(headingSlug('`POST /hooks/wake`')).toBe('post-hookswake');
    expect(headingSlug('Gmail: new mail becomes an agent run')).toBe('gmail-new-mail-becomes-an-agent-run');
    expect(headingSlug('Idempotency by delivery id (`idempotencyKey`)')).toBe('idempotency-by-delivery-id-idempotencykey');
    expect(headingSlug('Platform API (`/v1`)')).toBe('platform-api-v1');
    expect(headingSlug('The Responses API: POST /v1/responses, GET|DELETE /v1/responses/:id')).toBe('the-responses-api-post-v1responses-getdelete-v1responsesid');
    expect(headingSlug('Answers in 中文 (Chinese)')).toBe('answers-in-中文-chinese');
    const twice = anchorsOf('# A\n## Errors\ntext\n## Errors\n```sh\n# Errors\n```\n');
    expect([...twice]).toEqual(['a', 'errors', 'errors-1']);
  });

  it('report a missing file, a missing heading, and nothing for a good link', () => {
    const pages: Record<string, string> = {
      'README.md': '# herald\nSee [mappings](docs/mappings.md#fields), [gone](docs/gone.md), [typo](docs/mappings.md#feilds), [here](#herald), `[code](#not-a-link)`.\n',
      'docs/mappings.md': '# Mappings\n## Fields\nBack to [the start](../README.md#herald) and [nowhere](#nowhere).\n',
    };
    const read = (file: string) => pages[file];
    expect(deadLinks('README.md', read)).toEqual([
      'README.md: docs/gone.md (no file docs/gone.md)',
      'README.md: docs/mappings.md#feilds (no heading makes #feilds in docs/mappings.md)',
    ]);
    expect(deadLinks('docs/mappings.md', read)).toEqual(['docs/mappings.md: #nowhere (no heading makes #nowhere in docs/mappings.md)']);
  });
});
