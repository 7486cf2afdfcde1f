import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConsumerState } from '../../simulators/vra/v7/consumer.ts';
import { requestBodyProblem } from '../../simulators/vra/v7/consumer-validate.ts';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../fixtures/vra/${name}`, import.meta.url), 'utf8'));

function state(now = { t: 0 }) {
  return new ConsumerState({
    tenant: 'vsphere.local',
    serviceUser: 'svc',
    now: () => now.t,
    stepMs: 100,
  });
}

describe('the simulated vRA consumer API', () => {
  it('hands out templates shaped like the captured one', () => {
    const captured = fixture('request-template.json');
    const consumer = state();
    const item = consumer.items[0]!;
    const template = consumer.template(item, 'svc');
    expect(Object.keys(template).sort()).toEqual(Object.keys(captured).sort());
    const component = (template['data'] as any).vSphere_Machine_1;
    const capturedComponent = captured.data['machine2.vsphere'];
    expect(Object.keys(component).sort()).toEqual(Object.keys(capturedComponent).sort());
    for (const key of Object.keys(component.data)) {
      expect(Object.keys(capturedComponent.data), key).toContain(key);
    }
  });

  it('accepts its own template and refuses what does not follow it', () => {
    const consumer = state();
    const template = consumer.template(consumer.items[0]!, 'svc');
    const required = ['type', 'catalogItemId', 'requestedFor', 'businessGroupId'];
    expect(requestBodyProblem(template, template, required)).toBeUndefined();
    const data = template['data'] as any;
    const cases: Array<[unknown, string]> = [
      [[], 'not an object'],
      [{ ...template, type: undefined }, 'Missing required field: type'],
      [{ ...template, catalogItemId: 'other' }, 'catalogItemId "other" does not match'],
      [{ ...template, extra: 1 }, 'Unrecognized field "extra"'],
      [{ ...template, data: { ...data, web: {} } }, 'data has no field "web"'],
      [
        { ...template, data: { ...data, _number_of_instances: '1' } },
        'data._number_of_instances must be a number, not a string',
      ],
      [
        {
          ...template,
          data: { ...data, vSphere_Machine_1: { ...data.vSphere_Machine_1, data: { disks: {} } } },
        },
        'data.vSphere_Machine_1.data.disks must be an array, not an object',
      ],
      [{ ...template, description: 5 }, 'description must be a string'],
    ];
    for (const [body, problem] of cases) {
      expect(requestBodyProblem(body, template, required)).toContain(problem);
    }
  });

  it('advances a request SUBMITTED, IN_PROGRESS, then final, and builds a deployment with machines', () => {
    const now = { t: 1_000 };
    const consumer = state(now);
    const item = consumer.items[1]!;
    const template = consumer.template(item, 'svc');
    const request = consumer.submitItemRequest('svc', item, template);
    const states = [0, 100, 200].map((t) => {
      now.t = 1_000 + t;
      const body = consumer.requestBody(consumer.request(request.id, 'svc')!);
      return [body['state'], body['phase'], body['final']];
    });
    expect(states).toEqual([
      ['SUBMITTED', 'PENDING_PRE_APPROVAL', false],
      ['IN_PROGRESS', 'IN_PROGRESS', false],
      ['SUCCESSFUL', 'SUCCESSFUL', true],
    ]);
    const built = consumer.resourcesOf(request);
    expect(built.map((r) => r.kind)).toEqual(['deployment', 'machine', 'machine']);
    expect(consumer.request(request.id, 'someone else')).toBeUndefined();
  });

  it('ends a request FAILED when told to, building nothing', () => {
    const now = { t: 0 };
    const consumer = state(now);
    consumer.failNextRequests(1);
    const item = consumer.items[0]!;
    const request = consumer.submitItemRequest('svc', item, consumer.template(item, 'svc'));
    now.t = 1_000;
    expect(consumer.requestBody(consumer.request(request.id, 'svc')!)).toMatchObject({
      state: 'FAILED',
      final: true,
      successful: false,
    });
    expect(consumer.resourcesOf(request)).toEqual([]);
  });

  it('restricts one seeded item to the service account', () => {
    const consumer = state();
    const restricted = consumer.items.filter((item) => !consumer.entitled('jane', item));
    expect(restricted.map((item) => item.name)).toEqual(['Oracle Database (restricted)']);
    expect(consumer.entitled('svc', restricted[0]!)).toBe(true);
  });
});
