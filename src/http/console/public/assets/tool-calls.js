import { absTime, badge, h, json } from './dom.js';
import { resultContentView } from './tool-result-content.js';

// A run's tool calls as the console shows them: its model turns in order, each with the calls
// the model asked for (tool, server, status, duration, approval and who gave it). Arguments come
// masked from the admin API; results are folded away (they can be long, and are what the model read).

export const toolName = (c) => `${c.server} / ${c.tool}`;

function took(ms) {
  if (ms === null || ms === undefined) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** who decided, when and why; or until when it waits */
export function approvalView(c) {
  if (c.approval) {
    const { decision, by, at, reason } = c.approval;
    const what = decision === 'expired' ? 'expired: nobody decided in time' : `${decision} by ${by}`;
    return h('span', { class: 'approval' }, what, ' ', absTime(at), reason ? h('span', {}, ': ', h('q', {}, reason)) : null);
  }
  if (c.approvalRequired && c.status === 'waiting_approval') {
    return h('span', { class: 'approval' }, 'waits for a person until ', absTime(c.approvalExpiresAt), ' · ', h('a', { href: `#/approvals/${encodeURIComponent(c.id)}` }, 'decide'));
  }
  return c.approvalRequired ? 'needed approval' : 'no approval needed';
}

export const argumentsView = (args) => (typeof args === 'string' ? h('pre', { class: 'code' }, args) : json(args));

function callItem(c, resultOpen = false) {
  return h(
    'li',
    { class: 'call', 'data-tool-call': c.id },
    h('div', { class: 'call-head' }, h('strong', {}, c.tool), h('span', { class: 'muted' }, ` on ${c.server} `), badge(c.status), took(c.durationMs) ? h('span', { class: 'muted' }, ` · ${took(c.durationMs)}`) : null, c.readOnly ? h('span', { class: 'tag' }, 'read-only') : null),
    h('div', { class: 'call-approval' }, approvalView(c)),
    h('details', { open: true }, h('summary', {}, 'Arguments (secrets masked)'), argumentsView(c.arguments)),
    c.error ? h('p', { class: 'bad-text' }, c.error) : null,
    c.result !== null ? h('details', { open: resultOpen }, h('summary', {}, `Result (${c.result.length} characters)`), h('pre', { class: 'code' }, c.result)) : null,
    resultContentView(c.content),
  );
}

/** the timeline: "Model turn 1" with its calls, "Model turn 2" with its calls, … then the answer */
export function toolTimeline(calls, answered) {
  if (!calls.length) return h('p', { class: 'muted' }, 'No tool calls.');
  const turns = new Map();
  for (const c of calls) turns.set(c.turn, [...(turns.get(c.turn) ?? []), c]);
  return h(
    'ol',
    { class: 'timeline' },
    [...turns.entries()].map(([turn, list]) =>
      h('li', { class: 'turn' }, h('div', { class: 'turn-head' }, h('span', { class: 'role' }, `Model turn ${turn + 1}`), ' asked for ', `${list.length} tool call${list.length === 1 ? '' : 's'}`, ' ', absTime(list[0].createdAt)), h('ol', { class: 'calls' }, list.map(callItem))),
    ),
    answered ? h('li', { class: 'turn' }, h('div', { class: 'turn-head' }, h('span', { class: 'role' }, `Model turn ${Math.max(...turns.keys()) + 2}`), ' answered (the reply below)')) : null,
  );
}

/** a run of kind `tool` (a mapping's or a schedule's direct call): no model turn, its attempts with their arguments and results in the open */
export function directCallView(calls) {
  if (!calls.length) return h('p', { class: 'muted' }, 'Not called yet.');
  return h('ol', { class: 'calls direct' }, calls.map((c) => callItem(c, true)));
}

/** a run's tool calls in a few words (the Runs list's Tools column): how many, and those a person or trouble stopped */
export function toolCountsText(tools) {
  if (!tools || !tools.made) return '—';
  const parts = [`${tools.made} call${tools.made === 1 ? '' : 's'}`];
  if (tools.waiting) parts.push(`${tools.waiting} waiting`);
  if (tools.refused) parts.push(`${tools.refused} refused`);
  if (tools.failed) parts.push(`${tools.failed} failed`);
  return parts.join(' · ');
}

/** the Tools column's cell: trouble (waiting, refused, failed) marked so it stands out from calls that ran */
export function toolCountsCell(tools) {
  const text = toolCountsText(tools);
  const trouble = tools && (tools.waiting || tools.refused || tools.failed);
  return trouble ? h('span', { class: 'badge bad' }, text) : text;
}

/** the run page's word on tools.maxToolCalls: reached (the model was told to answer without tools), or how many of it were used */
export function toolLimitText(limit, tools) {
  if (!limit) return '—';
  return limit.reached
    ? `stopped at the limit of ${limit.max} tool calls (tools.maxToolCalls): the model was told to answer without tools`
    : `${tools?.made ?? 0} of at most ${limit.max} (tools.maxToolCalls)`;
}
