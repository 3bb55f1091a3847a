import { api, qs } from './api.js';
import { badge, clear, coalesced, debounce, field, h, json, notice, table, timeCell } from './dom.js';
import { pagedList } from './paged.js';

export function mappingsPage(root, { rest, params }) {
  if (rest[0] === 'playground') return playground(root, params.get('id'));
  const agent = h('select', { name: 'agent' }, h('option', { value: '' }, 'any agent'));
  const action = h('select', { name: 'action' }, ['', 'agent', 'wake', 'skip'].map((v) => h('option', { value: v }, v || 'any action')));
  const q = h('input', { type: 'search', name: 'q', placeholder: 'id, path, name, file…', maxlength: 200 });
  q.value = params.get('q') ?? '';
  api.get('/agents').then((p) => agent.append(...p.data.map((a) => h('option', { value: a.id }, a.name ?? a.id)))).catch(() => {});
  // the mappings the last refused reload could not load: above the ones that run, on every page
  let notLoaded = [];
  const list = pagedList(
    async (cursor, limit) => {
      const page = await api.get(`/mappings${qs({ agent: agent.value, action: action.value, q: q.value.trim(), limit, cursor })}`);
      notLoaded = page.notLoaded ?? [];
      return page;
    },
    (rows) => [
      notLoadedView(notLoaded),
      table([
        { label: 'Id', cell: (m) => h('a', { class: 'nowrap', href: `#/mappings/playground?id=${encodeURIComponent(m.id)}` }, m.id) },
        { label: 'Match', cell: (m) => h('pre', { class: 'match' }, m.matchText) },
        { label: 'Action', cell: (m) => (m.definition?.action ?? (m.builtIn ? m.id : 'agent')) },
        { label: 'From', cell: (m) => m.origin },
        { label: 'Signed', cell: (m) => (m.signed ? 'yes' : 'no') },
        { label: 'Retains', cell: (m) => (typeof m.retainPayloads === 'object' ? `${Math.round(m.retainPayloads.sample * 100)}%${m.retainPayloads.days ? `, ${m.retainPayloads.days} d` : ''}` : m.retainPayloads ? 'yes' : 'no') },
        { label: 'Fixtures', cell: (m) => (m.fixtureFile ? h('span', { class: 'fixtures', title: `${m.fixtures.length} of the cases of ${m.fixtureFile}` }, String(m.fixtures.length)) : h('span', { class: 'muted', title: 'No fixture file beside its mapping file' }, '—')) },
      ], rows, { empty: 'No mappings match.', caption: 'Mappings' }),
    ],
  );
  for (const el of [agent, action]) el.addEventListener('change', () => list.reset());
  q.addEventListener('search', () => q.value === '' && list.reset());
  clear(
    root,
    h('h1', {}, 'Mappings'),
    h('p', { class: 'lead' }, 'Every mapping in the order they are tried, and where it comes from. Mappings are configuration: they have no time range.'),
    h('p', {}, h('a', { class: 'button primary', href: '#/mappings/playground' }, 'Open the playground')),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Agent', agent), field('Action', action), field('Search', q), h('button', { type: 'submit' }, 'Filter')),
    list.elements,
  );
  list.reload();
  // a refused or applied reload changes what is loaded
  return { refresh: coalesced(list.reload), kinds: ['trouble'] };
}

/** where a fault is: the file, with the line and column when the fault names a field or a mapping */
const place = (f) => `${f.file}${f.line != null ? `:${f.line}${f.column != null ? `:${f.column}` : ''}` : ''}`;

function notLoadedView(faults) {
  if (!faults.length) return null;
  return h(
    'section',
    { class: 'not-loaded' },
    h('h2', {}, 'Not loaded'),
    notice('The last reload was refused: these mappings do not run (the ones below still do) until their file is fixed.', 'bad'),
    table([
      { label: 'Mapping', cell: (f) => [f.id ?? h('span', { class: 'muted' }, 'the whole file'), ' ', h('span', { class: 'badge bad' }, 'not loaded')] },
      { label: 'Where', cell: (f) => h('code', {}, place(f)) },
      { label: 'Field', cell: (f) => f.field ?? '—' },
      { label: 'Fault', cell: (f) => f.fault },
    ], faults, { caption: 'Mappings not loaded' }),
  );
}

const parse = (text, what) => {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what}: ${error.message}`);
  }
};

/** the draft's text of `expression` (as JSON-escaped in the draft), selected so the operator sees where it is */
function showInDraft(draft, expression) {
  const escaped = JSON.stringify(expression).slice(1, -1);
  const at = draft.value.indexOf(escaped);
  if (at < 0) return;
  draft.focus();
  draft.setSelectionRange(at, at + escaped.length);
}

function faultView(f, draft) {
  const caret = f.expression !== undefined && f.position !== undefined ? `\n${' '.repeat(Math.max(0, f.position - 1))}^` : '';
  return h(
    'li',
    { class: 'fault' },
    h('strong', {}, f.field), ': ', f.message,
    f.expression !== undefined
      ? [
          h('pre', { class: 'code expr', 'aria-label': `expression at position ${f.position ?? '?'}` }, `${f.expression}${caret}`),
          h('button', { type: 'button', class: 'link', onclick: () => showInDraft(draft, f.expression) }, 'Show in the draft'),
        ]
      : null,
  );
}

/** the resolved action and, beside it, the prompt as the model would see it */
function outcomeView(o, draft) {
  const action = h('div', { class: 'pane' }, h('h3', {}, 'Resolved action'));
  const prompt = h('div', { class: 'pane' }, h('h3', {}, 'Wrapped prompt'));
  if (o.type === 'error') {
    action.append(
      h('p', {}, badge(o.status), ' ', o.code, ': ', o.error, o.mappingId ? ` (mapping ${o.mappingId})` : ''),
      ...(o.fault ? [h('ul', { class: 'faults' }, faultView(o.fault, draft))] : o.reason ? [notice(o.reason, 'bad')] : []),
      ...(o.details ? [json(o.details)] : []),
    );
    prompt.append(h('p', { class: 'muted' }, 'None: the request would be refused.'));
  } else if (o.type === 'skip') {
    action.append(h('p', {}, `Skipped by mapping ${o.mappingId} (204).`));
    prompt.append(h('p', { class: 'muted' }, 'None: the request is skipped.'));
  } else {
    action.append(
      h('p', {}, 'Mapping ', h('strong', { id: 'resolved-mapping' }, o.mappingId), ' → ', h('strong', {}, o.action.kind), o.idempotencyKey ? ` · idempotency key ${o.idempotencyKey}` : ''),
      h('pre', { class: 'code', id: 'resolved-action' }, JSON.stringify(o.action, null, 2)),
    );
    if (o.toolCall) {
      prompt.append(
        h('p', { class: 'muted' }, 'A direct call, no model asked. Not made by this dry run:'),
        h('pre', { class: 'code', id: 'resolved-tool-call' }, `${o.toolCall.tool} ${JSON.stringify(o.toolCall.arguments, null, 2)}`),
        h('p', { id: 'tool-call-decision' }, o.toolCall.decision),
      );
    } else if (o.prompt) {
      prompt.append(
        h('p', { class: 'muted' }, o.action.allowUnsafeExternalContent ? 'allowUnsafeExternalContent is on: the model gets the message as it is, without the safety wrapper.' : 'The message inside the external-content safety wrapper (its marker id is new on every run).'),
        h('pre', { class: 'code prompt', id: 'wrapped-prompt' }, o.prompt),
      );
    } else prompt.append(h('p', { class: 'muted' }, 'A wake: the text joins the main session\'s event queue, where the next heartbeat reads it.'));
  }
  return h('div', { class: 'resolved' }, action, prompt);
}

async function playground(root, id) {
  const { data: mappings } = await api.get('/mappings');
  const chosen = mappings.find((m) => m.id === id) ?? mappings.find((m) => !m.builtIn);
  const starter = chosen?.definition ?? { id: 'draft', match: { path: 'example' }, messageTemplate: 'Something happened: {{ payload.title }}' };
  const which = h('select', { name: 'mapping' }, h('option', { value: '' }, 'a new mapping'), mappings.filter((m) => !m.builtIn).map((m) => h('option', { value: m.id, selected: m.id === chosen?.id }, m.id)));
  const draft = h('textarea', { name: 'draft', rows: 14, spellcheck: 'false', class: 'mono' });
  draft.value = JSON.stringify(starter, null, 2);
  const path = h('input', { name: 'path', value: chosen?.path ?? starter.match?.path ?? '' });
  const payload = h('textarea', { name: 'payload', rows: 8, spellcheck: 'false', class: 'mono' });
  payload.value = JSON.stringify(chosen?.fixtures[0]?.payload ?? {}, null, 2);
  const headers = h('textarea', { name: 'headers', rows: 3, spellcheck: 'false', class: 'mono' });
  headers.value = JSON.stringify(chosen?.fixtures[0]?.headers ?? {}, null, 2);
  const samples = h('select', { name: 'sample' }, h('option', { value: '' }, 'pick a sample…'));
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const backtestOut = h('div', {});
  const limit = h('input', { type: 'number', name: 'limit', min: 1, max: 500, value: 20 });

  const sampleData = new Map();
  const loadSamples = async () => {
    sampleData.clear();
    clear(samples, h('option', { value: '' }, 'pick a sample…'));
    const m = mappings.find((x) => x.id === which.value);
    for (const [i, f] of (m?.fixtures ?? []).entries()) {
      sampleData.set(`f${i}`, { payload: f.payload, headers: f.headers ?? {} });
      samples.append(h('option', { value: `f${i}` }, `fixture: ${f.name ?? `#${i + 1}`}`));
    }
    if (!path.value) return;
    const retained = await api.get(`/receipts${qs({ path: path.value, retained: 'true', limit: 20 })}`);
    for (const r of retained.data) {
      const detail = await api.get(`/receipts/${encodeURIComponent(r.id)}`);
      if (!detail.payload) continue;
      let body;
      try {
        body = JSON.parse(detail.payload.body || '{}');
      } catch {
        continue;
      }
      sampleData.set(r.id, { payload: body, headers: detail.payload.headers });
      samples.append(h('option', { value: r.id }, `retained: ${r.receivedAt.replace('T', ' ').slice(0, 19)} (${r.status})`));
    }
  };

  // answers can come back out of order while typing: only the latest request's answer is shown
  let latest = 0;
  const run = async () => {
    const mine = ++latest;
    let body;
    try {
      body = { path: path.value, draft: parse(draft.value, 'draft'), payload: parse(payload.value, 'payload'), headers: parse(headers.value, 'headers') };
    } catch (error) {
      clear(result, notice(error.message, 'bad'));
      return;
    }
    try {
      const answer = await api.post('/mappings/test', body);
      if (mine !== latest) return;
      clear(result, answer.faults.length ? [h('p', {}, 'The draft does not compile:'), h('ul', { class: 'faults' }, answer.faults.map((f) => faultView(f, draft)))] : outcomeView(answer.outcome, draft));
    } catch (error) {
      if (mine === latest) clear(result, notice(error.message, 'bad'));
    }
  };
  const later = debounce(run, 250);
  for (const el of [draft, path, payload, headers]) el.addEventListener('input', later);
  samples.addEventListener('change', () => {
    const s = sampleData.get(samples.value);
    if (!s) return;
    payload.value = JSON.stringify(s.payload, null, 2);
    headers.value = JSON.stringify(s.headers, null, 2);
    run();
  });
  which.addEventListener('change', () => {
    const m = mappings.find((x) => x.id === which.value);
    draft.value = JSON.stringify(m?.definition ?? starter, null, 2);
    path.value = m?.path ?? '';
    loadSamples().catch(() => {});
    run();
  });

  const backtest = async () => {
    try {
      const answer = await api.post('/mappings/backtest', { draft: parse(draft.value, 'draft'), path: path.value || undefined, limit: Number(limit.value) || 20 });
      if (answer.faults.length) return clear(backtestOut, h('ul', { class: 'faults' }, answer.faults.map((f) => faultView(f, draft))));
      const summary = (o) => (o.type === 'action' ? `${o.mappingId} → ${o.action.kind}: ${(o.action.message ?? o.action.text ?? '').slice(0, 80)}` : o.type === 'skip' ? `${o.mappingId} → skip` : `${o.status} ${o.code}`);
      clear(
        backtestOut,
        h('p', {}, `${answer.results.length} retained request(s) of ${answer.path}; ${answer.results.filter((r) => r.changed).length} change.`),
        table([
          { label: 'Received', cell: (r) => h('a', { href: `#/requests/${encodeURIComponent(r.receipt.id)}` }, timeCell(r.receipt.receivedAt)) },
          { label: 'Before', cell: (r) => summary(r.before) },
          { label: 'After (draft)', cell: (r) => summary(r.after) },
          { label: 'Changed', cell: (r) => (r.changed ? badge('changed') : 'same') },
        ], answer.results, { empty: 'No retained requests for this path: set retainPayloads on the mapping.', caption: 'Backtest' }),
      );
    } catch (error) {
      clear(backtestOut, notice(error.message, 'bad'));
    }
  };

  clear(
    root,
    h('p', {}, h('a', { href: '#/mappings' }, '← Mappings')),
    h('h1', {}, 'Playground'),
    h('p', { class: 'lead' }, 'Edit a draft mapping (JSON, as in a mapping file): the resolved action and the prompt as the model would see it update as you type. Nothing is dispatched.'),
    h(
      'div',
      { class: 'playground' },
      h('section', {}, field('Start from', which), field('Draft mapping', draft), field('Hook path', path)),
      h('section', {}, field('Sample', samples), field('Payload (JSON)', payload), field('Headers (JSON)', headers)),
      h('section', { class: 'wide' }, h('h2', {}, 'Resolved'), result),
      h(
        'section',
        { class: 'wide' },
        h('h2', {}, 'Backtest'),
        h('p', {}, 'Runs the draft over the newest retained requests of its path and shows, per request, the outcome now and with the draft.'),
        h('div', { class: 'row' }, field('Requests', limit), h('button', { type: 'button', onclick: backtest }, 'Backtest')),
        backtestOut,
      ),
    ),
  );
  if (chosen) which.value = chosen.id;
  loadSamples().catch(() => {});
  run();
  return {};
}
