import { h } from './dom.js';

/** @typedef {import('./generated/graphql.ts').PortalWorkflowFormQuery} WorkflowFormQuery */
/** @typedef {NonNullable<NonNullable<WorkflowFormQuery['workflow']>['form']>['fields'][number]} FormField */
/** @typedef {import('./generated/graphql.ts').WorkflowParameterInput} WorkflowParameterInput */

/**
 * A drawn form: its element, and `read()`, which answers what to submit or
 * throws an Error naming the first field that is wrong (and marks it).
 * @template T
 * @typedef {{ element: HTMLElement, read: () => T }} DrawnForm
 */

/** @param {string} type */
const lower = (type) => type.toLowerCase();

/**
 * The control of one workflow input, by its vRO type.
 * @param {FormField} field
 * @returns {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement}
 */
function control(field) {
  const type = lower(field.type);
  const id = `field-${field.name}`;
  const fallback = field.defaultValue;
  if (field.choices !== null) {
    const select = h(
      'select',
      { id, name: field.name },
      field.required ? null : h('option', { value: '' }, ''),
      field.choices.map((choice) =>
        h(
          'option',
          {
            value: JSON.stringify(choice),
            selected: JSON.stringify(choice) === JSON.stringify(fallback),
          },
          typeof choice === 'string' ? choice : JSON.stringify(choice),
        ),
      ),
    );
    return select;
  }
  if (type === 'boolean') {
    return h('input', { id, name: field.name, type: 'checkbox', checked: fallback === true });
  }
  if (type.startsWith('array/') || type === 'properties') {
    const text =
      fallback === null || fallback === undefined
        ? ''
        : type === 'properties'
          ? JSON.stringify(fallback, null, 2)
          : /** @type {unknown[]} */ (fallback).map((value) => String(value)).join('\n');
    const placeholder = type === 'properties' ? '{ "key": "value" }' : 'one value per line';
    const area = h('textarea', { id, name: field.name, rows: '3', placeholder });
    area.value = text;
    return area;
  }
  /** @type {Record<string, string>} */
  const kinds = { number: 'number', date: 'datetime-local', securestring: 'password' };
  const input = h('input', { id, name: field.name, type: kinds[type] ?? 'text' });
  if (type === 'number') input.step = 'any';
  if (type.includes(':')) input.placeholder = `${field.type} id, e.g. vcenter-01/vm-1`;
  if (fallback !== null && fallback !== undefined) {
    const text = typeof fallback === 'string' ? fallback : JSON.stringify(fallback);
    input.value = type === 'date' ? text.slice(0, 16) : text;
  }
  return input;
}

/**
 * The value of a control as the JSON `runWorkflow` takes for its type;
 * undefined when left empty.
 * @param {FormField} field
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} element
 * @returns {unknown}
 */
function valueOf(field, element) {
  const type = lower(field.type);
  if (element instanceof HTMLInputElement && element.type === 'checkbox') return element.checked;
  const raw = element.value.trim();
  if (raw === '') return undefined;
  if (element instanceof HTMLSelectElement) return JSON.parse(raw);
  if (type === 'number') return Number(raw);
  if (type === 'date') return new Date(raw).toISOString();
  if (type === 'properties') return JSON.parse(raw);
  if (type.startsWith('array/')) {
    const values = raw
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    return lower(type.slice(6)) === 'number' ? values.map(Number) : values;
  }
  return raw;
}

/**
 * Draws a workflow's form (steps as fieldsets, groups as headings, hidden
 * fields left out but their defaults sent) and reads it as `runWorkflow` inputs.
 * @param {ReadonlyArray<FormField>} fields
 * @returns {DrawnForm<WorkflowParameterInput[]>}
 */
export function workflowForm(fields) {
  /** @type {Array<{ field: FormField, element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement }>} */
  const controls = [];
  /** @type {Map<string, HTMLFieldSetElement>} */
  const steps = new Map();
  const root = h('div', { class: 'workflow-form' });
  let lastGroup = /** @type {string | null} */ (null);
  for (const field of fields) {
    if (field.hidden) continue;
    const stepTitle = field.step ?? '';
    let step = steps.get(stepTitle);
    if (step === undefined) {
      step = h(
        'fieldset',
        { class: 'step' },
        field.step === null ? null : h('legend', {}, field.step),
      );
      steps.set(stepTitle, step);
      root.append(step);
      lastGroup = null;
    }
    if (field.group !== null && field.group !== lastGroup) step.append(h('h4', {}, field.group));
    lastGroup = field.group;
    const element = control(field);
    controls.push({ field, element });
    const label = field.label ?? field.name;
    step.append(
      h(
        'div',
        { class: 'field', 'data-field': field.name },
        h(
          'label',
          { for: element.id },
          label,
          field.required ? h('span', { class: 'required' }, ' *') : null,
        ),
        element,
        field.description === null || field.description === label
          ? null
          : h('small', {}, field.description),
      ),
    );
  }
  if (controls.length === 0)
    root.append(h('p', { class: 'muted' }, 'This workflow takes no input.'));
  return {
    element: root,
    read() {
      /** @type {WorkflowParameterInput[]} */
      const inputs = [];
      for (const field of fields.filter((candidate) => candidate.hidden)) {
        if (field.defaultValue !== null) {
          inputs.push({ name: field.name, type: field.type, value: field.defaultValue });
        }
      }
      for (const { field, element } of controls) {
        element.removeAttribute('aria-invalid');
        let value;
        try {
          value = valueOf(field, element);
        } catch {
          element.setAttribute('aria-invalid', 'true');
          throw new Error(`${field.label ?? field.name}: not valid JSON.`);
        }
        if (value === undefined) {
          if (field.required) {
            element.setAttribute('aria-invalid', 'true');
            throw new Error(`${field.label ?? field.name} is required.`);
          }
          continue;
        }
        inputs.push({ name: field.name, type: field.type, value });
      }
      return inputs;
    },
  };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * @param {unknown} value
 * @returns {value is string | number | boolean | null}
 */
const isPlain = (value) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * One editable entry of a request template.
 * @param {string} key
 * @param {string | number | boolean | null} value
 * @param {string} id
 */
function templateControl(key, value, id) {
  if (typeof value === 'boolean')
    return h('input', { id, name: key, type: 'checkbox', checked: value });
  const input = h('input', { id, name: key, type: typeof value === 'number' ? 'number' : 'text' });
  if (value !== null) input.value = String(value);
  return input;
}

/**
 * Draws the editable parts of a vRA request template: the plain values of
 * `data` and of each component's own `data` (names starting with `_` are
 * vRA's own, left as they are; lists and nested objects too). Reads the
 * changed values only, as the `data` that `requestCatalogItem` merges into
 * the template.
 * @param {unknown} template
 * @returns {DrawnForm<Record<string, unknown>>}
 */
export function templateForm(template) {
  const data = isObject(template) && isObject(template['data']) ? template['data'] : {};
  /** @type {Array<{ path: string[], original: unknown, element: HTMLInputElement }>} */
  const controls = [];
  const root = h('div', { class: 'template-form' });
  /**
   * @param {HTMLElement} parent
   * @param {Record<string, unknown>} entries
   * @param {string[]} path
   */
  const addEntries = (parent, entries, path) => {
    for (const [key, value] of Object.entries(entries)) {
      if (!isPlain(value) || (key.startsWith('_') && key !== '_number_of_instances')) continue;
      const id = `template-${[...path, key].join('-')}`;
      const element = templateControl(key, value, id);
      controls.push({ path: [...path, key], original: value, element });
      parent.append(
        h('div', { class: 'field', 'data-field': key }, h('label', { for: id }, key), element),
      );
    }
  };
  const general = h('fieldset', { class: 'step' }, h('legend', {}, 'Request'));
  addEntries(general, data, []);
  root.append(general);
  for (const [component, value] of Object.entries(data)) {
    if (!isObject(value) || !isObject(value['data'])) continue;
    const fieldset = h(
      'fieldset',
      { class: 'step', 'data-component': component },
      h('legend', {}, component),
    );
    addEntries(fieldset, value['data'], [component, 'data']);
    root.append(fieldset);
  }
  return {
    element: root,
    read() {
      /** @type {Record<string, unknown>} */
      const patch = {};
      for (const { path, original, element } of controls) {
        element.removeAttribute('aria-invalid');
        /** @type {unknown} */
        let value;
        if (element.type === 'checkbox') value = element.checked;
        else if (element.type === 'number') {
          value = element.value.trim() === '' ? null : Number(element.value);
          if (typeof value === 'number' && !Number.isFinite(value)) {
            element.setAttribute('aria-invalid', 'true');
            throw new Error(`${path.join('.')} must be a number.`);
          }
        } else value = element.value === '' && original === null ? null : element.value;
        if (value === original) continue;
        /** @type {Record<string, unknown>} */
        let target = patch;
        for (const key of path.slice(0, -1)) {
          const next = isObject(target[key]) ? target[key] : {};
          target[key] = next;
          target = next;
        }
        target[path.at(-1) ?? ''] = value;
      }
      return patch;
    },
  };
}
