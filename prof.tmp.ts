import { largeFirewallConfiguration } from './src/simulators/nsx/large-firewall.ts';
import { el, writeXml } from './src/simulators/nsx/sim-xml.ts';
import { parseXml, buildXml } from './src/upstreams/nsx/xml.ts';
const { configuration } = largeFirewallConfiguration('dvportgroup-63', 5 * 2 ** 20, 5000);
const text = writeXml(el('VshieldAppConfiguration', [configuration]));
for (let i = 0; i < 6; i++) {
  globalThis.gc?.();
  const m0 = process.memoryUsage().heapUsed;
  let s = performance.now();
  const doc = parseXml(text);
  const p = performance.now() - s;
  const m1 = process.memoryUsage().heapUsed;
  s = performance.now();
  const out = buildXml(doc);
  const b = performance.now() - s;
  globalThis.gc?.();
  const m2 = process.memoryUsage().heapUsed;
  console.log('parse', p.toFixed(0), 'build', b.toFixed(0), 'heap during parse +MB', ((m1 - m0) / 2 ** 20).toFixed(0), 'tree live +MB', ((m2 - m0) / 2 ** 20).toFixed(0), out.length);
}
