import type { z } from 'zod';

/** keys OpenClaw users bring along that herald refuses where they are, with where they belong */
const KNOWN_REFUSALS: Record<string, string> = {
  accountId: 'a mapping does not take accountId (OpenClaw refuses it there too); a direct /hooks/agent request names the account',
};

/** zod issues as `key.path: message` lines; unknown keys name each key with its full path. */
export function formatIssues(issues: z.core.$ZodIssue[], prefix = ''): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const at = [prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))]
      .filter(Boolean)
      .join('.')
      .replace(/\.\[/g, '[');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${at ? `${at}.` : ''}${key}: ${KNOWN_REFUSALS[key] ?? 'unknown key'}`);
    } else if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length) {
      // report the branch that got furthest, not "invalid input"
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      lines.push(...formatIssues(best, at));
    } else {
      lines.push(`${at || '(root)'}: ${issue.message}`);
    }
  }
  return lines;
}
