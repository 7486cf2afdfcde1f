/** The label of an operation without a name. */
export const unnamedOperation = 'anonymous';
/** The label of every operation whose name is not a label of its own. */
export const otherOperations = 'other';

/**
 * The operation names that may be label values: client-chosen strings, so
 * only the first `max` distinct (type, name) pairs seen, each at most
 * `maxLength` characters long, are; every later one counts as `other`. A
 * client making up names therefore adds a bounded number of series, however
 * many requests it sends.
 */
export class OperationNames {
  readonly #admitted = new Set<string>();
  readonly #max: number;
  readonly #maxLength: number;

  constructor(max = 200, maxLength = 64) {
    this.#max = max;
    this.#maxLength = maxLength;
  }

  /** The label for an operation of this type and name (admitting the pair if there is room). */
  label(type: string, name: string): string {
    if (name === unnamedOperation || name === otherOperations) return name;
    const key = `${type} ${name}`;
    if (this.#admitted.has(key)) return name;
    if (this.#admitted.size >= this.#max || name.length > this.#maxLength) return otherOperations;
    this.#admitted.add(key);
    return name;
  }
}
