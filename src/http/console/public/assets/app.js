import { api, setCsrf, setTraceLinks } from './api.js';
import { clear, field, h, notice } from './dom.js';
import { agentsPage } from './page-agents.js';
import { alertsPage } from './page-alerts.js';
import { approvalsPage } from './page-approvals.js';
import { connectPage } from './page-connect.js';
import { deliveriesPage } from './page-deliveries.js';
import { evalsPage } from './page-evals.js';
import { filesPage } from './page-files.js';
import { keysPage } from './page-keys.js';
import { knowledgePage } from './page-knowledge.js';
import { mappingsPage } from './page-mappings.js';
import { overviewPage } from './page-overview.js';
import { requestsPage } from './page-requests.js';
import { runsPage } from './page-runs.js';
import { schedulesPage } from './page-schedules.js';
import { sessionPage } from './page-session.js';
import { sessionsPage } from './page-sessions.js';
import { responsesPage } from './page-responses.js';
import { usagePage } from './page-usage.js';

/** route -> page; a page is `(root, params) => { refresh?(), kinds?: the changes it shows, overview?(data), stop?() }` */
const pages = [
  { id: 'overview', label: 'Overview', page: overviewPage },
  { id: 'requests', label: 'Requests', page: requestsPage },
  { id: 'runs', label: 'Runs', page: runsPage },
  { id: 'approvals', label: 'Approvals', page: approvalsPage },
  { id: 'schedules', label: 'Schedules', page: schedulesPage },
  { id: 'session', label: 'Main session', page: sessionPage },
  { id: 'sessions', label: 'Sessions', page: sessionsPage },
  { id: 'responses', label: 'Responses', page: responsesPage },
  { id: 'deliveries', label: 'Deliveries', page: deliveriesPage },
  { id: 'alerts', label: 'Alerts', page: alertsPage },
  { id: 'usage', label: 'Usage', page: usagePage },
  { id: 'mappings', label: 'Mappings', page: mappingsPage },
  { id: 'evals', label: 'Try a change', page: evalsPage },
  { id: 'knowledge', label: 'Knowledge', page: knowledgePage },
  { id: 'files', label: 'Files', page: filesPage },
  { id: 'keys', label: 'API keys', page: keysPage },
  { id: 'agents', label: 'Agents', page: agentsPage },
  // reached from an MCP client's sign-in (herald's OAuth), never from the menu
  { id: 'connect', label: 'Connect an MCP client', page: connectPage, hidden: true },
];

const app = document.getElementById('app');
let current = null;
let stream = null;
let lastOverview = null;

function parseHash() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [id = 'overview', ...rest] = path.split('/');
  return { id, rest: rest.map(decodeURIComponent), params: new URLSearchParams(query) };
}

function shell() {
  const nav = h(
    'nav',
    { class: 'nav', 'aria-label': 'Console' },
    h('ul', {}, pages.filter((p) => !p.hidden).map((p) => h('li', {}, h('a', { href: `#/${p.id}`, 'data-page': p.id }, p.label)))),
  );
  const live = h('span', { class: 'live', id: 'live', title: 'Live updates' }, 'connecting');
  const signOut = h('button', { type: 'button', class: 'link', onclick: async () => { await api.signOut().catch(() => {}); showSignIn(); } }, 'Sign out');
  const menu = h('button', { type: 'button', class: 'menu', 'aria-expanded': 'false', 'aria-controls': 'nav', onclick: (e) => {
    const open = document.body.classList.toggle('nav-open');
    e.currentTarget.setAttribute('aria-expanded', String(open));
  } }, 'Menu');
  nav.id = 'nav';
  clear(
    app,
    h('header', { class: 'top' }, menu, h('strong', { class: 'brand' }, 'herald'), live, signOut),
    h('div', { class: 'layout' }, nav, h('main', { id: 'main', tabindex: '-1' })),
  );
}

/** `moved`: the operator went to another page (a link, the keyboard): focus follows to its content */
function route(moved = false) {
  const main = document.getElementById('main');
  if (!main) return;
  const { id, rest, params } = parseHash();
  const entry = pages.find((p) => p.id === id) ?? pages[0];
  for (const a of document.querySelectorAll('.nav a')) {
    if (a.dataset.page === entry.id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.body.classList.remove('nav-open');
  current?.stop?.();
  clear(main);
  document.title = `${entry.label} · herald`;
  current = entry.page(main, { rest, params }) ?? {};
  if (lastOverview) current.overview?.(lastOverview);
  if (moved) main.focus();
}

function connect() {
  stream?.close();
  stream = new EventSource('/admin/stream');
  const live = () => document.getElementById('live');
  let dropped = false;
  stream.addEventListener('open', () => {
    if (live()) (live().textContent = 'live'), live().classList.add('on');
    // back after a drop: what changed meanwhile was never told, so the page reloads its rows
    if (dropped) current?.refresh?.();
    dropped = false;
  });
  stream.addEventListener('error', () => {
    dropped = true;
    if (live()) (live().textContent = 'reconnecting'), live().classList.remove('on');
  });
  stream.addEventListener('overview', (e) => {
    lastOverview = JSON.parse(e.data);
    current?.overview?.(lastOverview);
  });
  // the server pushes what changed (the change kinds of GET /admin/stream): a page showing any of it reloads its rows
  stream.addEventListener('change', (e) => {
    const { kinds } = JSON.parse(e.data);
    if (current?.refresh && (!current.kinds || kinds.some((k) => current.kinds.includes(k)))) current.refresh();
  });
}

function showSignIn(message) {
  stream?.close();
  current?.stop?.();
  current = null;
  const token = h('input', { type: 'password', name: 'token', autocomplete: 'current-password', required: true });
  const status = h('div', { class: 'status' });
  const form = h(
    'form',
    { class: 'signin', onsubmit: async (e) => {
      e.preventDefault();
      try {
        const session = await api.signIn(token.value);
        token.value = '';
        setCsrf(session.csrf);
        setTraceLinks(session.traceLinkTemplate);
        start();
      } catch (error) {
        clear(status, notice(error.status === 429 ? 'Too many attempts: wait a minute.' : 'That is not the gateway token.', 'bad'));
        token.select();
      }
    } },
    h('h1', {}, 'herald console'),
    h('p', {}, 'Sign in with the gateway token (gateway.auth.token).'),
    field('Gateway token', token),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    status,
    message ? notice(message) : null,
  );
  clear(app, h('main', { id: 'main', class: 'center' }, form));
  token.focus();
}

function start() {
  shell();
  if (!location.hash) location.hash = '#/overview';
  route();
  connect();
}

window.addEventListener('hashchange', () => route(true));
window.addEventListener('herald:signed-out', () => showSignIn('Your session ended: sign in again.'));

api
  .session()
  .then((session) => {
    if (!session.signedIn) return showSignIn();
    setCsrf(session.csrf);
    setTraceLinks(session.traceLinkTemplate);
    start();
  })
  .catch(() => showSignIn());
