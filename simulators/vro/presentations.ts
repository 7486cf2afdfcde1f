import type { SeedWorkflow } from './seed-workflows.ts';
import { wrapOutput } from './values.ts';

/**
 * Workflow presentations (`GET /workflows/{id}/presentation/`) in the shape
 * of the captured body (vcoworkflows `workflowservice_spec.rb`, Apache-2.0):
 * `steps[].step.elements[]` groups holding `fields[]`, `mandatory`
 * constraints, `drop-down` decorators with typed values (`[null]` for a list
 * an action computes). Unconfirmed, and chosen here: titles as `title`, a
 * predefined list as a `predefined-list` constraint, a default as a
 * `default-value` decorator, each with its typed value beside `@type`.
 */

export interface SeedFormField {
  /** The input parameter's name. */
  name: string;
  label?: string;
  /** Default: the input's description, else the label. */
  description?: string;
  mandatory?: boolean;
  hidden?: boolean;
  /** Plain values, wrapped as the input's type; `[null]` as in the capture. */
  choices?: unknown[];
  /** A `drop-down` decorator (default) or a `predefined-list` constraint. */
  choicesAs?: 'drop-down' | 'predefined-list';
  default?: unknown;
  /** Other decorators without a value (`multiline`, `refresh-on-change`). */
  decorators?: string[];
}

export interface SeedFormGroup {
  title?: string;
  fields: SeedFormField[];
}

export interface SeedFormStep {
  title?: string;
  hidden?: boolean;
  groups: SeedFormGroup[];
}

const list = (...values: string[]): string[] => values;

/** Presentations by workflow id; a workflow not listed gets one untitled step and group. */
export const seedPresentations: Readonly<Record<string, readonly SeedFormStep[]>> = {
  // "Request Component": the captured presentation, field for field.
  '6e04a460-4a45-4e16-9603-db2922c24462': [
    {
      groups: [
        {
          fields: [
            { name: 'businessUnit', mandatory: true, choices: list('an', 'aw', 'soi') },
            { name: 'environment', mandatory: true },
            { name: 'component', mandatory: true },
            { name: 'onBehalfOf', label: 'On Behalf of User: (user@domain format)' },
            {
              name: 'machineCount',
              choices: list('1', '2', '3', '4', '5', '6', '7', '8', '9', '10'),
            },
            {
              name: 'image',
              description: 'image',
              mandatory: true,
              choices: list(
                'vcaccentos65v8-agent',
                'win2012std',
                'vcac2012std',
                'centos-6.6-x86_64-20141203-1',
                'v8-centos65-agent',
                'vcac2008r2std',
                'oracle-6.5-x86_64-20141203-1',
                'centos65v8',
                'w2012r2std_coreservices',
                '2008r2std',
              ),
            },
            {
              name: 'coreCount',
              mandatory: true,
              decorators: ['refresh-on-change'],
              choices: list('1', '2', '4', '8'),
            },
            { name: 'ramMB', label: 'ramSizeMB', mandatory: true, choices: [null] },
            { name: 'runlist', description: 'runlist' },
            { name: 'reservation', mandatory: true },
            { name: 'location' },
            {
              name: 'attributesJS',
              label: 'JSON object of vCenter Attributes to apply to VM(s)',
              decorators: ['multiline'],
            },
            { name: 'nodename', label: 'Chef Nodename' },
          ],
        },
      ],
    },
  ],
  // "Provision Linux VM": titled steps and groups, a predefined list, defaults, a hidden field.
  'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0': [
    {
      title: 'Machine',
      groups: [
        {
          title: 'Identity',
          fields: [
            { name: 'hostname', label: 'Host name', mandatory: true },
            {
              name: 'environment',
              label: 'Environment',
              mandatory: true,
              choices: list('dev', 'test', 'prod'),
              choicesAs: 'predefined-list',
              default: 'dev',
            },
          ],
        },
        {
          title: 'Size',
          fields: [
            { name: 'cpu', label: 'CPUs', mandatory: true, choices: [1, 2, 4, 8], default: 2 },
            { name: 'memoryGB', label: 'Memory (GB)', mandatory: true, default: 4 },
            { name: 'disks', label: 'Extra disks (GB)' },
          ],
        },
      ],
    },
    {
      title: 'Placement',
      groups: [
        {
          fields: [
            { name: 'networks', label: 'Networks', default: ['VM Network'] },
            { name: 'expiresOn', label: 'Expires on' },
            { name: 'tags', label: 'Tags', hidden: true },
          ],
        },
      ],
    },
  ],
};

type Json = Record<string, unknown>;

/** `GET /workflows/{id}/presentation/` of `workflow`. */
export function renderPresentation(workflow: SeedWorkflow, root: string): Json {
  const href = `${root}/workflows/${encodeURIComponent(workflow.id)}/`;
  const declaration = ({ name, type, description }: SeedWorkflow['inputs'][number]) =>
    description === undefined ? { name, type } : { name, type, description };
  const steps: readonly SeedFormStep[] = seedPresentations[workflow.id] ?? [
    { groups: [{ fields: workflow.inputs.map((input) => ({ name: input.name })) }] },
  ];
  const field = (seed: SeedFormField): Json => {
    const input = workflow.inputs.find((candidate) => candidate.name === seed.name);
    if (input === undefined) throw new Error(`${workflow.name} has no input ${seed.name}`);
    const wrap = (value: unknown): unknown => wrapOutput(input.type, value, root) ?? null;
    const choices =
      seed.choices === undefined
        ? undefined
        : { array: { elements: seed.choices.map(wrap) }, '@type': seed.choicesAs ?? 'drop-down' };
    const label = seed.label ?? input.name;
    return {
      'display-name': label,
      constraints: [
        ...(seed.mandatory === true ? [{ '@type': 'mandatory' }] : []),
        ...(choices?.['@type'] === 'predefined-list' ? [choices] : []),
      ],
      '@type': 'field',
      fields: [],
      id: input.name,
      description: seed.description ?? input.description ?? label,
      hidden: seed.hidden ?? false,
      messages: [],
      decorators: [
        ...(seed.decorators ?? []).map((kind) => ({ '@type': kind })),
        ...(choices?.['@type'] === 'drop-down' ? [choices] : []),
        ...(seed.default === undefined
          ? []
          : [{ ...(wrap(seed.default) as Json), '@type': 'default-value' }]),
      ],
      type: input.type,
    };
  };
  return {
    'output-parameters': workflow.outputs.map(declaration),
    'input-parameters': workflow.inputs.map(declaration),
    href: `${href}presentation/`,
    name: workflow.name,
    id: workflow.id,
    steps: steps.map((step) => ({
      step: {
        ...(step.title === undefined ? {} : { title: step.title }),
        messages: [],
        hidden: step.hidden ?? false,
        elements: step.groups.map((group) => ({
          ...(group.title === undefined ? {} : { title: group.title }),
          fields: group.fields.map(field),
          messages: [],
          hidden: false,
          '@type': 'group',
        })),
      },
    })),
    relations: {
      link: [
        { rel: 'up', href },
        { rel: 'instances', href: `${href}presentation/instances/` },
        { rel: 'add', href: `${href}presentation/instances/` },
      ],
    },
  };
}
