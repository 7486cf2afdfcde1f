/**
 * Where the time and memory of one firewall edit go, phase by phase, on a
 * generated configuration of about `<bytes>` bytes: run by the large-xml
 * scenario as `node --expose-gc test/bench/xml-phases.ts <bytes>`, in a
 * process of its own (a clean heap); prints one JSON line (XmlPhases).
 * fast-xml-parser, which the gateway used before, is measured beside it on
 * the same document.
 */
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { largeFirewallConfiguration } from '../../src/simulators/nsx/large-firewall.ts';
import { el, writeXml } from '../../src/simulators/nsx/sim-xml.ts';
import type { RuleDraft } from '../../src/upstreams/nsx/drafts.ts';
import { insertRule, readFirewallConfig, ruleXml } from '../../src/upstreams/nsx/firewall-xml.ts';
import { buildXml, buildXmlSteps, parseXml, parseXmlSteps } from '../../src/upstreams/nsx/xml.ts';
import { median } from './stats.ts';

export interface XmlPhases {
  bodyBytes: number;
  rules: number;
  /** Median milliseconds of each phase. */
  ms: Record<PhaseName, number>;
  /** Longest single step of the parse and of the build (the most they hold the event loop between pauses). */
  longestStepMs: { parse: number; build: number };
  /** Heap held by the parsed document, MB: this module's tree, fast-xml-parser's ordered form. */
  heldMB: { tree: number; fastXmlParser: number };
}

export type PhaseName =
  'parse' | 'read' | 'edit' | 'build' | 'fxpValidate' | 'fxpParse' | 'fxpBuild';

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

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
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

function longestStep(steps: Generator<void, unknown, void>): number {
  let longest = 0;
  for (;;) {
    const started = performance.now();
    const step = steps.next();
    longest = Math.max(longest, performance.now() - started);
    if (step.done === true) return longest;
  }
}

function measure(bytes: number): XmlPhases {
  const { configuration } = largeFirewallConfiguration('dvportgroup-63', bytes, 1005);
  const body = writeXml(el('VshieldAppConfiguration', [configuration]));
  const samples: Record<PhaseName, number[]> = {
    parse: [],
    read: [],
    edit: [],
    build: [],
    fxpValidate: [],
    fxpParse: [],
    fxpBuild: [],
  };
  let rules = 0;
  const longest = { parse: 0, build: 0 };
  for (let round = 0; round < rounds; round++) {
    gc();
    const parsed = timed(() => parseXml(body));
    samples.parse.push(parsed.ms);
    const read = timed(() => readFirewallConfig(parsed.value, 'dvportgroup-63', '1'));
    samples.read.push(read.ms);
    rules = read.value.rules.length;
    const edited = timed(() => insertRule(read.value.document, ruleXml(draft), 0));
    samples.edit.push(edited.ms);
    samples.build.push(timed(() => buildXml(edited.value, { declaration: true })).ms);
    longest.parse = Math.max(longest.parse, longestStep(parseXmlSteps(body)));
    longest.build = Math.max(longest.build, longestStep(buildXmlSteps(edited.value)));
    gc();
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- fast-xml-parser's re-export of fast-xml-validator
    samples.fxpValidate.push(timed(() => XMLValidator.validate(body)).ms);
    const ordered = timed(() => fxpParser.parse(body) as unknown);
    samples.fxpParse.push(ordered.ms);
    samples.fxpBuild.push(timed(() => fxpBuilder.build(ordered.value) as unknown).ms);
  }
  const ms = Object.fromEntries(
    Object.entries(samples).map(([name, list]) => [name, median(list)]),
  ) as Record<PhaseName, number>;
  return {
    bodyBytes: Buffer.byteLength(body),
    rules,
    ms,
    longestStepMs: longest,
    heldMB: {
      tree: held(() => parseXml(body)),
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
