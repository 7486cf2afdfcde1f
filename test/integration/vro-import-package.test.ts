import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
const test01 = '3f92d2dc-a9fa-4323-900b-ef97196184ea';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const mutation = `
  mutation Import($file: File!, $overwrite: Boolean, $values: Boolean, $mode: TagImportMode) {
    importPackage(
      file: $file
      overwrite: $overwrite
      importConfigurationAttributeValues: $values
      tagImportMode: $mode
    ) { imported packageName }
  }`;

interface Answer {
  status: number;
  data?: any;
  errors?: Array<{ message: string; extensions?: Record<string, any> }>;
}

/** Sends the operation with the GraphQL multipart request spec, the file as variable `file`. */
async function upload(
  file: File,
  variables: Record<string, unknown> = {},
  query = mutation,
): Promise<[Answer, RecordedRequest[]]> {
  const mark = stack.vro.requests.length;
  const body = new FormData();
  body.append('operations', JSON.stringify({ query, variables: { ...variables, file: null } }));
  body.append('map', JSON.stringify({ 0: ['variables.file'] }));
  body.append('0', file);
  const response = await stack.fetch('/graphql', { method: 'POST', body });
  const answer = { status: response.status, ...((await response.json()) as object) };
  return [answer, stack.vro.requests.slice(mark)];
}

const sample = (name = 'net.powervro.tests.package') => new File([samplePackage], name);

describe('importPackage', () => {
  it('streams the package to vRO as the multipart part named file, with the default options', async () => {
    const [answer, sent] = await upload(sample());
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      importPackage: { imported: true, packageName: 'net.powervro.tests' },
    });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/vco/api/packages');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      overwrite: 'false',
      importConfigurationAttributeValues: 'false',
      tagImportMode: 'DoNotImport',
    });
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64')}`,
    );
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const body = request?.body ?? Buffer.alloc(0);
    expect(body.toString('latin1')).toContain(
      'Content-Disposition: form-data; name="file"; filename="net.powervro.tests.package"',
    );
    expect(body.indexOf(samplePackage)).toBeGreaterThan(0);
    expect(Number(request?.headers['content-length'])).toBe(body.length);
    expect(stack.vro.imports.at(-1)?.bytes.equals(samplePackage)).toBe(true);
  });

  it('makes the imported workflows visible', async () => {
    await upload(sample());
    const answer = await stack.gql<any>(
      '{ workflows(filter: { categoryName: "Test" }) { nodes { name version } } }',
    );
    expect(answer.data?.workflows.nodes).toEqual(
      ['Test01', 'Test02', 'Test03', 'Test04', 'Test05'].map((name) => ({
        name,
        version: '0.0.0',
      })),
    );
    const test04 = await stack.gql<any>(
      '{ workflow(id: "d7326934-440c-49d0-af1b-cceca91241e4") { inputParameters { name type } outputParameters { name } } }',
    );
    expect(test04.data?.workflow).toEqual({
      inputParameters: [{ name: 'b', type: 'number' }],
      outputParameters: [{ name: 'result' }, { name: 'result2' }],
    });
  });

  it.each([
    ['DO_NOT_IMPORT', 'DoNotImport'],
    ['IMPORT_AND_OVERWRITE_EXISTING_VALUE', 'ImportAndOverwriteExistingValue'],
    ['IMPORT_BUT_PRESERVE_EXISTING_VALUE', 'ImportButPreserveExistingValue'],
  ])('sends tagImportMode %s as %s', async (mode, upstream) => {
    const [answer, sent] = await upload(sample(), { mode, overwrite: true, values: true });
    expect(answer.data?.importPackage.imported).toBe(true);
    expect(Object.fromEntries(sent[0]?.query ?? [])).toEqual({
      overwrite: 'true',
      importConfigurationAttributeValues: 'true',
      tagImportMode: upstream,
    });
  });

  it('answers CONFLICT when vRO has a newer version, and imports with overwrite', async () => {
    stack.vro.putWorkflow({
      id: test01,
      name: 'Test01',
      version: '2.0.0',
      category: 'Test',
      inputs: [],
      outputs: [],
    });
    const [conflict] = await upload(sample());
    expect(conflict.data).toBeNull();
    expect(conflict.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'vro', status: 409, code: null },
    });
    expect(conflict.errors?.[0]?.extensions?.['upstream'].message).toContain(
      'older than version 2.0.0',
    );
    const [forced, sent] = await upload(sample(), { overwrite: true });
    expect(forced.data?.importPackage.imported).toBe(true);
    expect(sent[0]?.query.get('overwrite')).toBe('true');
    expect(stack.vro.getWorkflow(test01)?.version).toBe('0.0.0');
  });

  it('takes the package name from the file name without .package', async () => {
    const [answer] = await upload(sample('My.Package.Export.package'));
    expect(answer.data?.importPackage.packageName).toBe('My.Package.Export');
    const [plain] = await upload(sample('exported'));
    expect(plain.data?.importPackage.packageName).toBe('exported');
  });

  it('answers BAD_USER_INPUT with the 400 of vRO for a file that is not a package', async () => {
    const [answer, sent] = await upload(new File([Buffer.from('not a zip')], 'broken.package'));
    expect(sent).toHaveLength(1);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, message: 'Not a vRO package: no zip directory' },
    });
  });

  it('refuses an empty file with BAD_USER_INPUT before any call', async () => {
    const [answer, sent] = await upload(new File([], 'empty.package'));
    expect(sent).toHaveLength(0);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'file',
    });
  });

  it('refuses a descriptive tag import phrase written inline with GRAPHQL_VALIDATION_FAILED', async () => {
    const [answer, sent] = await upload(
      sample(),
      {},
      'mutation($file: File!) { importPackage(file: $file, tagImportMode: do_not_import_tags) { imported } }',
    );
    expect(sent).toHaveLength(0);
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses a descriptive tag import phrase in variables with GRAPHQL_VALIDATION_FAILED before any call', async () => {
    const [answer, sent] = await upload(sample(), { mode: 'do not import tags' });
    expect(sent).toHaveLength(0);
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0]?.message).toContain('does not exist in "TagImportMode" enum');
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
