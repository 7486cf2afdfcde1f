import {
  gatewayToken,
  GraphQLRequestError,
  onSessionEnded,
  request,
  setGatewayToken,
  subscribe,
} from './client.js';
import { badge, failure, h, show, when } from './dom.js';
import { catalogForm, workflowForm } from './forms.js';
import {
  CancelRun,
  EntitledItems,
  FollowRequest,
  FollowRun,
  MyRequests,
  RecentRuns,
  RequestItem,
  RequestResources,
  RunAction,
  RunLogs,
  RunWorkflow,
  SignIn,
  SignOut,
  Viewer,
  WorkflowForm,
  Workflows,
} from './operations.js';

/** @typedef {import('./generated/graphql.ts').PortalEntitledItemsQuery} EntitledItemsQuery */
/** @typedef {NonNullable<EntitledItemsQuery['entitledCatalogItems']>['nodes'][number]} EntitledItem */
/** @typedef {NonNullable<NonNullable<import('./generated/graphql.ts').PortalRequestResourcesQuery['catalogRequest']>['resources']>[number]} Resource */
/** @typedef {NonNullable<import('./generated/graphql.ts').PortalViewerQuery['viewer']>} SignedIn */
/** @typedef {import('./generated/graphql.ts').PortalFollowRequestSubscription['catalogRequest']} FollowedRequest */
/** @typedef {NonNullable<NonNullable<import('./generated/graphql.ts').PortalRecentRunsQuery['workflow']>['executions']>} Runs */

/** Subscriptions and pending answers of the screen on view; a new screen ends them. */
let screen = new AbortController();

/**
 * The progress panel of each resource card on view, by resource id: a card
 * drawn again (its resource changed) keeps the panel of the action it runs.
 * @type {Map<string, HTMLElement>}
 */
const actionProgress = new Map();

function newScreen() {
  screen.abort();
  screen = new AbortController();
  actionProgress.clear();
  return screen.signal;
}

/**
 * Draws the answer of the latest call only: a list read again after each
 * action may get its answers out of order.
 */
function latestOnly() {
  let calls = 0;
  return () => {
    const call = ++calls;
    return () => call === calls;
  };
}

// ---------------------------------------------------------------- who is calling

/**
 * The person signed in (or the gateway token in use); null on the sign-in form.
 * @type {SignedIn | null}
 */
let viewer = null;

/**
 * Fires when the session's time is up.
 * @type {ReturnType<typeof setTimeout> | undefined}
 */
let expiry;

const sessionEnded = 'Your session has ended: sign in again.';

/**
 * True when the caller holds `scope`: what it does not allow is not offered.
 * @param {'read' | 'workflow:run' | 'catalog:request'} scope
 */
function may(scope) {
  return viewer !== null && viewer.scopes.includes(scope);
}

/** @param {string} id */
function input(id) {
  return /** @type {HTMLInputElement} */ (document.getElementById(id));
}

/**
 * Leaves whatever was on view for the sign-in form: nothing of the catalog or
 * the workflows stays in the page.
 * @param {{ notice?: string, alert?: string }} [message]
 */
function showSignIn(message = {}) {
  newScreen();
  viewer = null;
  clearTimeout(expiry);
  // a gateway token that got us here is not taken: only a session (or a new token) goes on
  setGatewayToken('');
  for (const id of [
    'account',
    'catalog-items',
    'catalog-requests',
    'catalog-detail',
    'catalog-progress',
    'catalog-resources',
    'workflow-list',
    'workflow-detail',
    'workflow-run',
    'token-message',
  ]) {
    show(id);
  }
  document.getElementById('starting')?.remove();
  for (const element of document.querySelectorAll('nav, main > section')) {
    element.toggleAttribute('hidden', element.id !== 'sign-in');
  }
  show(
    'sign-in-message',
    message.alert === undefined ? null : h('p', { class: 'error', role: 'alert' }, message.alert),
    message.notice === undefined
      ? null
      : h('p', { class: 'notice', role: 'status' }, message.notice),
  );
  const password = input('password');
  password.value = '';
  if (input('username').value === '') input('username').focus();
  else password.focus();
}

/**
 * Keeps `who` as the caller, and asks again once their session's time is up.
 * @param {SignedIn} who
 */
function hold(who) {
  viewer = who;
  clearTimeout(expiry);
  if (who.expiresAt === null) return;
  // setTimeout holds at most 2^31 - 1 ms: a later expiry is asked about again then; an
  // expiry already past by this browser's clock (a clock ahead of the gateway's) every minute
  const left = Date.parse(who.expiresAt) - Date.now();
  const wait = Math.min(left > 0 ? left + 1000 : 60_000, 2 ** 31 - 1);
  expiry = setTimeout(() => void confirmSession(), wait);
}

/**
 * Shows the portal as `who` may use it.
 * @param {SignedIn} who
 */
function enter(who) {
  hold(who);
  const signOutButton = h('button', { type: 'button', id: 'sign-out' }, 'Sign out');
  signOutButton.addEventListener('click', () => void signOut(signOutButton));
  show(
    'account',
    h(
      'span',
      { class: 'viewer' },
      who.via === 'TOKEN' ? 'Token ' : 'Signed in as ',
      h('strong', { id: 'viewer-name' }, who.name),
      who.tenant === null ? null : h('span', { id: 'viewer-tenant', class: 'tenant' }, who.tenant),
    ),
    signOutButton,
  );
  document.getElementById('starting')?.remove();
  document.getElementById('sign-in')?.setAttribute('hidden', '');
  document.querySelector('nav')?.removeAttribute('hidden');
  show('sign-in-message');
  openTab(location.hash === '#workflows' ? 'workflows' : 'catalog');
}

/**
 * Asks the gateway who is calling; back to the sign-in form when it is no
 * longer the person on view (the session ended, or was replaced in another tab).
 */
async function confirmSession() {
  const expected = viewer?.name;
  if (expected === undefined) return;
  try {
    const data = await request(Viewer, {}, { signingIn: true });
    // signed out, or in again, meanwhile: that has settled it
    if (viewer?.name !== expected) return;
    if (data.viewer?.name === expected) hold(data.viewer);
    else showSignIn({ notice: sessionEnded });
  } catch {
    // the gateway cannot tell now: the next call will
  }
}

onSessionEnded((error) => {
  if (viewer === null) return;
  // a 401 is the gateway's own word; an UNAUTHENTICATED error may be an upstream's about its service account
  if (error.status === 401) showSignIn({ notice: sessionEnded });
  else void confirmSession();
});

/**
 * An answer's `viewer` tells whether the session still holds: where the
 * gateway lets anonymous callers act as its service account, a session ended
 * elsewhere answers data, but not the user's.
 * @param {{ viewer: { name: string } | null }} data
 */
function stillSignedIn(data) {
  if (viewer !== null && data.viewer?.name === viewer.name) return true;
  showSignIn({ notice: sessionEnded });
  return false;
}

/**
 * What went wrong with a sign-in, in words for the form.
 * @param {unknown} error
 */
function signInProblem(error) {
  if (error instanceof TypeError) return `The gateway cannot be reached (${error.message}).`;
  return error instanceof Error ? error.message : String(error);
}

/** @param {SubmitEvent} event */
async function signIn(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
  const username = input('username').value.trim();
  const password = input('password');
  const tenant = input('tenant').value.trim();
  if (username === '' || password.value === '') {
    show(
      'sign-in-message',
      h('p', { class: 'error', role: 'alert' }, 'Enter your user name and password.'),
    );
    return;
  }
  show('sign-in-message', h('p', { class: 'muted' }, 'Signing in…'));
  button.disabled = true;
  try {
    const data = await request(
      SignIn,
      { username, password: password.value, tenant: tenant === '' ? null : tenant },
      { signingIn: true },
    );
    password.value = '';
    enter(data.signIn);
  } catch (error) {
    password.value = '';
    show('sign-in-message', h('p', { class: 'error', role: 'alert' }, signInProblem(error)));
    password.focus();
  } finally {
    button.disabled = false;
  }
}

/** @param {SubmitEvent} event */
async function useToken(event) {
  event.preventDefault();
  const field = input('token');
  const token = field.value.trim();
  field.value = '';
  if (token === '') return;
  setGatewayToken(token);
  try {
    const data = await request(Viewer, {}, { signingIn: true });
    if (data.viewer === null) {
      setGatewayToken('');
      show(
        'token-message',
        h(
          'p',
          { class: 'error', role: 'alert' },
          'This gateway takes no gateway tokens: sign in with your vRA account.',
        ),
      );
    } else {
      enter(data.viewer);
    }
  } catch (error) {
    setGatewayToken('');
    show(
      'token-message',
      h(
        'p',
        { class: 'error', role: 'alert' },
        error instanceof Error && 'status' in error && error.status === 401
          ? 'The gateway does not accept this token.'
          : signInProblem(error),
      ),
    );
  }
}

/** @param {HTMLButtonElement} button */
async function signOut(button) {
  button.disabled = true;
  try {
    // a gateway token is simply forgotten; a session is ended at the gateway (and its vRA token deleted)
    if (gatewayToken() === '') await request(SignOut, {}, { signingIn: true });
    showSignIn({ notice: 'You have signed out.' });
  } catch (error) {
    button.disabled = false;
    show('account', failure(error), button);
  }
}

// ---------------------------------------------------------------- catalog

async function showCatalog() {
  const signal = newScreen();
  show('catalog-detail');
  show('catalog-progress');
  show('catalog-resources');
  show('catalog-items', h('p', { class: 'muted' }, 'Loading the catalog…'));
  void showMyRequests(signal);
  try {
    const data = await request(EntitledItems, {});
    if (signal.aborted || !stillSignedIn(data)) return;
    const items = data.entitledCatalogItems?.nodes ?? [];
    show(
      'catalog-items',
      items.length === 0 ? h('p', { class: 'muted' }, 'No catalog item is offered to you.') : null,
      items.map((item) =>
        h(
          'button',
          { class: 'card', type: 'button', 'data-item': item.id, onclick: () => showItem(item) },
          h('strong', {}, item.name),
          h('span', {}, item.description ?? ''),
        ),
      ),
    );
  } catch (error) {
    if (!signal.aborted) show('catalog-items', failure(error));
  }
}

const myRequestsCall = latestOnly();

/**
 * The caller's latest requests, under the catalog: read again whenever an
 * order or an action adds one or changes its state.
 * @param {AbortSignal} signal
 */
async function showMyRequests(signal) {
  const isLatest = myRequestsCall();
  try {
    const data = await request(MyRequests, {});
    if (signal.aborted || !isLatest() || !stillSignedIn(data)) return;
    const requests = data.catalogRequests?.nodes ?? [];
    const total = data.catalogRequests?.totalCount ?? 0;
    show(
      'catalog-requests',
      h('h3', {}, 'Your requests'),
      requests.length === 0
        ? h('p', { class: 'muted' }, 'None yet.')
        : h(
            'p',
            { class: 'muted', id: 'request-count' },
            total === 1
              ? '1 request'
              : total > requests.length
                ? `The latest ${requests.length} of ${total} requests`
                : `${total} requests`,
          ),
      h(
        'ul',
        { class: 'requests' },
        requests.map((item) =>
          h(
            'li',
            { 'data-request-id': item.id },
            // vRA 8 numbers no request
            item.requestNumber === null ? null : h('span', {}, `#${item.requestNumber} `),
            badge(item.state),
            ' ',
            item.description ?? (item.catalogItemId === null ? 'Action on a resource' : ''),
            h('small', {}, when(item.dateCreated)),
          ),
        ),
      ),
    );
  } catch (error) {
    if (!signal.aborted && isLatest()) {
      show('catalog-requests', h('h3', {}, 'Your requests'), failure(error));
    }
  }
}

/** @param {EntitledItem} item */
function showItem(item) {
  const signal = newScreen();
  show('catalog-progress');
  show('catalog-resources');
  const form = catalogForm(item.form?.fields ?? []);
  const groups = h(
    'select',
    { id: 'business-group', name: 'businessGroupId' },
    item.businessGroups.map((group) => h('option', { value: group.id }, group.name ?? group.id)),
  );
  const description = h('input', { id: 'request-description', name: 'description', type: 'text' });
  const reasons = h('input', { id: 'request-reasons', name: 'reasons', type: 'text' });
  const message = h('div', { class: 'message' });
  const submit = async (/** @type {Event} */ event) => {
    event.preventDefault();
    if (!may('catalog:request')) return;
    message.replaceChildren();
    try {
      const values = form.read();
      const answer = await request(RequestItem, {
        input: {
          catalogItemId: item.id,
          businessGroupId: groups.value,
          description: description.value === '' ? null : description.value,
          deploymentName: description.value === '' ? null : description.value,
          reasons: reasons.value === '' ? null : reasons.value,
          values,
        },
      });
      const id = answer.requestCatalogItem.request.id;
      // the new request heads "Your requests" at once, then shows each of its states
      void showMyRequests(signal);
      const last = await followRequest(id, 'catalog-progress', signal);
      if (last?.final === true) await showResources(id, signal);
    } catch (error) {
      if (signal.aborted) return;
      // the gateway's or vRA's refusal of named fields goes beside each field
      const fields =
        error instanceof GraphQLRequestError
          ? error.errors.flatMap((entry) => entry.extensions?.fields ?? [])
          : [];
      form.place(fields);
      message.replaceChildren(failure(error));
    }
  };
  show(
    'catalog-detail',
    h(
      'form',
      { id: 'request-form', novalidate: true, onsubmit: (event) => void submit(event) },
      h('h2', {}, item.name),
      h('p', { class: 'muted' }, item.description ?? ''),
      h('div', { class: 'field' }, h('label', { for: 'business-group' }, 'Business group'), groups),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'request-description' }, 'Description'),
        description,
      ),
      h('div', { class: 'field' }, h('label', { for: 'request-reasons' }, 'Reasons'), reasons),
      form.element,
      may('catalog:request')
        ? h('button', { type: 'submit', class: 'primary', 'data-order': item.id }, 'Request')
        : h(
            'p',
            { class: 'notice', id: 'order-not-allowed' },
            'You may look at this item but not order it: your account lacks the scope catalog:request.',
          ),
      message,
    ),
  );
}

/**
 * Follows a vRA request live until vRA marks it final; "Your requests" is
 * read again at each of its states. Answers the last state seen (null when
 * the subscription failed or the screen changed).
 * @param {string} id
 * @param {string} target
 * @param {AbortSignal} signal
 * @returns {Promise<FollowedRequest | null>}
 */
async function followRequest(id, target, signal) {
  const timeline = h('ol', { class: 'timeline', 'data-request': id });
  const status = h('p', {}, 'Submitted request ', h('code', {}, id));
  show(target, h('section', { class: 'panel' }, h('h3', {}, 'Request'), status, timeline));
  /** @type {FollowedRequest | null} */
  let last = null;
  try {
    for await (const data of subscribe(FollowRequest, { id }, signal)) {
      const current = data.catalogRequest;
      const changed = last === null || last.state !== current.state;
      last = current;
      status.replaceChildren(
        current.requestNumber === null ? 'Request ' : `Request #${current.requestNumber} `,
        badge(current.state),
        current.final ? ' (final)' : '',
      );
      timeline.append(h('li', {}, badge(current.state), ' ', current.phase ?? ''));
      if (changed) void showMyRequests(signal);
    }
  } catch (error) {
    if (signal.aborted) return null;
    timeline.append(h('li', {}, failure(error)));
    return null;
  }
  return signal.aborted ? null : last;
}

const resourcesCall = latestOnly();

/**
 * What a request built, with the actions each resource offers now: read
 * again once an action on one of them has ended.
 * @param {string} requestId
 * @param {AbortSignal} signal
 */
async function showResources(requestId, signal) {
  const isLatest = resourcesCall();
  try {
    const data = await request(RequestResources, { id: requestId });
    if (signal.aborted || !isLatest()) return;
    const resources = data.catalogRequest?.resources ?? [];
    show(
      'catalog-resources',
      h('h3', {}, 'What was built'),
      resources.length === 0 ? h('p', { class: 'muted' }, 'Nothing.') : null,
      resources.map((resource) => resourceCard(resource, requestId, signal)),
    );
  } catch (error) {
    if (!signal.aborted && isLatest()) show('catalog-resources', failure(error));
  }
}

/**
 * @param {Resource} resource
 * @param {string} requestId the request that built it
 * @param {AbortSignal} signal
 */
function resourceCard(resource, requestId, signal) {
  const data = typeof resource.data === 'object' && resource.data !== null ? resource.data : {};
  const shown = Object.entries(data).filter(
    ([, value]) => value === null || typeof value !== 'object',
  );
  const progress = actionProgress.get(resource.id) ?? h('div', { class: 'action-progress' });
  actionProgress.set(resource.id, progress);
  return h(
    'article',
    { class: 'resource', 'data-resource': resource.id },
    h('h4', {}, resource.name, ' ', h('small', {}, resource.resourceType ?? '')),
    h('p', {}, 'Status: ', resource.status ?? '-'),
    shown.length === 0
      ? null
      : h(
          'dl',
          {},
          shown
            .slice(0, 8)
            .flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, String(value))]),
        ),
    h(
      'div',
      { class: 'actions' },
      (may('catalog:request') ? resource.actions : []).map((action) =>
        h(
          'button',
          {
            type: 'button',
            'data-action': action.name,
            title: action.description ?? action.name,
            onclick: () => void runAction(resource.id, action.id, requestId, progress, signal),
          },
          action.name,
        ),
      ),
    ),
    progress,
  );
}

/**
 * Requests a day-2 action and follows it; "Your requests" shows it at once,
 * and once it has ended the resources are drawn again (their state and
 * actions may have changed, a destroyed one is gone).
 * @param {string} resourceId
 * @param {string} actionId
 * @param {string} requestId the request that built the resource
 * @param {HTMLElement} progress
 * @param {AbortSignal} signal
 */
async function runAction(resourceId, actionId, requestId, progress, signal) {
  try {
    const answer = await request(RunAction, { input: { resourceId, actionId } });
    const id = answer.requestResourceAction.request.id;
    progress.id = `action-${id}`;
    void showMyRequests(signal);
    const last = await followRequest(id, progress.id, signal);
    if (last?.final === true) await showResources(requestId, signal);
  } catch (error) {
    if (!signal.aborted) progress.replaceChildren(failure(error));
  }
}

// ---------------------------------------------------------------- workflows

/** @param {string} nameContains */
async function showWorkflows(nameContains) {
  const signal = newScreen();
  show('workflow-detail');
  show('workflow-run');
  try {
    const data = await request(Workflows, {
      nameContains: nameContains === '' ? null : nameContains,
    });
    if (signal.aborted || !stillSignedIn(data)) return;
    const workflows = data.workflows?.nodes ?? [];
    show(
      'workflow-list',
      workflows.length === 0 ? h('p', { class: 'muted' }, 'No workflow matches.') : null,
      workflows.map((workflow) =>
        h(
          'button',
          {
            class: 'card',
            type: 'button',
            'data-workflow': workflow.id,
            onclick: () => void showWorkflow(workflow.id),
          },
          h('strong', {}, workflow.name),
          h('span', {}, workflow.categoryName ?? ''),
        ),
      ),
    );
  } catch (error) {
    if (!signal.aborted) show('workflow-list', failure(error));
  }
}

/** @param {string} id */
async function showWorkflow(id) {
  const signal = newScreen();
  show('workflow-run');
  show('workflow-detail', h('p', { class: 'muted' }, 'Loading the form…'));
  try {
    const data = await request(WorkflowForm, { id });
    if (signal.aborted) return;
    const workflow = data.workflow;
    if (workflow === null) {
      show('workflow-detail', h('p', { class: 'error' }, 'This workflow no longer exists.'));
      return;
    }
    const form = workflowForm(workflow.form?.fields ?? []);
    const message = h('div', { class: 'message' });
    const history = h('section', { class: 'history', id: 'recent-runs' });
    drawRuns(history, workflow.executions);
    const refreshRuns = recentRuns(id, history, signal);
    const submit = async (/** @type {Event} */ event) => {
      event.preventDefault();
      if (!may('workflow:run')) return;
      message.replaceChildren();
      try {
        const inputs = form.read();
        const answer = await request(RunWorkflow, { id, inputs });
        // the new run heads "Recent runs" at once, then shows each of its states
        refreshRuns();
        await followRun(id, answer.runWorkflow.execution.id, signal, refreshRuns);
      } catch (error) {
        if (!signal.aborted) message.replaceChildren(failure(error));
      }
    };
    show(
      'workflow-detail',
      h(
        'form',
        { id: 'workflow-form', onsubmit: (event) => void submit(event) },
        h('h2', {}, workflow.name),
        h('p', { class: 'muted' }, workflow.description ?? ''),
        form.element,
        may('workflow:run')
          ? h('button', { type: 'submit', class: 'primary' }, 'Run')
          : h(
              'p',
              { class: 'notice', id: 'run-not-allowed' },
              'You may look at this workflow but not run it: your account lacks the scope workflow:run.',
            ),
        message,
      ),
      history,
    );
  } catch (error) {
    if (!signal.aborted) show('workflow-detail', failure(error));
  }
}

/**
 * Draws a workflow's latest runs into `history`.
 * @param {HTMLElement} history
 * @param {Runs | null} runs
 */
function drawRuns(history, runs) {
  const nodes = runs?.nodes ?? [];
  const total = runs?.totalCount ?? 0;
  history.replaceChildren(
    h('h3', {}, 'Recent runs'),
    nodes.length === 0
      ? h('p', { class: 'muted' }, 'None yet.')
      : h(
          'p',
          { class: 'muted', id: 'run-count' },
          total === 1
            ? '1 run'
            : total > nodes.length
              ? `The latest ${nodes.length} of ${total} runs`
              : `${total} runs`,
        ),
    h(
      'ul',
      {},
      nodes.map((run) =>
        h(
          'li',
          { 'data-execution-id': run.id },
          badge(run.state),
          ' ',
          when(run.startDate),
          ' ',
          run.startedBy ?? '',
        ),
      ),
    ),
  );
}

/**
 * A function that reads the workflow's latest runs again and draws them
 * (the answer of its latest call only).
 * @param {string} workflowId
 * @param {HTMLElement} history
 * @param {AbortSignal} signal
 * @returns {() => void}
 */
function recentRuns(workflowId, history, signal) {
  const call = latestOnly();
  return () => {
    const isLatest = call();
    request(RecentRuns, { id: workflowId })
      .then((data) => {
        if (!signal.aborted && isLatest()) drawRuns(history, data.workflow?.executions ?? null);
      })
      .catch((/** @type {unknown} */ error) => {
        if (!signal.aborted && isLatest()) history.append(failure(error));
      });
  };
}

/**
 * Follows a run live (its state over the subscription, its log read again at
 * every change) and offers to cancel it until it ends; `changed` is called at
 * each new state and after a cancel (the lists showing the run are read again).
 * @param {string} workflowId
 * @param {string} executionId
 * @param {AbortSignal} signal
 * @param {() => void} changed
 */
async function followRun(workflowId, executionId, signal, changed) {
  const state = h('p', { class: 'run-state' }, 'Started run ', h('code', {}, executionId));
  const logs = h('ol', { class: 'logs' });
  const outputs = h('div', { class: 'outputs' });
  const cancel = h('button', { type: 'button', class: 'danger', id: 'cancel-run' }, 'Cancel run');
  const ended = (/** @type {string} */ current) =>
    ['COMPLETED', 'FAILED', 'CANCELED'].includes(current);
  /** The state on view: a state that ended the run is not replaced by an earlier one. */
  let shown = '';
  const showState = (/** @type {string} */ id, /** @type {string} */ current) => {
    if (ended(shown) && !ended(current)) return false;
    const isNew = current !== shown;
    shown = current;
    state.replaceChildren('Run ', h('code', {}, id), ' ', badge(current));
    if (ended(current)) cancel.remove();
    return isNew;
  };
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    // the answer shows the cancel at once; the subscription then ends with CANCELED
    request(CancelRun, { workflowId, executionId })
      .then((data) => {
        if (signal.aborted) return;
        const run = data.cancelWorkflowExecution;
        showState(run.id, run.state);
        changed();
      })
      .catch((/** @type {unknown} */ error) => {
        if (signal.aborted) return;
        cancel.disabled = false;
        outputs.replaceChildren(failure(error));
      });
  });
  show(
    'workflow-run',
    h(
      'section',
      { class: 'panel', 'data-execution': executionId },
      h('h3', {}, 'Run'),
      state,
      may('workflow:run') ? cancel : null,
      h('h4', {}, 'Log'),
      logs,
      outputs,
    ),
  );
  const refreshLogs = async () => {
    const data = await request(RunLogs, { workflowId, executionId });
    logs.replaceChildren(
      ...(data.workflowExecution?.logs ?? []).map((entry) =>
        h(
          'li',
          { class: `log-${entry.severity}` },
          h('time', {}, when(entry.timestamp)),
          ' ',
          entry.message,
        ),
      ),
    );
  };
  try {
    for await (const data of subscribe(FollowRun, { workflowId, executionId }, signal)) {
      const run = data.workflowExecution;
      if (showState(run.id, run.state)) changed();
      if (ended(run.state)) {
        outputs.replaceChildren(
          run.exception === null ? '' : h('p', { class: 'error' }, run.exception),
          run.state !== 'COMPLETED' || run.outputParameters.length === 0
            ? ''
            : h(
                'dl',
                {},
                run.outputParameters.flatMap((output) => [
                  h('dt', {}, output.name),
                  h('dd', {}, JSON.stringify(output.value)),
                ]),
              ),
        );
      }
      await refreshLogs();
    }
  } catch (error) {
    if (!signal.aborted) outputs.replaceChildren(failure(error));
  }
}

// ---------------------------------------------------------------- wiring

/** @param {'catalog' | 'workflows'} tab */
function openTab(tab) {
  if (viewer === null) return;
  for (const section of document.querySelectorAll('main > section')) {
    section.toggleAttribute('hidden', section.id !== tab);
  }
  for (const button of document.querySelectorAll('nav button')) {
    button.setAttribute('aria-current', String(button.getAttribute('data-tab') === tab));
  }
  if (tab === 'catalog') void showCatalog();
  else void showWorkflows('');
}

for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () =>
    openTab(button.getAttribute('data-tab') === 'workflows' ? 'workflows' : 'catalog'),
  );
}
document.getElementById('workflow-search')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const query = /** @type {HTMLInputElement} */ (document.getElementById('workflow-query'));
  void showWorkflows(query.value.trim());
});
document
  .getElementById('sign-in-form')
  ?.addEventListener('submit', (event) => void signIn(/** @type {SubmitEvent} */ (event)));
document
  .getElementById('token-form')
  ?.addEventListener('submit', (event) => void useToken(/** @type {SubmitEvent} */ (event)));

/** On load: the portal as the caller may use it, or the sign-in form. */
async function start() {
  try {
    const data = await request(Viewer, {}, { signingIn: true });
    if (data.viewer === null) showSignIn();
    else enter(data.viewer);
  } catch (error) {
    showSignIn({ alert: signInProblem(error) });
  }
}

void start();
