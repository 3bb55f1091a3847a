import type { EvalCase } from './eval-case.js';
import type { EvalSummary } from './eval-tally.js';

const short = (text: string | null | undefined, max = 120) => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const who = (c: EvalCase) => (c.source === 'fixture' ? `${c.id}${c.label ? ` (${c.label})` : ''}` : `${c.id} /${c.path}`);

/** one line per request, as the terminal shows it while the eval runs */
export function caseLine(c: EvalCase): string {
  const parts: string[] = [];
  const { recorded, candidate } = c;
  if (c.changes.includes('mapping')) parts.push(`mapping ${recorded?.outcome}${recorded?.mappingId ? `(${recorded.mappingId})` : ''} -> ${candidate.outcome}${candidate.mappingId ? `(${candidate.mappingId})` : ''}`);
  if (c.changes.includes('message')) parts.push('message changed');
  const d = c.toolCallDiff;
  if (c.changes.includes('tool-calls')) parts.push(`tool calls +${d.added.length} -${d.removed.length} ~${d.changed.length}`);
  if (c.changes.includes('reply')) parts.push('reply changed');
  if (c.changes.includes('failed')) parts.push(`FAILED: ${short(candidate.error ?? candidate.runError, 80)}`);
  if (c.intended.length) parts.push(`${c.intended.length} write(s) not executed`);
  if (c.expectations && !c.expectations.ok) parts.push(`EXPECTATIONS: ${c.expectations.failures.join('; ')}`);
  if (c.repeats && c.repeats.distinctReplies > 1) parts.push(`unstable: ${c.repeats.distinctReplies} replies in ${c.repeats.runs}`);
  if (c.judge) parts.push('score' in c.judge ? `judge ${c.judge.score}/5 ${c.judge.verdict}` : `judge failed: ${short(c.judge.error, 60)}`);
  return `${parts.length ? 'CHANGED ' : 'same    '} ${who(c)}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** the summary as the terminal prints it at the end */
export function summaryText(s: EvalSummary): string[] {
  const c = s.changed;
  return [
    `${s.requests} requests replayed (${s.fromRecording} recorded, ${s.fromFixtures} fixtures): ${s.unchanged} unchanged`,
    `changed: mapping ${c.mapping}, message ${c.message}, tool calls ${c['tool-calls']}, reply ${c.reply}; newly failing ${c.failed}`,
    `tools: ${s.intendedWrites} write(s) intended and not executed, ${s.liveReads} live read(s), ${s.cutResults} recorded result(s) that had been cut`,
    ...(s.expectations.checked ? [`expectations: ${s.expectations.checked - s.expectations.failed} of ${s.expectations.checked} met`] : []),
    ...(s.judged.count ? [`judge: ${s.judged.count} scored, mean ${s.judged.meanScore}, ${s.judged.worse} worse`] : []),
    ...(s.unstable ? [`unstable: ${s.unstable} request(s) gave different replies when repeated`] : []),
    `this eval's own model use: ${s.usage.promptTokens} prompt + ${s.usage.completionTokens} completion tokens, cost ${s.usage.cost.toFixed(4)} (counted against no budget)`,
  ];
}

const cell = (text: string | null | undefined) => short(text, 300).replace(/\|/g, '\\|') || '—';

/** the report as Markdown, for a pull request: the summary, then each changed request side by side */
export function markdownReport(s: EvalSummary, cases: readonly EvalCase[], failed: readonly string[]): string {
  const c = s.changed;
  const lines = [
    `## herald eval: ${failed.length ? `failed (${failed.join(', ')})` : 'passed'}`,
    '',
    '| requests | unchanged | mapping | message | tool calls | reply | newly failing | writes not executed |',
    '|---|---|---|---|---|---|---|---|',
    `| ${s.requests} | ${s.unchanged} | ${c.mapping} | ${c.message} | ${c['tool-calls']} | ${c.reply} | ${c.failed} | ${s.intendedWrites} |`,
    '',
    ...(s.expectations.checked ? [`Expectations: ${s.expectations.checked - s.expectations.failed} of ${s.expectations.checked} met.`, ''] : []),
    ...(s.judged.count ? [`Judge: ${s.judged.count} scored, mean ${s.judged.meanScore}, ${s.judged.worse} worse.`, ''] : []),
    `Model use of this eval: ${s.usage.promptTokens} prompt + ${s.usage.completionTokens} completion tokens (cost ${s.usage.cost.toFixed(4)}).`,
  ];
  for (const item of cases) {
    if (!item.changes.length && item.expectations?.ok !== false) continue;
    lines.push('', `### ${who(item)}`, '', `Changed: ${item.changes.join(', ') || 'nothing'}${item.expectations && !item.expectations.ok ? `; expectations not met: ${item.expectations.failures.join('; ')}` : ''}`, '');
    lines.push('| | recorded | candidate |', '|---|---|---|');
    const r = item.recorded;
    const k = item.candidate;
    lines.push(`| mapping | ${cell(r ? `${r.outcome} ${r.mappingId ?? ''}` : '')} | ${cell(`${k.outcome} ${k.mappingId ?? ''}`)} |`);
    lines.push(`| tool calls | ${cell(r?.toolCalls.map((t) => `${t.tool} ${t.arguments}`).join('; '))} | ${cell(k.toolCalls.map((t) => `${t.tool} ${t.arguments}${t.by ? ` (${t.by})` : ''}`).join('; '))} |`);
    lines.push(`| reply | ${cell(r?.reply ?? r?.runError)} | ${cell(k.reply ?? k.runError ?? k.error)} |`);
    if (item.judge) lines.push(`| judge | | ${'score' in item.judge ? `${item.judge.score}/5 ${item.judge.verdict}: ${cell(item.judge.reason)}` : cell(item.judge.error)} |`);
  }
  return `${lines.join('\n')}\n`;
}
