/**
 * Builds DOM elements: text is always set as text, never parsed as HTML,
 * so nothing an appliance answers can inject markup.
 */

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | ((event: Event) => void)>} [attributes]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false) element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
}

/**
 * Replaces the children of the element with id `id`.
 * @param {string} id
 * @param {...(Child | Child[])} children
 */
export function show(id, ...children) {
  const target = document.getElementById(id);
  if (target === null) throw new Error(`no #${id}`);
  target.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    target.append(typeof child === 'object' ? child : String(child));
  }
  return target;
}

/**
 * A state as a badge (`SUCCESSFUL`, `RUNNING`, ...).
 * @param {string} state
 */
export function badge(state) {
  return h('span', { class: `badge state-${state.toLowerCase()}`, 'data-state': state }, state);
}

/**
 * An error as a message, with its codes.
 * @param {unknown} error
 */
export function failure(error) {
  const message = error instanceof Error ? error.message : String(error);
  const codes =
    error instanceof Error && 'codes' in error && Array.isArray(error.codes)
      ? ` (${error.codes.join(', ')})`
      : '';
  return h('p', { class: 'error', role: 'alert' }, message + codes);
}

/**
 * A date as local time, or a dash.
 * @param {string | null | undefined} iso
 */
export function when(iso) {
  return iso === null || iso === undefined ? '-' : new Date(iso).toLocaleString();
}
