/**
 * Where the time and memory of one firewall edit go, phase by phase, on a
 * generated configuration of about `<bytes>` bytes: run by the large-xml
 * scenario as `node --expose-gc test/bench/xml-phases.ts <bytes>`, in a
 * process of its own (a clean heap); prints one JSON line (XmlPhases).
 * fast-xml-parser, which the gateway used before, is measured beside it on
 * the same document.
 */
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { largeFirewallConfiguration } from '../../simulators/nsx/v/large-firewall.ts';
import { el, writeXml } from '../../simulators/nsx/v/sim-xml.ts';
import type { RuleDraft } from '../../src/upstreams/nsx/drafts.ts';
import {
  firewallParseOptions,
  insertRule,
  readFirewallConfig,
  readRules,
  ruleXml,
} from '../../src/upstreams/nsx/v/firewall-xml.ts';
import { buildXmlChunks, parseXml, parseXmlSteps } from '../../src/upstreams/nsx/xml/xml.ts';
import { median } from './stats.ts';

export interface XmlPhases {
  bodyBytes: number;
  rules: number;
  /** Median wall milliseconds of each phase. */
  ms: Record<PhaseName, number>;
  /** Median CPU milliseconds of this thread in each phase (what the phase costs, whatever else runs on the machine). */
  cpuMs: Record<PhaseName, number>;
  /**
   * Longest single step of the parse and of the build, in CPU time of this
   * thread: the most they hold the event loop between two pauses.
   */
  longestStepMs: { parse: number; build: number };
  /** Heap held by the parsed document, MB: this module's whole tree, its lazy one (as an edit reads it), fast-xml-parser's ordered form. */
  heldMB: { tree: number; lazy: number; fastXmlParser: number };
}

export type PhaseName =
  'parse' | 'parseLazy' | 'read' | 'edit' | 'build' | 'fxpValidate' | 'fxpParse' | 'fxpBuild';

const rounds = 5;

const fxpParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});
// eslint-disable-next-line @typescript-eslint/no-deprecated -- fast-xml-parser's re-export of fast-xml-builder
const fxpBuilder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  suppressEmptyNode: true,
  processEntities: true,
  format: false,
});

const draft: RuleDraft = {
  id: undefined,
  layer: 'LAYER3',
  action: 'allow',
  disabled: false,
  logged: true,
  precedence: 'default',
  notes: 'bench rule',
  source: undefined,
  destination: undefined,
  service: undefined,
};

/** fast-xml-parser's validator on the document. */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- fast-xml-parser's re-export of fast-xml-validator
const validateWith = XMLValidator.validate;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

function threadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

function timed<T>(run: () => T): { value: T; ms: number; cpuMs: number } {
  const started = performance.now();
  const cpu = threadCpuMs();
  const value = run();
  return { value, ms: performance.now() - started, cpuMs: threadCpuMs() - cpu };
}

/** Heap (MB) still held by what `make` answers, after full collections. */
function held(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept === undefined) throw new Error('nothing kept');
  return (after - before) / 2 ** 20;
}

/** A part of the body as the edit sends it (xml-slices.ts, `buildXmlPartsInSlices`). */
function asBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

function longestStep(steps: Generator<unknown, unknown, void>): number {
  let longest = 0;
  for (;;) {
    const started = threadCpuMs();
    const step = steps.next();
    longest = Math.max(longest, threadCpuMs() - started);
    if (step.done === true) return longest;
  }
}

function measure(bytes: number): XmlPhases {
  const { configuration } = largeFirewallConfiguration('dvportgroup-63', bytes, 1005);
  const body = writeXml(el('VshieldAppConfiguration', [configuration]));
  const samples = new Map<PhaseName, Array<{ ms: number; cpuMs: number }>>();
  const record = <T>(name: PhaseName, phase: { value: T; ms: number; cpuMs: number }): T => {
    samples.set(name, [...(samples.get(name) ?? []), { ms: phase.ms, cpuMs: phase.cpuMs }]);
    return phase.value;
  };
  const validate = (): unknown => validateWith(body);
  let rules = 0;
  const longest = { parse: 0, build: 0 };
  for (let round = 0; round < rounds; round++) {
    gc();
    record(
      'parse',
      timed(() => parseXml(body)),
    );
    const lazy = record(
      'parseLazy',
      timed(() => parseXml(body, firewallParseOptions)),
    );
    rules = record(
      'read',
      timed(() => readRules(readFirewallConfig(lazy, 'dvportgroup-63', '1'))),
    ).length;
    const edited = record(
      'edit',
      timed(() =>
        insertRule(readFirewallConfig(lazy, 'dvportgroup-63', '1').document, ruleXml(draft), 0),
      ),
    );
    record(
      'build',
      timed(() => [...buildXmlChunks(edited, { declaration: true })].map(asBytes)),
    );
    longest.parse = Math.max(longest.parse, longestStep(parseXmlSteps(body, firewallParseOptions)));
    longest.build = Math.max(longest.build, longestStep(buildXmlChunks(edited)));
    gc();
    record('fxpValidate', timed(validate));
    const ordered = record(
      'fxpParse',
      timed(() => fxpParser.parse(body) as unknown),
    );
    record(
      'fxpBuild',
      timed(() => fxpBuilder.build(ordered) as unknown),
    );
  }
  const medianOf = (pick: (sample: { ms: number; cpuMs: number }) => number) =>
    Object.fromEntries(
      [...samples].map(([name, list]) => [name, median(list.map(pick))]),
    ) as Record<PhaseName, number>;
  return {
    bodyBytes: Buffer.byteLength(body),
    rules,
    ms: medianOf((sample) => sample.ms),
    cpuMs: medianOf((sample) => sample.cpuMs),
    longestStepMs: longest,
    heldMB: {
      tree: held(() => parseXml(body)),
      lazy: held(() => parseXml(body, firewallParseOptions)),
      fastXmlParser: held(() => fxpParser.parse(body) as unknown),
    },
  };
}

const bytes = Number(process.argv[2]);
if (!Number.isInteger(bytes) || bytes < 1) {
  console.error('usage: node --expose-gc test/bench/xml-phases.ts <bytes>');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(measure(bytes))}\n`);
