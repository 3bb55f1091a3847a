import { api } from './api.js';
import { absTime, badge, clear, coalesced, h, idChip, notice, runRef, table, timeCell } from './dom.js';
import { approvalView, argumentsView, toolName } from './tool-calls.js';
import { questionDetail, questionRows } from './questions.js';

/**
 * Tool calls waiting for a person (tools.approvals): approve one, or deny it with a reason (told
 * to the model). The list reloads when runs change (a decision, a run pausing), on any replica.
 */
export function approvalsPage(root, { rest }) {
  if (rest[0]) return approvalDetail(root, rest[0]);
  const status = h('div', {});
  const list = h('div', {});
  const load = async () => {
    const { data: items } = await api.get('/approvals');
    const data = items.filter((a) => a.kind !== 'question');
    const questions = items.filter((a) => a.kind === 'question');
    clear(list, questions.length ? questionRows(questions, status, load) : null, table([
      { label: 'Asked', cell: (a) => timeCell(a.createdAt) },
      { label: 'Tool', cell: (a) => h('a', { href: `#/approvals/${encodeURIComponent(a.id)}` }, toolName(a)) },
      { label: 'Agent', cell: (a) => a.agentId },
      { label: 'Mapping', cell: (a) => a.mappingId ?? '—' },
      { label: 'Run', cell: (a) => (a.run ? [runRef({ ...a.run, agentId: a.agentId }, { agent: false }), ' ', badge(a.run.status)] : [`${a.ownerKind} `, idChip(a.ownerId)]) },
      { label: 'Arguments', cell: (a) => argumentsView(a.arguments) },
      { label: 'Expires', cell: (a) => timeCell(a.approvalExpiresAt) },
      { label: 'Decide', cell: (a) => decideControls(a, status, load) },
    ], data, { empty: 'Nothing waits for approval.', caption: 'Pending approvals' }));
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

/** Approve, and Deny with its reason (required: the model and the record are told why) */
function decideControls(a, status, after) {
  const name = toolName(a);
  const reason = h('input', { name: 'reason', required: true, maxlength: 2000, placeholder: 'why not', 'aria-label': `Reason to deny ${name}` });
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
  return h(
    'div',
    { class: 'decide' },
    h('button', { type: 'button', class: 'primary', 'aria-label': `Approve ${name}`, onclick: () => decide('approve') }, 'Approve'),
    h('form', { class: 'deny', onsubmit: (e) => (e.preventDefault(), decide('deny', { reason: reason.value })) }, reason, h('button', { type: 'submit', class: 'danger', 'aria-label': `Deny ${name}` }, 'Deny')),
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
    clear(
      body,
      h('h1', {}, `Approval: ${toolName(a)}`),
      status,
      pending ? decideControls(a, status, load) : null,
      h(
        'dl',
        { class: 'facts' },
        [
          ['Status', badge(a.status)],
          ['Decision', approvalView(a)],
          ['Agent', a.agentId],
          ['Mapping', a.mappingId ?? '—'],
          ['Run', a.run ? [h('a', { href: `#/runs/${encodeURIComponent(a.run.id)}` }, a.run.name), ' ', badge(a.run.status)] : `${a.ownerKind} ${a.ownerId}`],
          ['Asked', absTime(a.createdAt)],
          ['Expires', absTime(a.approvalExpiresAt)],
        ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      h('h2', {}, 'Arguments (secrets masked)'),
      argumentsView(a.arguments),
    );
  };
  load().catch((e) => clear(body, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['runs'] };
}
