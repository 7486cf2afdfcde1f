import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';

interface Entry {
  name: string;
  /** What the entry holds once inflated. */
  content: Buffer;
  /** The size its directory entry declares (default: the true one). */
  declaredSize?: number;
}

/** A zip archive of deflated entries, as a `.package` upload carries it. */
function zip(entries: readonly Entry[]): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = deflateRawSync(entry.content);
    const size = entry.declaredSize ?? entry.content.length;
    const crc = crc32(entry.content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    directory.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

const meta = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?><properties><entry key="pkg-name">com.example.bomb</entry></properties>',
);
/** 64 MiB of zeros: about 64 KB deflated. */
const zeros = Buffer.alloc(64 * 1024 * 1024);

let vro: VroSimulator;
beforeAll(async () => {
  vro = await startVroSimulator();
});
afterAll(async () => {
  await vro.close();
});

async function upload(bytes: Buffer): Promise<{ status: number; text: string; tookMs: number }> {
  const form = new FormData();
  form.append('file', new File([new Uint8Array(bytes)], 'bomb.package'));
  const started = performance.now();
  const response = await fetch(
    new URL(
      'packages?overwrite=true&importConfigurationAttributeValues=false',
      vro.url.href.replace(/\/?$/, '/'),
    ),
    {
      method: 'POST',
      body: form,
      headers: {
        authorization: `Basic ${Buffer.from(`${vro.username}:${vro.password}`).toString('base64')}`,
      },
    },
  );
  return {
    status: response.status,
    text: await response.text(),
    tookMs: performance.now() - started,
  };
}

describe('the vRO simulator, sent a zip bomb as a package', () => {
  it('refuses an entry that declares 64 MiB with 400 before inflating it', async () => {
    const bomb = zip([
      { name: 'dunes-meta-inf', content: meta },
      { name: 'elements/bomb/data', content: zeros },
    ]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const rss = process.memoryUsage().rss;
    const answer = await upload(bomb);
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/Not a vRO package/);
    expect(answer.tookMs).toBeLessThan(2000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(48 * 1024 * 1024);
  });

  it('refuses an entry that declares 1 KB but inflates to 64 MiB with 400, inflating no more than it declared', async () => {
    const bomb = zip([
      { name: 'dunes-meta-inf', content: meta },
      { name: 'elements/bomb/data', content: zeros, declaredSize: 1024 },
    ]);
    const rss = process.memoryUsage().rss;
    const answer = await upload(bomb);
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/Not a vRO package/);
    expect(answer.tookMs).toBeLessThan(2000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(48 * 1024 * 1024);
  });

  it('still reads an honest package built the same way', async () => {
    const honest = zip([{ name: 'dunes-meta-inf', content: meta }]);
    const answer = await upload(honest);
    expect(answer.status).toBeLessThan(300);
  });
});
