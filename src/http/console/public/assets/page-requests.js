import { api, qs, traceUrl } from './api.js';
import { pagedList } from './paged.js';
import { absTime, badge, clear, coalesced, field, h, idChip, json, notice, runRef, table, timeCell, traceCell } from './dom.js';
import { rangeAndSearch } from './list-filters.js';

const outcomes = ['', 'agent', 'wake', 'skip', 'error', 'idempotent_replay'];

export function requestsPage(root, { rest, params }) {
  if (rest[0]) return requestDetail(root, rest[0]);
  const result = h('select', { name: 'result' }, ['', 'ok', 'error'].map((v) => h('option', { value: v }, v || 'any result')));
  const outcome = h('select', { name: 'outcome' }, outcomes.map((v) => h('option', { value: v }, v || 'any outcome')));
  const mapping = h('select', { name: 'mapping' }, h('option', { value: '' }, 'any mapping'));
  const failed = h('input', { type: 'checkbox', name: 'failed' });
  failed.checked = params.get('failed') === 'true';
  api.get('/mappings?limit=1000').then((p) => mapping.append(...p.data.map((m) => h('option', { value: m.id }, m.id)))).catch(() => {});
  const range = rangeAndSearch({ params, placeholder: 'id, path, mapping, run…', onChange: () => list.reset() });
  result.value = params.get('result') ?? '';
  const list = pagedList(
    (cursor, limit) => api.get(`/receipts${qs({ result: result.value, outcome: outcome.value, mapping: mapping.value, failed: failed.checked ? 'true' : undefined, ...range.values(), limit, cursor })}`),
    (rows) =>
      table(
        [
          { label: 'Request', cell: (r) => h('span', { class: 'ref' }, h('a', { href: `#/requests/${encodeURIComponent(r.id)}` }, h('code', {}, r.path)), idChip(r.id)) },
          { label: 'Received', cell: (r) => timeCell(r.receivedAt) },
          { label: 'Mapping', cell: (r) => r.mappingId ?? '—' },
          { label: 'Status', cell: (r) => badge(r.status) },
          { label: 'Outcome', cell: (r) => [r.outcome, r.failure ? [' ', failureBadge(r.failure)] : null, r.replayOf ? h('span', { class: 'tag' }, 'replay') : null, r.retainedUntil ? h('span', { class: 'tag' }, 'retained') : null] },
          { label: 'Run / event', cell: (r) => (r.run ? [runRef(r.run), ' ', badge(r.run.status)] : r.runId ? h('a', { href: `#/runs/${encodeURIComponent(r.runId)}` }, idChip(r.runId)) : r.eventId != null ? `event ${r.eventId}` : '—') },
          { label: 'Auth', cell: (r) => r.authMethod },
          { label: 'Bytes', cell: (r) => String(r.bodyBytes) },
          { label: 'ms', cell: (r) => String(r.latencyMs) },
        ],
        rows,
        { empty: 'No webhook requests yet.', caption: 'Webhook requests' },
      ),
  );
  const filters = h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Result', result), field('Outcome', outcome), field('Mapping', mapping), field('Mapping failed', failed), range.fields, h('button', { type: 'submit' }, 'Filter'));
  for (const el of [result, outcome, mapping, failed]) el.addEventListener('change', () => list.reset());
  clear(root, h('h1', {}, 'Requests'), h('p', { class: 'lead' }, 'A receipt for every webhook request, live. Bodies are kept only for mappings that retain them.'), filters, list.elements);
  list.reload();
  return { refresh: coalesced(list.reload), kinds: ['receipts'] };
}

/** where a request's mapping failed, on its row: the stage and the mapping; the cause on hover (the request's page tells it all) */
function failureBadge(f) {
  return h('span', { class: 'badge bad failure', title: f.cause }, `${f.stage} failed · ${f.mappingId}`);
}

function requestDetail(root, id) {
  const body = h('div', {});
  // outside the rows a reload redraws: what a replay answered stays shown
  const status = h('div', {});
  clear(root, h('p', {}, h('a', { href: '#/requests' }, '← Requests')), h('h1', {}, 'Request'), body);
  const load = async () => {
    const r = await api.get(`/receipts/${encodeURIComponent(id)}`);
    // its run and that run's delivery, when the request started one
    const [run, deliveries] = r.runId
      ? await Promise.all([api.get(`/runs/${encodeURIComponent(r.runId)}`).catch(() => null), api.get(`/deliveries${qs({ run: r.runId })}`).then((p) => p.data, () => [])])
      : [null, []];
    const replay = r.payload
      ? h('button', { type: 'button', class: 'primary', onclick: async () => {
          try {
            const replayed = await api.post(`/receipts/${encodeURIComponent(id)}/replay`);
            const again = replayed.failure ? ` · ${replayed.failure.stage} failed again: ${replayed.failure.cause}` : '';
            clear(status, notice(`Replayed: ${replayed.status} ${replayed.outcome}${again}`, replayed.failure ? 'bad' : 'good'), replayed.runId ? h('a', { href: `#/runs/${encodeURIComponent(replayed.runId)}` }, 'Open its run') : null);
            load();
          } catch (error) {
            clear(status, notice(error.message, 'bad'));
          }
        } }, 'Replay')
      : h('p', { class: 'muted' }, 'The payload is not retained: this request cannot be replayed.');
    clear(
      body,
      h(
        'dl',
        { class: 'facts' },
        [
          ['Received', absTime(r.receivedAt)],
          ['Path', h('code', {}, r.path)],
          ['Mapping', r.mappingId ?? '—'],
          ['Status', badge(r.status)],
          ['Outcome', r.outcome],
          ['Error', r.errorCode ?? '—'],
          ['Run', r.runId ? [h('a', { href: `#/runs/${encodeURIComponent(r.runId)}` }, r.runId), ' ', run ? badge(run.status) : null] : '—'],
          ['Delivery', deliveries.length ? deliveries.map((d) => h('span', {}, h('a', { href: `#/deliveries?run=${encodeURIComponent(d.runId)}` }, d.channel ?? 'no channel'), ' ', badge(d.status), ` ${d.attempts} attempt(s)`, d.lastError && d.status !== 'delivered' ? ` · ${d.lastError}` : '')) : '—'],
          ['Event', r.eventId ?? '—'],
          ['Idempotency key', r.idempotencyKey ?? '—'],
          ['Auth', `${r.authMethod}${r.signature ? ` (signature: ${r.signature})` : ''}`],
          ['Client', r.clientAddress ?? '—'],
          ['Body', `${r.bodyBytes} bytes`],
          ['Latency', `${r.latencyMs} ms`],
          ['Request id', h('code', {}, r.requestId)],
          ['Trace', traceCell(r.traceId, traceUrl(r.traceId))],
          ['Replay of', r.replayOf ? h('a', { href: `#/requests/${encodeURIComponent(r.replayOf)}` }, r.replayOf) : '—'],
          ['Retained until', r.retainedUntil ? absTime(r.retainedUntil) : '—'],
        ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      r.failure ? [h('h2', {}, 'Mapping failed'), h('dl', { class: 'facts failure' }, [
        ['Stage', r.failure.stage],
        ['Mapping', r.failure.mappingId],
        ['Cause', r.failure.cause],
        ['At', r.failure.at ? h('code', {}, r.failure.at) : '—'],
      ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
      // a forEach mapping that failed for some items (the others ran): each of them
      r.failure.items?.length ? table([
        { label: 'Item', cell: (i) => String(i.index) },
        { label: 'Stage', cell: (i) => i.stage },
        { label: 'Cause', cell: (i) => i.cause },
        { label: 'At', cell: (i) => (i.at ? h('code', {}, i.at) : '—') },
      ], r.failure.items, { caption: 'Items that failed' }) : null] : null,
      replay,
      status,
      r.payload ? [h('h2', {}, 'Payload'), json(safeParse(r.payload.body)), h('h2', {}, 'Headers (secrets removed)'), json(r.payload.headers)] : null,
      r.replays.length ? [h('h2', {}, 'Replays'), h('ul', {}, r.replays.map((x) => h('li', {}, h('a', { href: `#/requests/${encodeURIComponent(x.id)}` }, `${x.receivedAt} → ${x.status}`))))] : null,
    );
  };
  load().catch((e) => clear(body, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['receipts', 'runs', 'deliveries'] };
}

function safeParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
