import { api } from './api.js';
import { absTime, badge, clear, coalesced, h, idChip, notice, runRef, timeCell } from './dom.js';
import { approvalView } from './tool-calls.js';
import { questionDetail, questionRows } from './questions.js';

/**
 * What waits for a person (tools.approvals): each item a card with what a person needs to decide
 * it alone: what started the run, what the agent said before it asked, why it needs a person, its
 * arguments readable. The list reloads when runs change (a decision, a run pausing), on any replica.
 * Each kind of item has its render function (`kinds`), so another kind is one more entry.
 */
const kinds = {
  approval: approvalCard,
};

const kindOf = (item) => item.kind ?? 'approval';

/** the tool as the model named it (`server__tool`): one word, never wrapped in the middle */
const toolName = (a) => `${a.server}__${a.tool}`;

export function approvalsPage(root, { rest }) {
  if (rest[0]) return approvalDetail(root, rest[0]);
  const status = h('div', {});
  const list = h('div', {});
  const load = async () => {
    const { data: items } = await api.get('/approvals');
    const data = items.filter((a) => a.kind !== 'question');
    const questions = items.filter((a) => a.kind === 'question');
    const labels = distinctLabels(data);
    clear(
      list,
      questions.length ? questionRows(questions, status, load) : null,
      data.length
        ? h('ol', { class: 'asks', 'aria-label': 'Waiting for a person' }, data.map((item, i) => h('li', { 'data-kind': kindOf(item) }, (kinds[kindOf(item)] ?? approvalCard)(item, { status, after: load, label: labels[i] }))))
        : questions.length ? null : h('p', { class: 'empty' }, 'Nothing waits for approval.'),
    );
  };
  clear(
    root,
    h('h1', {}, 'Approvals'),
    h('p', { class: 'lead' }, 'Tool calls that wait for a person before they run. Approving runs the call and resumes its run; denying refuses it, and the model is told why. Secret-looking arguments are masked.'),
    status,
    list,
  );
  load().catch((e) => clear(list, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['runs'] };
}

/** who made a call that is not a run's: an MCP client by its name, version and key, else the owner's kind and id */
const ownerText = (a) => (a.mcpClient ? `MCP client ${a.mcpClient.name} ${a.mcpClient.version} (key ${a.mcpClient.key})` : `${a.ownerKind} ${a.ownerId.slice(0, 8)}`);

/** what each item's buttons are called: its tool and run, and its call's id where two items would share a name */
function distinctLabels(items) {
  const base = items.map((a) => `${toolName(a)} for ${a.run ? `run ${a.run.name} (${a.run.id.slice(0, 8)})` : ownerText(a)}`);
  const seen = new Map();
  for (const label of base) seen.set(label, (seen.get(label) ?? 0) + 1);
  return base.map((label, i) => (seen.get(label) > 1 ? `${label}, call ${items[i].id}` : label));
}

/** one call waiting for approval, as a card: what it is, why it waits, what it would do, and the decision */
function approvalCard(a, { status, after, label }) {
  const id = `ask-${a.id}`;
  return h(
    'article',
    { class: 'ask', 'aria-labelledby': id },
    h('header', { class: 'ask-head' },
      h('h2', { id }, h('a', { href: `#/approvals/${encodeURIComponent(a.id)}` }, toolName(a))),
      a.run ? h('span', { class: 'ask-run' }, 'for run ', runRef({ ...a.run, agentId: a.agentId }), ' ', badge(a.run.status)) : a.mcpClient ? h('span', { class: 'ask-run' }, `from ${ownerText(a)}`) : h('span', { class: 'ask-run' }, `${a.ownerKind} `, idChip(a.ownerId)),
    ),
    factsOf(a, timeCell),
    contextOf(a),
    h('h3', {}, 'Arguments (secrets masked)'),
    argumentsBlock(a.arguments),
    decideControls(a, status, after, label),
  );
}

function factsOf(a, time) {
  return h(
    'dl',
    { class: 'facts' },
    [
      ['Triggered by', a.trigger ? [h('span', { class: 'headline' }, a.trigger.headline || a.trigger.name), ' ', h('span', { class: 'muted' }, `(${a.trigger.name} · mapping ${a.trigger.mappingId})`)] : '—'],
      ['Agent', a.agentId],
      ['Asked', time(a.createdAt)],
      ['Expires', time(a.approvalExpiresAt)],
    ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

/** the agent's words before the call, and why a person decides it */
function contextOf(a) {
  return [
    h('h3', {}, 'The agent said'),
    a.agentSaid ? h('blockquote', { class: 'said' }, a.agentSaid) : h('p', { class: 'muted' }, 'Nothing: it asked for the call without a word.'),
    h('h3', {}, 'Why a person decides'),
    a.why?.length ? h('ul', { class: 'why' }, a.why.map((w) => h('li', {}, w))) : h('p', { class: 'muted' }, 'The config asked for a person when the call was made.'),
  ];
}

/** the arguments as indented JSON, wrapped only between words */
function argumentsBlock(args) {
  return h('pre', { class: 'code args' }, typeof args === 'string' ? args : JSON.stringify(args, null, 2));
}

/** Approve, and Deny with its reason (required: the model and the record are told why); `label` names the item in each control */
function decideControls(a, status, after, label) {
  const name = toolName(a);
  const missing = h('p', { class: 'field-error', id: `reason-${a.id}`, role: 'alert', hidden: true }, 'Write a reason to deny: it is recorded and the model is told it.');
  const reason = h('input', { name: 'reason', maxlength: 2000, placeholder: 'why not', 'aria-label': `Reason to deny ${label}`, 'aria-describedby': missing.id, oninput: () => {
    missing.hidden = true;
    reason.removeAttribute('aria-invalid');
  } });
  const decide = async (decision, body) => {
    try {
      const decided = await api.post(`/approvals/${encodeURIComponent(a.id)}/${decision}`, body);
      const run = decided.run ? ` Run ${decided.run.name} is ${decided.run.status}.` : '';
      clear(status, notice(`${decision === 'approve' ? 'Approved' : 'Denied'} ${name}.${run}`, 'good'));
    } catch (error) {
      clear(status, notice(error.message, 'bad'));
    }
    await after();
  };
  const deny = (e) => {
    e.preventDefault();
    if (!reason.value.trim()) {
      // said on the page, beside the field, not only in the browser's own bubble
      missing.hidden = false;
      reason.setAttribute('aria-invalid', 'true');
      reason.focus();
      return;
    }
    decide('deny', { reason: reason.value });
  };
  return h(
    'div',
    { class: 'decide' },
    h('button', { type: 'button', class: 'primary', 'aria-label': `Approve ${label}`, onclick: () => decide('approve') }, 'Approve'),
    h('form', { class: 'deny', novalidate: true, onsubmit: deny }, reason, h('button', { type: 'submit', class: 'danger', 'aria-label': `Deny ${label}` }, 'Deny')),
    missing,
  );
}

/** one call (the link in an approval's notice): pending with its controls, or how it was decided */
function approvalDetail(root, id) {
  const body = h('div', {});
  clear(root, h('p', {}, h('a', { href: '#/approvals' }, '← Approvals')), body);
  const load = async () => {
    if (id.startsWith('q_')) return questionDetail(body, await api.get(`/questions/${encodeURIComponent(id)}`), load);
    const a = await api.get(`/approvals/${encodeURIComponent(id)}`);
    const status = h('div', {});
    const pending = a.status === 'waiting_approval' && !a.approval;
    const [label] = distinctLabels([a]);
    clear(
      body,
      h('h1', {}, `Approval: ${toolName(a)}`),
      status,
      pending ? decideControls(a, status, load, label) : null,
      h(
        'dl',
        { class: 'facts' },
        [
          ['Status', badge(a.status)],
          ['Decision', approvalView(a)],
          a.mcpClient ? ['Client', `${a.mcpClient.name} ${a.mcpClient.version} (key ${a.mcpClient.key}, session ${a.ownerId})`] : ['Run', a.run ? [h('a', { href: `#/runs/${encodeURIComponent(a.run.id)}` }, a.run.name), ' ', badge(a.run.status)] : `${a.ownerKind} ${a.ownerId}`],
        ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      factsOf(a, absTime),
      contextOf(a),
      h('h2', {}, 'Arguments (secrets masked)'),
      argumentsBlock(a.arguments),
    );
  };
  load().catch((e) => clear(body, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['runs'] };
}
