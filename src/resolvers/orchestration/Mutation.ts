import { BadUserInputError, UpstreamError } from '../../errors.ts';
import type {
  MutationResolvers,
  TagImportMode,
  WorkflowParameterInput,
} from '../../generated/graphql.ts';
import { checkPackageFile, checkVroId } from '../../inputs/orchestration.ts';
import { checkDeclaredInputs, encodeParameters } from '../../inputs/workflow-inputs.ts';
import type { VroLoaders } from '../../loaders/vro.ts';
import type {
  ExecutionRecord,
  WireParameterValue,
  WireTagImportMode,
  WorkflowRecord,
} from '../../upstreams/vro/wire.ts';

interface ImportPackageArguments {
  file: File;
  overwrite?: boolean | null;
  importConfigurationAttributeValues?: boolean | null;
  tagImportMode?: TagImportMode | null;
}

const tagImportModes: Record<TagImportMode, WireTagImportMode> = {
  DO_NOT_IMPORT: 'DoNotImport',
  IMPORT_AND_OVERWRITE_EXISTING_VALUE: 'ImportAndOverwriteExistingValue',
  IMPORT_BUT_PRESERVE_EXISTING_VALUE: 'ImportButPreserveExistingValue',
};

export const Mutation: MutationResolvers = {
  async runWorkflow(_parent, { workflowId, inputs }, { clients, loaders, call }) {
    checkVroId(workflowId, 'workflowId');
    const given = inputs ?? [];
    const parameters = encodeParameters(given);
    // vRO's own refusal of an unknown or ill-typed input is a bare 400: checked here first.
    if (given.length > 0) await checkInputs(loaders.vro, workflowId, given);
    const executionId = await clients.vro.startExecution(call, workflowId, parameters);
    try {
      return { execution: await clients.vro.getExecution(call, workflowId, executionId) };
    } catch (error) {
      // The run has started: losing its id to a failed read-back would invite a second run.
      if (error instanceof UpstreamError) {
        return { execution: justStarted(workflowId, executionId, parameters) };
      }
      throw error;
    }
  },

  async cancelWorkflowExecution(_parent, { workflowId, executionId }, { clients, loaders, call }) {
    checkVroId(workflowId, 'workflowId');
    checkVroId(executionId, 'executionId');
    const key = { workflowId, executionId };
    loaders.vro.executionById.clear(key);
    loaders.vro.executionLogs.clear(key);
    loaders.vro.executionHistory.clearAll();
    const execution = await clients.vro.cancelExecution(call, workflowId, executionId);
    loaders.vro.executionById.prime(key, execution);
    return execution;
  },

  async importPackage(_parent, args, { clients, loaders, call }) {
    // an argument with a default can still be given an explicit null
    const { file, overwrite, importConfigurationAttributeValues, tagImportMode } =
      args as ImportPackageArguments;
    checkPackageFile(file);
    await clients.vro.importPackage(call, file, {
      overwrite: overwrite === true,
      importConfigurationAttributeValues: importConfigurationAttributeValues === true,
      tagImportMode: tagImportModes[tagImportMode ?? 'DO_NOT_IMPORT'],
    });
    loaders.vro.workflowById.clearAll();
    loaders.vro.workflowAtVersion.clearAll();
    loaders.vro.formOfWorkflow.clearAll();
    loaders.vro.workflowSummaryById.clearAll();
    // a package may bring a workflow back at the version it had, changed
    await clients.vro.forgetWorkflows();
    const packageName = file.name.replace(/\.package$/i, '');
    return { imported: true, packageName: packageName === '' ? null : packageName };
  },
};

/**
 * Checks the inputs against the workflow's declared ones: the detail kept
 * from an earlier request if there is one (no call), else one read, made
 * once per request. A refusal
 * based on a kept detail is confirmed on a fresh read, so that a workflow
 * changed since never has a valid input refused.
 */
async function checkInputs(
  loaders: VroLoaders,
  workflowId: string,
  given: readonly WorkflowParameterInput[],
): Promise<void> {
  const check = (workflow: WorkflowRecord): void => {
    const declared = workflow.parameters?.input;
    if (declared !== undefined) checkDeclaredInputs(given, workflow.name, declared);
  };
  const kept = await loaders.workflowKept.load(workflowId);
  try {
    check(kept.workflow);
  } catch (error) {
    if (!kept.cached || !(error instanceof BadUserInputError)) throw error;
    check(await loaders.workflowById.load(workflowId));
  }
}

/** The execution as far as the gateway knows it when vRO accepted the run but could not be read back. */
function justStarted(
  workflowId: string,
  executionId: string,
  parameters: WireParameterValue[],
): ExecutionRecord {
  return {
    id: executionId,
    workflowId,
    name: null,
    state: 'initializing',
    startDate: null,
    endDate: null,
    startedBy: null,
    inputParameters: parameters,
    outputParameters: [],
    exception: null,
  };
}
