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

/** @typedef {import('./generated/graphql.ts').PortalEntitledItemsQuery} EntitledItemsQuery */
/** @typedef {NonNullable<NonNullable<EntitledItemsQuery['entitledCatalogItems']>['nodes'][number]['form']>['fields'][number]} RequestFormField */
/** @typedef {import('./generated/graphql.ts').FormValueInput} FormValueInput */

/** @param {string} name */
const controlId = (name) => `form-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** @param {unknown} value */
const shown = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The control of one field of a catalog item's request form: a select for
 * choices, a checkbox, a number with its bounds, text with its length and
 * pattern; required and read-only as the form says.
 * @param {RequestFormField} field
 * @returns {HTMLInputElement | HTMLSelectElement}
 */
function formControl(field) {
  const id = controlId(field.name);
  const common = { id, name: field.name, 'aria-required': String(field.required) };
  if (field.choices !== null) {
    const select = h(
      'select',
      common,
      field.defaultValue !== null ? null : h('option', { value: '' }, ''),
      field.choices.map((choice) =>
        h(
          'option',
          {
            value: JSON.stringify(choice.value),
            selected: JSON.stringify(choice.value) === JSON.stringify(field.defaultValue),
          },
          choice.label ?? shown(choice.value),
        ),
      ),
    );
    select.required = field.required;
    select.disabled = field.readOnly;
    return select;
  }
  if (field.type === 'boolean') {
    const box = h('input', { ...common, type: 'checkbox', checked: field.defaultValue === true });
    box.disabled = field.readOnly;
    return box;
  }
  /** @type {Record<string, string>} */
  const kinds = {
    integer: 'number',
    number: 'number',
    secret: 'password',
    'date-time': 'datetime-local',
  };
  const input = h('input', { ...common, type: kinds[field.type] ?? 'text' });
  if (field.type === 'integer') input.step = '1';
  if (field.type === 'number') input.step = 'any';
  if (field.minimum !== null) input.min = String(field.minimum);
  if (field.maximum !== null) input.max = String(field.maximum);
  if (field.minLength !== null) input.minLength = field.minLength;
  if (field.maxLength !== null) input.maxLength = field.maxLength;
  if (field.pattern !== null) input.pattern = field.pattern;
  input.required =
    field.required && (field.defaultValue === null || field.defaultValue === undefined);
  input.readOnly = field.readOnly;
  if (field.defaultValue !== null) {
    const text = shown(field.defaultValue);
    input.value = field.type === 'date-time' ? text.slice(0, 16) : text;
  }
  return input;
}

/**
 * What a control holds, as the JSON of the field's type; undefined when empty.
 * @param {RequestFormField} field
 * @param {HTMLInputElement | HTMLSelectElement} element
 * @returns {unknown}
 */
function formValue(field, element) {
  if (element instanceof HTMLInputElement && element.type === 'checkbox') return element.checked;
  const raw = element.value.trim();
  if (raw === '') return undefined;
  if (element instanceof HTMLSelectElement) return JSON.parse(raw);
  if (field.type === 'integer' || field.type === 'number') return Number(raw);
  if (field.type === 'date-time') return new Date(raw).toISOString();
  return element.value;
}

/**
 * A text a person reads for a control the browser finds wrong (bounds,
 * length, pattern, required), before anything is sent.
 * @param {RequestFormField} field
 * @param {HTMLInputElement | HTMLSelectElement} element
 */
function invalidText(field, element) {
  const { validity } = element;
  const label = field.label ?? field.name;
  if (validity.valueMissing) return `${label} is required.`;
  if (validity.rangeUnderflow) return `${label} must be at least ${String(field.minimum)}.`;
  if (validity.rangeOverflow) return `${label} must be at most ${String(field.maximum)}.`;
  if (validity.tooShort)
    return `${label} must be at least ${String(field.minLength)} characters long.`;
  if (validity.tooLong)
    return `${label} must be at most ${String(field.maxLength)} characters long.`;
  if (validity.patternMismatch) return `${label} must match ${String(field.pattern)}.`;
  if (validity.stepMismatch || validity.badInput) return `${label} must be a whole number.`;
  return `${label}: ${element.validationMessage}`;
}

/**
 * A drawn catalog request form, with `place(problems)` to show the gateway's
 * `extensions.fields` beside their fields.
 * @typedef {DrawnForm<FormValueInput[]> & { place: (problems: ReadonlyArray<{ name: string, message: string }>) => boolean }} CatalogForm
 */

/**
 * Draws a catalog item's request form (the same on vRA 7 and vRA 8) from its
 * `form`: fields grouped by `group` (vRA 7's components), lists and objects
 * left as the appliance has them. Reads the values to send: each required
 * field and each changed one, after the browser checked every bound.
 * @param {ReadonlyArray<RequestFormField>} fields
 * @returns {CatalogForm}
 */
export function catalogForm(fields) {
  /** @type {Array<{ field: RequestFormField, element: HTMLInputElement | HTMLSelectElement, note: HTMLElement }>} */
  const controls = [];
  const root = h('div', { class: 'catalog-form' });
  /** @type {Map<string, HTMLFieldSetElement>} */
  const groups = new Map();
  const groupOf = (/** @type {string | null | undefined} */ name) => {
    const key = name ?? '';
    let fieldset = groups.get(key);
    if (fieldset === undefined) {
      fieldset = h(
        'fieldset',
        { class: 'step', ...(name ? { 'data-group': name } : {}) },
        h('legend', {}, name ?? 'Request'),
      );
      groups.set(key, fieldset);
      root.append(fieldset);
    }
    return fieldset;
  };
  for (const field of fields) {
    if (field.type === 'array' || field.type === 'object') continue;
    const element = formControl(field);
    const note = h('small', { class: 'field-error', role: 'alert' });
    element.addEventListener('input', () => {
      element.removeAttribute('aria-invalid');
      note.textContent = '';
    });
    controls.push({ field, element, note });
    const label = h(
      'label',
      { for: element.id },
      field.label ?? field.name,
      field.required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
    );
    groupOf(field.group).append(
      h(
        'div',
        { class: 'field', 'data-field': field.name },
        label,
        element,
        field.description ? h('small', { class: 'muted' }, field.description) : null,
        note,
      ),
    );
  }
  return {
    element: root,
    read() {
      /** @type {FormValueInput[]} */
      const values = [];
      for (const { field, element, note } of controls) {
        element.removeAttribute('aria-invalid');
        note.textContent = '';
        if (!element.checkValidity()) {
          element.setAttribute('aria-invalid', 'true');
          note.textContent = invalidText(field, element);
          element.focus();
          throw new Error(note.textContent);
        }
        if (field.readOnly) continue;
        const value = formValue(field, element);
        if (value === undefined) continue;
        if (!field.required && JSON.stringify(value) === JSON.stringify(field.defaultValue)) {
          continue;
        }
        values.push({ name: field.name, value });
      }
      return values;
    },
    place(problems) {
      let placed = false;
      for (const problem of problems) {
        const control = controls.find((entry) => entry.field.name === problem.name);
        if (control === undefined) continue;
        control.element.setAttribute('aria-invalid', 'true');
        control.note.textContent = `${control.field.label ?? control.field.name} ${problem.message}.`;
        placed = true;
      }
      return placed;
    },
  };
}
