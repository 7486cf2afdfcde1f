import { gatewayToken, request, setGatewayToken, subscribe } from './client.js';
import { badge, failure, h, show, when } from './dom.js';
import { templateForm, workflowForm } from './forms.js';
import {
  CancelRun,
  EntitledItems,
  FollowRequest,
  FollowRun,
  RequestItem,
  RequestResources,
  RunAction,
  RunLogs,
  RunWorkflow,
  WorkflowForm,
  Workflows,
} from './operations.js';

/** @typedef {import('./generated/graphql.ts').PortalEntitledItemsQuery} EntitledItemsQuery */
/** @typedef {NonNullable<EntitledItemsQuery['entitledCatalogItems']>['nodes'][number]} EntitledItem */
/** @typedef {NonNullable<NonNullable<import('./generated/graphql.ts').PortalRequestResourcesQuery['catalogRequest']>['resources']>[number]} Resource */

/** Subscriptions of the screen on view; a new screen ends them. */
let screen = new AbortController();

function newScreen() {
  screen.abort();
  screen = new AbortController();
  return screen.signal;
}

// ---------------------------------------------------------------- catalog

async function showCatalog() {
  newScreen();
  show('catalog-detail');
  show('catalog-progress');
  show('catalog-resources');
  show('catalog-items', h('p', { class: 'muted' }, 'Loading the catalog…'));
  try {
    const data = await request(EntitledItems, {});
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
    show('catalog-items', failure(error));
  }
}

/** @param {EntitledItem} item */
function showItem(item) {
  const signal = newScreen();
  show('catalog-progress');
  show('catalog-resources');
  const form = templateForm(item.requestTemplate);
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
    message.replaceChildren();
    try {
      const data = form.read();
      const answer = await request(RequestItem, {
        input: {
          catalogItemId: item.id,
          businessGroupId: groups.value,
          description: description.value === '' ? null : description.value,
          reasons: reasons.value === '' ? null : reasons.value,
          data,
        },
      });
      await followRequest(answer.requestCatalogItem.request.id, 'catalog-progress', signal, true);
    } catch (error) {
      message.replaceChildren(failure(error));
    }
  };
  show(
    'catalog-detail',
    h(
      'form',
      { id: 'request-form', onsubmit: (event) => void submit(event) },
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
      h('button', { type: 'submit', class: 'primary' }, 'Request'),
      message,
    ),
  );
}

/**
 * Follows a vRA request live until vRA marks it final, then shows what it built.
 * @param {string} id
 * @param {string} target
 * @param {AbortSignal} signal
 * @param {boolean} withResources
 */
async function followRequest(id, target, signal, withResources) {
  const timeline = h('ol', { class: 'timeline', 'data-request': id });
  const status = h('p', {}, 'Submitted request ', h('code', {}, id));
  show(target, h('section', { class: 'panel' }, h('h3', {}, 'Request'), status, timeline));
  let last = null;
  try {
    for await (const data of subscribe(FollowRequest, { id }, signal)) {
      const current = data.catalogRequest;
      last = current;
      status.replaceChildren(
        `Request #${current.requestNumber ?? '?'} `,
        badge(current.state),
        current.final ? ' (final)' : '',
      );
      timeline.append(h('li', {}, badge(current.state), ' ', current.phase ?? ''));
    }
  } catch (error) {
    if (signal.aborted) return;
    timeline.append(h('li', {}, failure(error)));
    return;
  }
  if (withResources && last?.final === true) await showResources(id, signal);
}

/**
 * @param {string} requestId
 * @param {AbortSignal} signal
 */
async function showResources(requestId, signal) {
  try {
    const data = await request(RequestResources, { id: requestId });
    const resources = data.catalogRequest?.resources ?? [];
    show(
      'catalog-resources',
      h('h3', {}, 'What was built'),
      resources.length === 0 ? h('p', { class: 'muted' }, 'Nothing.') : null,
      resources.map((resource) => resourceCard(resource, signal)),
    );
  } catch (error) {
    show('catalog-resources', failure(error));
  }
}

/**
 * @param {Resource} resource
 * @param {AbortSignal} signal
 */
function resourceCard(resource, signal) {
  const data = typeof resource.data === 'object' && resource.data !== null ? resource.data : {};
  const shown = Object.entries(data).filter(
    ([, value]) => value === null || typeof value !== 'object',
  );
  const progress = h('div', { class: 'action-progress' });
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
      resource.actions.map((action) =>
        h(
          'button',
          {
            type: 'button',
            'data-action': action.name,
            title: action.description ?? action.name,
            onclick: () => void runAction(resource.id, action.id, progress, signal),
          },
          action.name,
        ),
      ),
    ),
    progress,
  );
}

/**
 * @param {string} resourceId
 * @param {string} actionId
 * @param {HTMLElement} progress
 * @param {AbortSignal} signal
 */
async function runAction(resourceId, actionId, progress, signal) {
  try {
    const answer = await request(RunAction, { input: { resourceId, actionId } });
    const id = answer.requestResourceAction.request.id;
    progress.id = `action-${id}`;
    await followRequest(id, progress.id, signal, false);
  } catch (error) {
    progress.replaceChildren(failure(error));
  }
}

// ---------------------------------------------------------------- workflows

/** @param {string} nameContains */
async function showWorkflows(nameContains) {
  newScreen();
  show('workflow-detail');
  show('workflow-run');
  try {
    const data = await request(Workflows, {
      nameContains: nameContains === '' ? null : nameContains,
    });
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
    show('workflow-list', failure(error));
  }
}

/** @param {string} id */
async function showWorkflow(id) {
  const signal = newScreen();
  show('workflow-run');
  show('workflow-detail', h('p', { class: 'muted' }, 'Loading the form…'));
  try {
    const data = await request(WorkflowForm, { id });
    const workflow = data.workflow;
    if (workflow === null) {
      show('workflow-detail', h('p', { class: 'error' }, 'This workflow no longer exists.'));
      return;
    }
    const form = workflowForm(workflow.form?.fields ?? []);
    const message = h('div', { class: 'message' });
    const submit = async (/** @type {Event} */ event) => {
      event.preventDefault();
      message.replaceChildren();
      try {
        const inputs = form.read();
        const answer = await request(RunWorkflow, { id, inputs });
        await followRun(id, answer.runWorkflow.execution.id, signal);
      } catch (error) {
        message.replaceChildren(failure(error));
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
        h('button', { type: 'submit', class: 'primary' }, 'Run'),
        message,
      ),
      h(
        'section',
        { class: 'history' },
        h('h3', {}, 'Recent runs'),
        (workflow.executions?.nodes ?? []).length === 0
          ? h('p', { class: 'muted' }, 'None yet.')
          : null,
        h(
          'ul',
          {},
          (workflow.executions?.nodes ?? []).map((run) =>
            h('li', {}, badge(run.state), ' ', when(run.startDate), ' ', run.startedBy ?? ''),
          ),
        ),
      ),
    );
  } catch (error) {
    show('workflow-detail', failure(error));
  }
}

/**
 * Follows a run live (its state over the subscription, its log read again at
 * every change) and offers to cancel it until it ends.
 * @param {string} workflowId
 * @param {string} executionId
 * @param {AbortSignal} signal
 */
async function followRun(workflowId, executionId, signal) {
  const state = h('p', { class: 'run-state' }, 'Started run ', h('code', {}, executionId));
  const logs = h('ol', { class: 'logs' });
  const outputs = h('div', { class: 'outputs' });
  const cancel = h('button', { type: 'button', class: 'danger', id: 'cancel-run' }, 'Cancel run');
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    // the answer shows the cancel at once; the subscription then ends with CANCELED
    request(CancelRun, { workflowId, executionId })
      .then((data) => {
        const run = data.cancelWorkflowExecution;
        state.replaceChildren('Run ', h('code', {}, run.id), ' ', badge(run.state));
      })
      .catch((/** @type {unknown} */ error) => {
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
      cancel,
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
      state.replaceChildren('Run ', h('code', {}, run.id), ' ', badge(run.state));
      if (['COMPLETED', 'FAILED', 'CANCELED'].includes(run.state)) {
        cancel.remove();
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
  for (const section of document.querySelectorAll('main > section')) {
    section.toggleAttribute('hidden', section.id !== tab);
  }
  for (const button of document.querySelectorAll('nav button')) {
    button.setAttribute('aria-current', String(button.getAttribute('data-tab') === tab));
  }
  if (tab === 'catalog') void showCatalog();
  else void showWorkflows('');
}

const token = /** @type {HTMLInputElement} */ (document.getElementById('token'));
token.value = gatewayToken();
token.addEventListener('change', () => setGatewayToken(token.value.trim()));
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
openTab(location.hash === '#workflows' ? 'workflows' : 'catalog');
